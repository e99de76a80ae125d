import { describe, expect, it } from 'vitest';
import { encodeBrCode } from '../../../src/domain/brcodeencode.js';
import { crc16 } from '../../../src/domain/crc16.js';
import { DYNAMIC_CODE, STATIC_CODE } from '../../helpers/brcodes.js';
import { pix } from '../../helpers/pix.js';

/** Offline: no dispatcher, no credentials, an empty config dir; a request would fail the test. */

describe('pix emv decode', () => {
  it('piped: one tab-separated row per field and sub-field', async () => {
    const result = await pix(['emv', 'decode', STATIC_CODE]);
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows.map((row) => row[0])).toEqual([
      '00',
      '26',
      '26.00',
      '26.01',
      '52',
      '53',
      '54',
      '58',
      '59',
      '60',
      '62',
      '62.05',
      '63',
    ]);
    expect(rows.find((row) => row[0] === '26.01')).toEqual([
      '26.01',
      'PIX Key',
      'loja@example.com',
      'PIX key of the receiver: an e-mail address',
    ]);
  });

  it('--json: the decoded structure with every field explained', async () => {
    const code = encodeBrCode({
      pixKey: '12345678909',
      amount: 1050,
      merchantName: 'José Açaí',
      merchantCity: 'Belém',
      txid: 'abc',
    });
    const result = await pix(['emv', 'decode', code, '--json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({
      kind: 'static',
      pixKey: '12345678909',
      amount: 10.5,
      merchantName: 'José Açaí',
      merchantCity: 'Belém',
      txid: 'abc',
    });
    expect(json.fields.find((f: { path: string }) => f.path === '54').meaning).toBe(
      'amount to pay: R$ 10,50',
    );
  });

  it('on a terminal: a table, templates shown once, CRC OK', async () => {
    const result = await pix(['emv', 'decode', DYNAMIC_CODE], { tty: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Field');
    expect(result.stdout).toContain('pix.example.com/qr/v2/abc123');
    expect(result.stdout).toContain('CRC OK');
  });

  it('reads stdin with -, and a broken code → exit 2 with what and where', async () => {
    expect((await pix(['emv', 'decode', '-'], { stdin: STATIC_CODE })).code).toBe(0);
    const truncated = await pix(['emv', 'decode', STATIC_CODE.slice(0, 30)]);
    expect(truncated.code).toBe(2);
    expect(truncated.stderr).toMatch(
      /error: EMV: field 26 at character \d+ declares \d+ characters but \d+ remain/,
    );
    const crc = await pix([
      'emv',
      'decode',
      `${STATIC_CODE.slice(0, -1)}${STATIC_CODE.endsWith('0') ? '1' : '0'}`,
    ]);
    expect(crc.code).toBe(2);
    expect(crc.stderr).toContain('CRC mismatch');
  });

  it('a code breaking the manual: decoded, each rule a warning on stderr and in --json; --strict → exit 2', async () => {
    const url = 'https://pix.example.com/qr/v2/abc';
    const account = `0014br.gov.bcb.pix25${url.length}${url}`;
    const body = `00020126${account.length}${account}5204000053039865802BR5904Loja6009SAO PAULO62070503***6304`;
    const code = body + crc16(body);
    const lenient = await pix(['emv', 'decode', code, '--json']);
    expect(lenient.code).toBe(0);
    expect(JSON.parse(lenient.stdout).warnings).toEqual([
      expect.stringMatching(/starts with a scheme \(https:\/\/\)/),
    ]);
    expect(lenient.stderr).toMatch(/^warning: the URL \(sub-field 25\) starts with a scheme/);
    const strict = await pix(['emv', 'decode', code, '--strict']);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toBe('');
    expect(strict.stderr).toMatch(/^error: --strict: the code breaks 1 rule of the BR Code manual: the URL/);
    const clean = await pix(['emv', 'decode', STATIC_CODE, '--strict', '--json']);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout).warnings).toEqual([]);
    expect(clean.stderr).toBe('');
  });
});
