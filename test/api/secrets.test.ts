import { describe, expect, it } from 'vitest';
import { createSecretScanner, REDACTED, redactParsed, SECRET_WINDOW } from '../../src/api/secrets.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQtZm9yLXRlc3Rz.Zm9vYmFyYmF6cXV4';

function scanner(...secrets: string[]) {
  const scan = createSecretScanner();
  for (const secret of secrets) scan.add(secret);
  return scan;
}

/** True when `text` holds SECRET_WINDOW or more consecutive characters of `secret`. */
function leaks(text: string, secret: string): boolean {
  for (let at = 0; at + SECRET_WINDOW <= secret.length; at++) {
    if (text.includes(secret.slice(at, at + SECRET_WINDOW))) return true;
  }
  return false;
}

describe('the secret scanner', () => {
  it('replaces a secret echoed whole, cut, with a suffix, or inside a word', () => {
    const scan = scanner(TOKEN);
    for (const echoed of [
      TOKEN,
      TOKEN.slice(0, 8),
      TOKEN.slice(5, 30),
      TOKEN.slice(-9),
      `${TOKEN}XYZ`,
      `Bearer ${TOKEN.slice(10)}`,
      `prefix${TOKEN.slice(3, 20)}suffix`,
    ]) {
      const text = `{"message":"token rejeitado: ${echoed}","ok":1}`;
      const out = scan.redact(text);
      expect(leaks(out, TOKEN), out).toBe(false);
      expect(out).toContain(REDACTED);
      // Still JSON, the rest untouched.
      expect(JSON.parse(out)).toMatchObject({ ok: 1 });
      expect(out.startsWith('{"message":"token rejeitado: ')).toBe(true);
    }
  });

  it('leaves 7 characters of a secret and clean text alone (the same string back)', () => {
    const scan = scanner(TOKEN);
    const clean = `{"message":"${TOKEN.slice(0, 7)} is not 8 characters","n":12345678}`;
    expect(scan.redact(clean)).toBe(clean);
  });

  it('merges overlapping pieces of several secrets into one [redacted]', () => {
    const other = 'sec_SECRET_9d2e7b4a1c6f8e05';
    const scan = scanner(TOKEN, other);
    const out = scan.redact(`a ${other.slice(2)}${TOKEN.slice(0, 12)} b ${other}`);
    expect(out).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it('looks for a secret shorter than 8 characters whole; ignores ones under 4', () => {
    const scan = scanner('abc1234', 'xy');
    expect(scan.redact('say abc1234 and xy')).toBe(`say ${REDACTED} and xy`);
  });

  it('does nothing, and costs nothing, with no secret', () => {
    const scan = createSecretScanner();
    expect(scan.active).toBe(false);
    const text = 'x'.repeat(1000);
    expect(scan.redact(text)).toBe(text);
  });

  it('adding the same secret again changes nothing', () => {
    const scan = scanner(TOKEN, TOKEN, TOKEN);
    expect(scan.redact(`${TOKEN}`)).toBe(REDACTED);
  });

  it('finds a piece at the very start and the very end of the text', () => {
    const scan = scanner(TOKEN);
    expect(scan.redact(TOKEN.slice(0, 8))).toBe(REDACTED);
    expect(scan.redact(`x${TOKEN.slice(-8)}`)).toBe(`x${REDACTED}`);
  });

  it('a 400-character token against a 5 MB text: every planted piece found, nothing else touched', () => {
    const token = Array.from(
      { length: 400 },
      (_, i) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[(i * 37 + 11) % 64],
    ).join('');
    const scan = scanner(token);
    const filler = '{"id":"7c1e9a52","description":"Pagamento recebido de Fulano","amount":10.5},';
    let text = '';
    const planted: number[] = [];
    while (text.length < 5_000_000) {
      text += filler;
      if (planted.length < 50 && text.length % 97 === 0) {
        planted.push(text.length);
        text += token.slice(planted.length, planted.length + 8 + planted.length);
      }
    }
    const out = scan.redact(text);
    expect(leaks(out, token)).toBe(false);
    expect(out.split(REDACTED).length - 1).toBe(planted.length);
    expect(out.replaceAll(REDACTED, '')).toBe(out.split(REDACTED).join(''));
  });
});

describe('the secret scanner given the raw bytes of an answer', () => {
  const utf8 = (text: string) => new TextEncoder().encode(text);

  it('gives the same text as the text scan: clean or not, a piece at every offset, after multi-byte characters', () => {
    const other = 'sec_SECRET_9d2e7b4a1c6f8e05';
    const scan = scanner(TOKEN, other, 'abc1234');
    const prefixes = ['', 'x', 'João ', 'Pão ', '€', '😀😀', 'ação, café e pão: '];
    let dirty = 0;
    for (const prefix of prefixes) {
      for (let pad = 0; pad < 10; pad++) {
        for (const piece of [
          '',
          TOKEN.slice(pad, pad + 8),
          TOKEN.slice(3, 3 + 9 + pad),
          other.slice(pad),
          'abc1234',
        ]) {
          const text = `{"message":"${prefix}${'y'.repeat(pad)}${piece}","é":"ü"}`;
          const expected = scan.redact(text);
          expect(scan.redact(text, utf8(text))).toBe(expected);
          if (expected !== text) dirty++;
        }
      }
    }
    expect(dirty).toBe(prefixes.length * 10 * 4);
  });

  it('clean bytes prove the text clean: the text is not scanned (so they must be the bytes it came from)', () => {
    const scan = scanner(TOKEN);
    const text = `{"message":"${TOKEN}"}`;
    expect(scan.redact(text, utf8('{"message":"nothing here at all"}'))).toBe(text);
    expect(scan.redact(text, utf8(text))).toBe(`{"message":"${REDACTED}"}`);
  });

  it('a secret that is not ASCII is still found: the text is scanned whatever the bytes say', () => {
    const secret = 'senha-çãé-12345678';
    const scan = scanner(TOKEN, secret);
    const text = `{"m":"${secret.slice(2, 12)}"}`;
    expect(scan.redact(text, utf8('{"m":"clean"}'))).toBe(`{"m":"${REDACTED}"}`);
  });
});

describe('redactParsed: secrets spelled with JSON escapes', () => {
  it('checks every string and key of a parsed value, without recursion', () => {
    const scan = scanner(TOKEN);
    const escaped = JSON.stringify({ message: TOKEN }).replace(
      /[a-z]/g,
      (c) => `\\u00${c.charCodeAt(0).toString(16)}`,
    );
    // The raw text does not spell the token…
    expect(scan.redact(escaped)).toBe(escaped);
    // …the parsed strings do.
    const value = redactParsed(JSON.parse(escaped), scan.redact) as { message: string };
    expect(value.message).toBe(REDACTED);
    const nested = redactParsed({ a: [{ [TOKEN]: [TOKEN.slice(2)] }], n: 1 }, scan.redact);
    expect(JSON.stringify(nested)).not.toContain(TOKEN.slice(2, 10));
    expect(redactParsed(TOKEN, scan.redact)).toBe(REDACTED);
    let deep: unknown = TOKEN;
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(() => redactParsed(deep, scan.redact)).not.toThrow();
  });
});
