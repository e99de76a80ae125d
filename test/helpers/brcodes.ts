import { encodeBrCode } from '../../src/domain/brcodeencode.js';

/** A static BR Code (key, no amount) and a dynamic one (URL), valid CRCs, for command and reliability tests. */
export const STATIC_CODE = encodeBrCode({
  pixKey: 'loja@example.com',
  merchantName: 'Loja da Esquina',
  merchantCity: 'SAO PAULO',
});

export const DYNAMIC_CODE = encodeBrCode({
  url: 'pix.example.com/qr/v2/abc123',
  merchantName: 'Loja da Esquina',
  merchantCity: 'SAO PAULO',
});
