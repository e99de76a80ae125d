/**
 * The QR code drawn in the terminal. qrcode-terminal is loaded only when a drawing is asked for, so
 * nothing else pays for it (architecture rule 8).
 */
export async function drawQr(text: string): Promise<string> {
  const { default: qrcodeTerminal } = await import('qrcode-terminal');
  return new Promise((resolve) => {
    // Half-block characters: two modules per character cell, so a PIX code fits in 80 columns.
    qrcodeTerminal.generate(text, { small: true }, (drawing) => resolve(`${drawing}\n`));
  });
}

/** The QR code as a PNG data URL (the API's qrCodeDataUrl): the sandbox's charges and `pix charge show --qr-png`. */
export async function qrPngDataUrl(text: string): Promise<string> {
  const qrcode = await import('qrcode');
  const toDataURL = qrcode.toDataURL ?? (qrcode as unknown as { default: typeof qrcode }).default.toDataURL;
  return toDataURL(text, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2 });
}
