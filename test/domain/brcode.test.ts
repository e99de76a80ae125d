import { getPixPayloadInfo } from '@brazilian-utils/brazilian-utils/get-pix-payload-info';
import { describe, expect, it } from 'vitest';
import { type BrCodeInput, decodeBrCode } from '../../src/domain/brcode.js';
import { encodeBrCode } from '../../src/domain/brcodeencode.js';
import { explainBrCode } from '../../src/domain/brcodeexplain.js';
import { crc16 } from '../../src/domain/crc16.js';
import { InvalidValue } from '../../src/domain/invalid.js';
import { reasonOf } from '../helpers/domain.js';

// Example of BACEN's "Manual de Padrões para Iniciação do Pix" (static code with an EVP key).
const BACEN =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

// Codes published in public repositories (found with a code search), CRCs checked below both by
// this implementation and by @brazilian-utils' independent parser.
const REAL = {
  // static, CNPJ key, description in 26-02, txid, name cut at 25
  cnpjWithDescription:
    '00020126740014br.gov.bcb.pix0114228402150001530234Comunidade Evangelica Semear Bauru5204000053039865802BR5925COMUNIDADE EVANGELICA SEM6005BAURU62290525AoWEmu48P2fjmZ0fAXkFdY4Aq630405AD',
  // static, e-mail key, upper-case GUI, amount 80.00
  emailUpperGui:
    '00020126500014BR.GOV.BCB.PIX0128mariannavidal12345@gmail.com520400005303986540580.005802BR5923Marianna Vidal da Silva6009SAO PAULO62140510Uog7w1SbFq63044416',
  // static, Mercado Pago style, amount 25.50
  mercadoPagoStatic:
    '00020126420014br.gov.bcb.pix0120admin@foodfacil.site520400005303986540525.505802BR5923DEELIEZER202202110139296009Sao Paulo62240520mpqrinter791905408246304A712',
  // dynamic (Bradesco), field 01 = 12, amount 105.36
  bradescoDynamic:
    '00020101021226860014br.gov.bcb.pix2564qrpix.bradesco.com.br/qr/v2/743baefb-a188-4f04-a634-22ae30a873285204000053039865406105.365802BR5905ASAAS6009JOINVILLE62070503***630470B5',
  // dynamic without field 01
  dynamicNoPoi:
    '00020126860014br.gov.bcb.pix2564pix.ecomovi.com.br/qr/v3/at/e20a192a-7882-42c8-9a8a-13752e9588685204000053039865802BR5925KAPTPAY_TECNOLOGIA_DE_PAG6009ARAPONGAS62070503***630443C8',
  // dynamic with a postal code (field 61)
  dynamicWithCep:
    '00020101021226860014br.gov.bcb.pix2564qrcode.fitbank.com.br/QR/cob/EA1601C9184054F918F70BE7FAFF019ED6E5204000053039865802BR5925PLEBANK.COM.BR SOLUCOES E6007BARUERI61080645400062070503***6304438E',
  // dynamic, upper-case GUI, amount 134.75
  bradescoUpperGui:
    '00020101021226860014BR.GOV.BCB.PIX2564qrpix.bradesco.com.br/qr/v2/63c8706d-6910-452d-b786-db348caf04d85204000053039865406134.755802BR5925RIO DE JANEIRO CARTORIO 26014RIO DE JANEIRO62070503***6304806D',
};

