/** qrcode-terminal ships no types; only the call pix makes is declared. */
declare module 'qrcode-terminal' {
  interface QrcodeTerminal {
    generate(input: string, options: { small?: boolean }, callback: (drawing: string) => void): void;
  }
  const qrcodeTerminal: QrcodeTerminal;
  export default qrcodeTerminal;
}
