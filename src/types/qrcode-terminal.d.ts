/** qrcode-terminal ships no types; only the QR encoder it vendors is used (output/qr.ts), as declared here. */
declare module 'qrcode-terminal/vendor/QRCode/index.js' {
  class QRCode {
    /** typeNumber -1: the smallest version that holds the data. */
    constructor(typeNumber: number, errorCorrectLevel: number);
    /** One byte per UTF-16 unit (a "binary string"). */
    addData(data: string): void;
    make(): void;
    getModuleCount(): number;
    isDark(row: number, col: number): boolean;
  }
  export default QRCode;
}

declare module 'qrcode-terminal/vendor/QRCode/QRErrorCorrectLevel.js' {
  const levels: { L: number; M: number; Q: number; H: number };
  export default levels;
}