describe('crc16', () => {
  it('is CRC16/CCITT-FALSE (check value of "123456789" is 29B1)', () => {
    expect(crc16('123456789')).toBe('29B1');
    expect(crc16('')).toBe('FFFF');
  });

  it('gives the CRC of the BACEN example', () => {
    expect(crc16(BACEN.slice(0, -4))).toBe('1D3D');
  });

  // Straightforward bit-by-bit reference, independent of the table-driven implementation.
  function reference(bytes: Uint8Array): string {
    let crc = 0xffff;
    for (const byte of bytes) {
      crc ^= byte << 8;
      for (let bit = 0; bit < 8; bit++)
        crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
    return crc.toString(16).toUpperCase().padStart(4, '0');
  }

  it('runs over UTF-8 bytes: é is C3 A9, not the Latin-1 byte E9', () => {
    expect(crc16('é')).toBe(reference(Buffer.from([0xc3, 0xa9])));
    expect(crc16('é')).not.toBe(reference(Buffer.from([0xe9])));
    expect(crc16('São Paulo ☕ 😀')).toBe(reference(Buffer.from('São Paulo ☕ 😀', 'utf8')));
  });

  it('agrees with the bitwise reference on the example', () => {
    expect(reference(Buffer.from(BACEN.slice(0, -4)))).toBe('1D3D');
  });

  it('pads to 4 upper-case hex digits', () => {
    for (const text of ['a', 'b', 'pix', '000201', 'x'.repeat(50)])
      expect(crc16(text)).toMatch(/^[0-9A-F]{4}$/);
  });
});

describe('decodeBrCode — BACEN example', () => {
  const decoded = decodeBrCode(BACEN);

  it('reads every top-level field', () => {
    expect(decoded).toMatchObject({
      payloadFormat: '01',
      pointOfInitiation: undefined,
      kind: 'static',
      pixKey: '123e4567-e12b-12d1-a456-426655440000',
      currency: '986',
      countryCode: 'BR',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      merchantCategoryCode: '0000',
      crc: '1D3D',
    });
    expect(decoded.amount).toBeUndefined();
    expect(decoded.txid).toBeUndefined();
    expect(decoded.url).toBeUndefined();
    expect(decoded.fields.map((f) => f.id)).toEqual(['00', '26', '52', '53', '58', '59', '60', '62', '63']);
  });

  it('keeps positions and children', () => {
    const account = decoded.fields[1]!;
    expect(account).toMatchObject({ id: '26', name: 'Merchant Account Information', position: 6 });
    expect(account.children).toEqual([
      { id: '00', name: 'Globally Unique Identifier (GUI)', value: 'br.gov.bcb.pix', position: 10 },
      { id: '01', name: 'PIX Key', value: '123e4567-e12b-12d1-a456-426655440000', position: 28 },
    ]);
    const crc = decoded.fields.at(-1)!;
    expect(crc).toMatchObject({ id: '63', value: '1D3D', position: BACEN.length - 8 });
    expect(decoded.fields.find((f) => f.id === '62')!.children).toEqual([
      { id: '05', name: 'Reference Label (txid)', value: '***', position: BACEN.length - 15 },
    ]);
  });

  it('re-encodes to the very same text', () => {
    expect(
      encodeBrCode({
        pixKey: '123e4567-e12b-12d1-a456-426655440000',
        merchantName: 'Fulano de Tal',
        merchantCity: 'BRASILIA',
      }),
    ).toBe(BACEN);
  });
});

describe('decodeBrCode — codes from the wild', () => {
  it.each(Object.entries(REAL))('%s: CRC checks here and in brazilian-utils', (_name, code) => {
    const decoded = decodeBrCode(code);
    expect(decoded.crc).toBe(crc16(code.slice(0, -4)));
    const lib = getPixPayloadInfo(code);
    expect(lib).not.toBeNull();
    expect(decoded.merchantName).toBe(lib!.merchantName);
    expect(decoded.merchantCity).toBe(lib!.merchantCity);
    expect(decoded.kind).toBe(lib!.pointOfInitiation);
    expect(decoded.pixKey).toBe(lib!.key);
    expect(decoded.url).toBe(lib!.url);
    if (decoded.kind === 'static') {
      expect(decoded.txid).toBe(lib!.txid);
      expect(decoded.amount).toBe(lib!.amount === undefined ? undefined : Math.round(lib!.amount * 100));
    }
  });

  it('reads a CNPJ key, a description and a txid', () => {
    expect(decodeBrCode(REAL.cnpjWithDescription)).toMatchObject({
      kind: 'static',
      pixKey: '22840215000153',
      description: 'Comunidade Evangelica Semear Bauru',
      txid: 'AoWEmu48P2fjmZ0fAXkFdY4Aq',
      merchantName: 'COMUNIDADE EVANGELICA SEM',
    });
  });

  it('accepts an upper-case GUI and reads the amount in centavos', () => {
    expect(decodeBrCode(REAL.emailUpperGui)).toMatchObject({
      pixKey: 'mariannavidal12345@gmail.com',
      amount: 8000,
      txid: 'Uog7w1SbFq',
    });
    expect(decodeBrCode(REAL.mercadoPagoStatic).amount).toBe(2550);
  });

  it('reads dynamic codes with and without field 01', () => {
    expect(decodeBrCode(REAL.bradescoDynamic)).toMatchObject({
      kind: 'dynamic',
      pointOfInitiation: '12',
      url: 'qrpix.bradesco.com.br/qr/v2/743baefb-a188-4f04-a634-22ae30a87328',
      amount: 10536,
      merchantName: 'ASAAS',
      merchantCity: 'JOINVILLE',
    });
    expect(decodeBrCode(REAL.dynamicNoPoi)).toMatchObject({ kind: 'dynamic', pointOfInitiation: undefined });
    expect(decodeBrCode(REAL.dynamicWithCep).postalCode).toBe('06454000');
  });

  it('trims surrounding whitespace and a trailing newline (copy and paste)', () => {
    expect(decodeBrCode(`  ${BACEN}\n`).crc).toBe('1D3D');
  });

  it('accepts a lower-case hex CRC', () => {
    expect(decodeBrCode(`${BACEN.slice(0, -4)}1d3d`).crc).toBe('1D3D');
  });

  it('accepts a merchant name longer than 25 and a code without field 62', () => {
    const body = '00020126330014br.gov.bcb.pix01111234567890952040000530398654041.005802BR';
    const withoutCrc = `${body}5930ABCDEFGHIJKLMNOPQRSTUVWXYZ12346009SAO PAULO6304`;
    const code = withoutCrc + crc16(withoutCrc);
    const decoded = decodeBrCode(code);
    expect(decoded.merchantName).toHaveLength(30);
    expect(decoded.txid).toBeUndefined();
    expect(decoded.amount).toBe(100);
  });
});

describe('decodeBrCode — accented text', () => {
  const code = encodeBrCode({
    pixKey: 'fulano@example.com',
    merchantName: 'João Ninguém',
    merchantCity: 'São Paulo',
    description: 'Café ☕',
    amount: 1050,
  });

  it('counts lengths in characters, not bytes', () => {
    expect(code).toContain('5912João Ninguém');
    expect(code).toContain('6009São Paulo');
    expect(code).toContain('0206Café ☕');
  });

  it('computes the CRC over UTF-8 bytes and round-trips', () => {
    expect(code.slice(-4)).toBe(crc16(code.slice(0, -4)));
    expect(decodeBrCode(code)).toMatchObject({
      merchantName: 'João Ninguém',
      merchantCity: 'São Paulo',
      description: 'Café ☕',
      amount: 1050,
    });
  });

  it('is read the same way by brazilian-utils', () => {
    expect(getPixPayloadInfo(code)).toMatchObject({
      merchantName: 'João Ninguém',
      merchantCity: 'São Paulo',
    });
  });

  it('counts astral characters (emoji) as one character', () => {
    const emoji = encodeBrCode({ pixKey: 'a@b.co', merchantName: 'Loja 😀', merchantCity: 'Rio' });
    expect(emoji).toContain('5906Loja 😀');
    expect(decodeBrCode(emoji).merchantName).toBe('Loja 😀');
  });
});

describe('decodeBrCode — broken codes', () => {
  it('names a CRC mismatch with both values', () => {
    expect(reasonOf(() => decodeBrCode(`${BACEN.slice(0, -4)}1D3E`))).toBe(
      'CRC mismatch: code ends in 1D3E, content gives 1D3D',
    );
  });

  it('catches a typo in the content through the CRC', () => {
    const typo = BACEN.replace('Fulano', 'Fulana');
    expect(reasonOf(() => decodeBrCode(typo))).toMatch(
      /^CRC mismatch: code ends in 1D3D, content gives [0-9A-F]{4}$/,
    );
  });

  it('says which field is cut short when the code is truncated', () => {
    expect(reasonOf(() => decodeBrCode(BACEN.slice(0, -10)))).toBe(
      'field 62 at character 118 declares 7 characters but 5 remain',
    );
    expect(reasonOf(() => decodeBrCode(BACEN.slice(0, -2)))).toBe(
      `field 63 at character ${BACEN.length - 8} declares 4 characters but 2 remain`,
    );
    expect(reasonOf(() => decodeBrCode(BACEN.slice(0, -6)))).toBe(
      `field 63 at character ${BACEN.length - 8} is cut short: no room for its 2-digit length`,
    );
  });

  it('says when a length is not a number', () => {
    const code = BACEN.replace('5802BR', '58x2BR');
    expect(reasonOf(() => decodeBrCode(code))).toBe(
      `field 58 at character ${BACEN.indexOf('5802BR')}: length "x2" is not a 2-digit number`,
    );
  });

  it('says when an id is not two digits', () => {
    expect(reasonOf(() => decodeBrCode(`A${BACEN.slice(1)}`))).toBe(
      'field at character 0: id "A0" is not two digits',
    );
    expect(reasonOf(() => decodeBrCode(BACEN.slice(0, -7)))).toBe(
      `field at character ${BACEN.length - 8} is cut short: "6" is not a field id and length`,
    );
  });

  it('checks the TLV inside templates', () => {
    const withoutCrc = '000201263000148r.gov.bcb.pix0136123e45675204000053039865802BR5901A6001B6304';
    expect(reasonOf(() => decodeBrCode(withoutCrc + crc16(withoutCrc)))).toMatch(
      /^field 26, sub-field 01 at character 28 declares 36 characters but \d+ remains?$/,
    );
  });

  it('rejects an empty code and a code without field 63', () => {
    expect(reasonOf(() => decodeBrCode('  '))).toBe('the code is empty');
    expect(reasonOf(() => decodeBrCode(BACEN.slice(0, -8)))).toMatch(/field 63 \(CRC\) is missing/);
  });

  it('rejects a CRC that is not hex, or not the last field', () => {
    expect(reasonOf(() => decodeBrCode(`${BACEN.slice(0, -4)}1D3G`))).toMatch(/"1D3G" is not 4 hex digits/);
    const notLast = `${BACEN.slice(0, -8)}63041D3D5802BR`;
    expect(reasonOf(() => decodeBrCode(notLast))).toBe(
      `field 63 (CRC) at character ${BACEN.length - 8} must be the last field`,
    );
  });

  function signed(withoutCrc: string): string {
    return withoutCrc + crc16(withoutCrc);
  }

  it('rejects a wrong GUI even with a valid CRC', () => {
    const code = signed(BACEN.slice(0, -4).replace('br.gov.bcb.pix', 'br.gov.bcb.pxx'));
    expect(reasonOf(() => decodeBrCode(code))).toBe(
      'field 26 at character 6: GUI is "br.gov.bcb.pxx", expected br.gov.bcb.pix',
    );
  });

  it('rejects a code without a merchant account template', () => {
    const code = signed('0002015204000053039865802BR5901A6001B6304');
    expect(reasonOf(() => decodeBrCode(code))).toMatch(/field 26 .*is missing/);
  });

  it('rejects a PIX template with both or neither key and URL', () => {
    const bothOk = signed('00020126330014br.gov.bcb.pix0101A2506x.com/53039865802BR5901A6001B6304');
    expect(reasonOf(() => decodeBrCode(bothOk))).toMatch(/both a PIX key \(01\) and a URL \(25\)/);
    const neither = signed('00020126180014br.gov.bcb.pix53039865802BR5901A6001B6304');
    expect(reasonOf(() => decodeBrCode(neither))).toMatch(/neither a PIX key \(01\) nor a URL \(25\)/);
  });

  it('rejects a wrong payload format, point of initiation, currency or amount', () => {
    const good = '0014br.gov.bcb.pix0101A';
    const account = `26${String(good.length).padStart(2, '0')}${good}`;
    const tail = '5802BR5901A6001B6304';
    expect(reasonOf(() => decodeBrCode(signed(`000202${account}5303986${tail}`)))).toMatch(/field 00.*"02"/);
    expect(reasonOf(() => decodeBrCode(signed(`${account}0002015303986${tail}`)))).toMatch(
      /must be the first/,
    );
    expect(reasonOf(() => decodeBrCode(signed(`000201010213${account}5303986${tail}`)))).toMatch(
      /field 01 .* is "13", expected 11 or 12/,
    );
    expect(reasonOf(() => decodeBrCode(signed(`000201${account}5303840${tail}`)))).toMatch(/field 53.*"840"/);
    expect(reasonOf(() => decodeBrCode(signed(`000201${account}53039865404,1.0${tail}`)))).toMatch(
      /field 54 \(amount\).*",1.0" is not an amount/,
    );
    expect(reasonOf(() => decodeBrCode(signed(`000201${account}540510.505802BR5901A6001B6304`)))).toMatch(
      /field 53 \(transaction currency\) is missing/,
    );
    expect(
      reasonOf(() => decodeBrCode(signed(`000201${account}5303986540610.5055802BR5901A6001B6304`))),
    ).toMatch(/"10.505" is not an amount/);
  });

  it('rejects copies of codes mangled in public sources (as brazilian-utils does)', () => {
    const mangled = [
      '00020101021226860014br.gov.bcb.pix2564qrcode-pix.mercadopago.com/instore/o/v2/5dcb6005-9cc8-4b15-8b9b-10e458a9bc4052040000530398654041.005802BR5925Quadras Ltda 6011Sao Paulo62070503***6304D8D4',
      '00020101021226860014br.gov.bcb.pix2564qrcode.fitbank.com.br/QR/cob/B700DCCD5365121B6A0BC16B56B9B4989CF5204000053039865802BR5925 TECNOLOGIA E SERV6009SAO PAULO61080145490162070503***6304D4DF',
      '00020126580014br.gov.bcb.pix0136e05d9b23-6447-4905-b045-66718cf2319c5204000053039865406149.905802BR5920Streaming Brasil TV6009Sao Paulo62070503***630489AB',
    ];
    for (const code of mangled) {
      expect(getPixPayloadInfo(code)).toBeNull();
      expect(reasonOf(() => decodeBrCode(code))).toMatch(/character \d+|CRC mismatch/);
    }
  });
});

describe('explainBrCode', () => {
  it('names and explains every field of a static code', () => {
    const rows = explainBrCode(decodeBrCode(REAL.cnpjWithDescription));
    const byPath = Object.fromEntries(rows.map((r) => [r.path, r]));
    expect(Object.keys(byPath)).toEqual(
      expect.arrayContaining([
        '00',
        '26',
        '26.00',
        '26.01',
        '26.02',
        '52',
        '53',
        '58',
        '59',
        '60',
        '62',
        '62.05',
        '63',
      ]),
    );
    expect(byPath['26.01']!.meaning).toMatch(/CNPJ/);
    expect(byPath['26.02']!.value).toBe('Comunidade Evangelica Semear Bauru');
    expect(byPath['26']!.meaning).toMatch(/static/);
    expect(byPath['62.05']!.meaning).toMatch(/transaction id/);
    expect(byPath['54']!.meaning).toMatch(/payer chooses the amount/);
    const paths = rows.map((r) => r.path);
    expect(paths.indexOf('54')).toBe(paths.indexOf('58') - 1);
    expect(byPath['63']!.meaning).toMatch(/matches/);
    for (const row of rows) {
      expect(row.name).not.toBe('');
      expect(row.meaning).not.toBe('');
    }
  });

  it('explains a dynamic code with an amount', () => {
    const rows = explainBrCode(decodeBrCode(REAL.bradescoDynamic));
    const byPath = Object.fromEntries(rows.map((r) => [r.path, r]));
    expect(byPath['01']!.meaning).toMatch(/dynamic/);
    expect(byPath['26.25']!.meaning).toMatch(/URL/);
    expect(byPath['54']!.meaning).toContain('R$ 105,36');
    expect(byPath['62.05']!.meaning).toMatch(/no transaction id/);
  });

  it('recognises each kind of key', () => {
    const kind = (pixKey: string) =>
      explainBrCode(decodeBrCode(encodeBrCode({ pixKey, merchantName: 'A', merchantCity: 'B' }))).find(
        (r) => r.path === '26.01',
      )!.meaning;
    expect(kind('12345678909')).toMatch(/CPF/);
    expect(kind('11222333000181')).toMatch(/CNPJ/);
    expect(kind('+5511912345678')).toMatch(/phone/);
    expect(kind('a@b.co')).toMatch(/e-mail/);
    expect(kind('123e4567-e12b-12d1-a456-426655440000')).toMatch(/EVP/);
  });

  it('explains card-network, language and unreserved templates, and a Pix Saque facilitator', () => {
    const account = '0014br.gov.bcb.pix0101A030800360305';
    const body =
      `0002010415123456789012345` +
      `26${account.length}${account}` +
      '52040000530398654040.005802BR5901A6001B' +
      '62190503***50080004test' +
      '64140002PT0104Joao' +
      '80080004test' +
      '6304';
    const rows = explainBrCode(decodeBrCode(body + crc16(body)));
    const byPath = Object.fromEntries(rows.map((r) => [r.path, r]));
    expect(byPath['04']!.meaning).toMatch(/card network/);
    expect(byPath['26.03']!.meaning).toMatch(/Pix Saque/);
    expect(byPath['54']!.meaning).toContain('R$ 0,00');
    expect(byPath['62.50']!.name).toBe('Payment System Specific Template');
    expect(byPath['64']!.meaning).toMatch(/another language/);
    expect(byPath['64.00']!.value).toBe('PT');
    expect(byPath['64.01']!.meaning).toMatch(/alternate language/);
    expect(byPath['80']!.meaning).toMatch(/unreserved template/);
    expect(byPath['80.00']!.name).toBe('Globally Unique Identifier (GUI)');
  });

  it('points out an over-long name', () => {
    const rows = explainBrCode(decodeBrCode(REAL.cnpjWithDescription));
    expect(rows.find((r) => r.path === '59')!.meaning).toBe('name of the receiver');
    const withoutCrc =
      '00020126330014br.gov.bcb.pix0111123456789095204000053039865802BR5930ABCDEFGHIJKLMNOPQRSTUVWXYZ12346001B6304';
    const long = explainBrCode(decodeBrCode(withoutCrc + crc16(withoutCrc)));
    expect(long.find((r) => r.path === '59')!.meaning).toMatch(/longer than the 25 characters/);
  });
});

describe('encodeBrCode', () => {
  it('writes a static code with amount, txid and postal code', () => {
    const code = encodeBrCode({
      pixKey: '12345678909',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      amount: 12345,
      txid: 'PEDIDO123',
      postalCode: '70040010',
    });
    expect(code).toBe(
      `00020126330014br.gov.bcb.pix01111234567890952040000530398654061` +
        `23.455802BR5913Fulano de Tal6008BRASILIA61087004001062130509PEDIDO1236304${code.slice(-4)}`,
    );
    expect(getPixPayloadInfo(code)).toMatchObject({ key: '12345678909', amount: 123.45, txid: 'PEDIDO123' });
  });

  it('writes a dynamic code with field 01 = 12 the way brazilian-utils does', () => {
    const code = encodeBrCode({
      url: 'pix.example.com/qr/v2/1234',
      merchantName: 'Fulano de Tal',
      merchantCity: 'Brasilia',
    });
    expect(code).toBe(
      '00020101021226480014br.gov.bcb.pix2526pix.example.com/qr/v2/12345204000053039865802BR5913Fulano de Tal6008Brasilia62070503***6304FC66',
    );
  });

  it('writes field 01 when asked', () => {
    const code = encodeBrCode({
      pixKey: 'a@b.co',
      merchantName: 'A',
      merchantCity: 'B',
      pointOfInitiation: '11',
    });
    expect(code.startsWith('000201010211')).toBe(true);
    expect(decodeBrCode(code).pointOfInitiation).toBe('11');
  });

  it('cuts the name to 25 and the city to 15 characters', () => {
    const decoded = decodeBrCode(
      encodeBrCode({ pixKey: 'a@b.co', merchantName: 'Á'.repeat(40), merchantCity: 'Ç'.repeat(30) }),
    );
    expect(decoded.merchantName).toBe('Á'.repeat(25));
    expect(decoded.merchantCity).toBe('Ç'.repeat(15));
  });

  it('writes amounts with two decimals and a dot', () => {
    for (const [centavos, text] of [
      [1, '0.01'],
      [10, '0.10'],
      [100, '1.00'],
      [123456789, '1234567.89'],
    ] as const) {
      const code = encodeBrCode({ pixKey: 'a@b.co', merchantName: 'A', merchantCity: 'B', amount: centavos });
      expect(code).toContain(`54${String(text.length).padStart(2, '0')}${text}5802BR`);
      expect(decodeBrCode(code).amount).toBe(centavos);
    }
  });

  it('cuts a long description to what fits in the PIX template', () => {
    const code = encodeBrCode({
      pixKey: '123e4567-e12b-12d1-a456-426655440000',
      description: 'x'.repeat(200),
      merchantName: 'A',
      merchantCity: 'B',
    });
    const account = decodeBrCode(code).fields.find((f) => f.id === '26')!;
    expect(Array.from(account.value)).toHaveLength(99);
    expect(decodeBrCode(code).description).toBe('x'.repeat(99 - 18 - 40 - 4));
  });

  it('refuses bad input', () => {
    const base = { merchantName: 'A', merchantCity: 'B' };
    expect(reasonOf(() => encodeBrCode(base))).toMatch(/exactly one of a PIX key or a URL/);
    expect(reasonOf(() => encodeBrCode({ ...base, pixKey: 'a@b.co', url: 'x.com/1' }))).toMatch(
      /exactly one/,
    );
    expect(reasonOf(() => encodeBrCode({ ...base, pixKey: 'a@b.co', amount: 0 }))).toMatch(/positive/);
    expect(reasonOf(() => encodeBrCode({ ...base, pixKey: 'a@b.co', amount: 1.5 }))).toMatch(/whole number/);
    expect(reasonOf(() => encodeBrCode({ ...base, pixKey: 'a@b.co', txid: 'has-dash' }))).toMatch(/txid/);
    expect(reasonOf(() => encodeBrCode({ ...base, pixKey: 'a@b.co', txid: 'a'.repeat(26) }))).toMatch(/txid/);
    expect(reasonOf(() => encodeBrCode({ ...base, url: `x.com/${'a'.repeat(90)}` }))).toMatch(/at most 99/);
    expect(reasonOf(() => encodeBrCode({ pixKey: 'a@b.co', merchantName: ' ', merchantCity: 'B' }))).toMatch(
      /name is empty/,
    );
    expect(reasonOf(() => encodeBrCode({ pixKey: 'a@b.co', merchantName: 'A', merchantCity: '' }))).toMatch(
      /city is empty/,
    );
  });
});

// A small deterministic PRNG (mulberry32) so property tests are reproducible.
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .-áéíóúãõçÇÁ€😀';

function randomText(rand: () => number, min: number, max: number): string {
  const chars = Array.from(ALPHABET);
  const length = min + Math.floor(rand() * (max - min + 1));
  let out = '';
  for (let i = 0; i < length; i++) out += chars[Math.floor(rand() * chars.length)];
  return out.trim() === '' ? 'x' : out;
}

function randomInput(rand: () => number): BrCodeInput {
  const input: BrCodeInput = {
    merchantName: randomText(rand, 1, 25).trim() || 'x',
    merchantCity: randomText(rand, 1, 15).trim() || 'x',
  };
  if (rand() < 0.5) input.pixKey = randomText(rand, 1, 60).replaceAll(' ', '');
  else input.url = `pix.example.com/qr/${randomText(rand, 1, 40).replace(/[^A-Za-z0-9]/g, '') || 'v2'}`;
  if (!input.pixKey) delete input.pixKey;
  if (input.pixKey === undefined && input.url === undefined) input.url = 'x.com/1';
  if (rand() < 0.5) input.amount = 1 + Math.floor(rand() * 10_000_000);
  if (rand() < 0.3) input.description = randomText(rand, 1, 20);
  if (rand() < 0.3) input.postalCode = String(Math.floor(rand() * 1e8)).padStart(8, '0');
  if (rand() < 0.5) input.txid = randomText(rand, 1, 25).replace(/[^A-Za-z0-9]/g, '') || 'T1';
  if (rand() < 0.3) input.pointOfInitiation = rand() < 0.5 ? '11' : '12';
  return input;
}

describe('properties', () => {
  it('encode → decode is the identity over 500 random inputs', () => {
    const rand = prng(20_251_121);
    for (let i = 0; i < 500; i++) {
      const input = randomInput(rand);
      const code = encodeBrCode(input);
      const decoded = decodeBrCode(code);
      expect(decoded.pixKey).toBe(input.pixKey);
      expect(decoded.url).toBe(input.url);
      expect(decoded.kind).toBe(input.url ? 'dynamic' : 'static');
      expect(decoded.merchantName).toBe(input.merchantName);
      expect(decoded.merchantCity).toBe(input.merchantCity);
      expect(decoded.amount).toBe(input.amount);
      expect(decoded.postalCode).toBe(input.postalCode);
      expect(decoded.txid).toBe(input.txid);
      expect(decoded.pointOfInitiation).toBe(input.pointOfInitiation ?? (input.url ? '12' : undefined));
      if (input.description) expect(input.description.startsWith(decoded.description ?? '')).toBe(true);
      // brazilian-utils' independent parser must accept the code and read the same values. It counts
      // lengths in UTF-16 code units, so it disagrees (by design of ours) only when astral characters
      // such as emoji are present; those codes are checked by our own decoder above.
      if (/[\u{10000}-\u{10FFFF}]/u.test(code)) continue;
      const lib = getPixPayloadInfo(code);
      expect(lib, code).not.toBeNull();
      expect(lib!.merchantName).toBe(input.merchantName);
      expect(lib!.merchantCity).toBe(input.merchantCity);
      expect(lib!.key).toBe(input.pixKey);
      expect(lib!.url).toBe(input.url);
    }
  });

  it('any one changed character of a valid code is caught', () => {
    const rand = prng(42);
    const codes = [
      BACEN,
      ...Object.values(REAL),
      encodeBrCode(randomInput(rand)),
      encodeBrCode(randomInput(rand)),
    ];
    const replacements = Array.from('0123456789ABCDEFabcdef.*-/ é@Zx');
    let checked = 0;
    for (const code of codes) {
      const chars = Array.from(code);
      for (let i = 0; i < chars.length; i++) {
        for (const r of replacements) {
          if (r === chars[i]) continue;
          // The CRC's hex digits are read case-insensitively: a case change there means the same CRC.
          if (i >= chars.length - 4 && r.toUpperCase() === chars[i]!.toUpperCase()) continue;
          const mutated = [...chars.slice(0, i), r, ...chars.slice(i + 1)].join('');
          expect(() => decodeBrCode(mutated), `position ${i} → ${r}`).toThrow(InvalidValue);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });
});

describe('decodeBrCode: lenient, with each rule of the manual broken in warnings', () => {
  const signed = (withoutCrc: string) => withoutCrc + crc16(withoutCrc);
  const tlv = (id: string, value: string) =>
    `${id}${String(Array.from(value).length).padStart(2, '0')}${value}`;
  const code = (parts: {
    account?: string;
    amount?: string;
    name?: string;
    city?: string;
    extra?: string | null;
  }) =>
    signed(
      `000201${tlv('26', parts.account ?? `${tlv('00', 'br.gov.bcb.pix')}${tlv('01', 'loja@example.com')}`)}` +
        `52040000530398${parts.amount === undefined ? '6' : `6${tlv('54', parts.amount)}`}5802BR` +
        `${tlv('59', parts.name ?? 'Loja')}${tlv('60', parts.city ?? 'SAO PAULO')}` +
        `${parts.extra === null ? '' : tlv('62', parts.extra ?? tlv('05', '***'))}6304`,
    );

  it('a code by the manual has no warnings', () => {
    expect(decodeBrCode(code({ amount: '10.00' })).warnings).toEqual([]);
  });

  it('names each broken rule, where it is, and decodes the code anyway', () => {
    const cases: [Parameters<typeof code>[0], RegExp][] = [
      [
        { name: 'Comercio de Alimentos da Esquina' },
        /^field 59 \(merchant name\) at character \d+ has 32 characters; the manual allows 25$/,
      ],
      [
        { city: 'SAO JOSE DOS CAMPOS' },
        /^field 60 \(merchant city\) .* has 19 characters; the manual allows 15$/,
      ],
      [{ extra: null }, /^field 62 \(additional data\) is missing/],
      [
        { extra: tlv('05', 'pedido_123-a') },
        /^the txid \(62\.05\) at character \d+ has characters other than letters and digits/,
      ],
      [{ extra: tlv('05', 'A'.repeat(30)) }, /^the txid \(62\.05\) .* has 30 characters/],
      [{ amount: '10.' }, /^field 54 \(amount\) at character \d+ ends in a dot/],
      [
        { account: `${tlv('00', 'br.gov.bcb.pix')}${tlv('25', 'https://pix.example.com/qr/v2/abc')}` },
        /^the URL \(sub-field 25\) starts with a scheme \(https:\/\/\)/,
      ],
    ];
    for (const [parts, warning] of cases) {
      const decoded = decodeBrCode(code(parts));
      expect(decoded.warnings, JSON.stringify(parts)).toHaveLength(1);
      expect(decoded.warnings[0], JSON.stringify(parts)).toMatch(warning);
    }
    expect(decodeBrCode(code({ amount: '10.' })).amount).toBe(1000);
  });

  it('a lower-case CRC and a missing field 52 are warnings too; damage is still refused', () => {
    // The first of these codes whose CRC has a letter in it (most do), written in lower case.
    const withLetter = ['A', 'B', 'C', 'D']
      .map((name) => code({ name }))
      .find((c) => /[A-F]/.test(c.slice(-4)))!;
    const lower = withLetter.slice(0, -4) + withLetter.slice(-4).toLowerCase();
    expect(decodeBrCode(lower).warnings).toEqual([expect.stringMatching(/is in lower case/)]);
    expect(decodeBrCode(lower).warnings).toEqual([expect.stringMatching(/lower case/)]);
    const no52 = signed(code({}).slice(0, -4).replace('52040000', ''));
    expect(decodeBrCode(no52).warnings).toEqual([expect.stringMatching(/^field 52 .* is missing/)]);
    expect(reasonOf(() => decodeBrCode(code({ amount: '10,00' })))).toMatch(/is not an amount/);
    expect(reasonOf(() => decodeBrCode(code({ amount: '.5' })))).toMatch(/is not an amount/);
  });
});
