import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestedDeeperThan, parseBody, readBounded } from '../../src/api/body.js';

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('bounded answers', () => {
  it('reads a body up to the limit and gives up (destroying it) beyond', async () => {
    const chunks = () => Readable.from([Buffer.from('abc'), Buffer.from('déf')]);
    expect(await readBounded(chunks(), undefined, 100)).toEqual({
      ok: true,
      text: 'abcdéf',
      raw: Buffer.from('abcdéf'),
    });
    const stream = chunks();
    expect(await readBounded(stream, undefined, 4)).toEqual({ ok: false, bytes: 7 });
    expect(stream.destroyed).toBe(true);
  });

  it('believes a declared Content-Length over the limit without reading a byte', async () => {
    let read = false;
    const body = Readable.from(
      (function* () {
        read = true;
        yield Buffer.from('x');
      })(),
    );
    expect(await readBounded(body, String(64 * 1024 * 1024), 32 * 1024 * 1024)).toEqual({
      ok: false,
      bytes: 64 * 1024 * 1024,
    });
    expect(read).toBe(false);
  });

  it(`JSON nested more than ${MAX_JSON_DEPTH} levels is refused once parsed; brackets inside strings do not count`, () => {
    const value = (text: string): unknown => JSON.parse(text);
    expect(nestedDeeperThan(value(nested(MAX_JSON_DEPTH)))).toBe(false);
    expect(nestedDeeperThan(value(nested(MAX_JSON_DEPTH + 1)))).toBe(true);
    const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(nestedDeeperThan(value(arrays(MAX_JSON_DEPTH)))).toBe(false);
    expect(nestedDeeperThan(value(arrays(MAX_JSON_DEPTH + 1)))).toBe(true);
    // The deep branch is the last of many shallow ones, behind a key and inside an array.
    const wide = `{"a":[${'{"b":1},'.repeat(500)}{"c":${nested(MAX_JSON_DEPTH - 3)}}]}`;
    expect(nestedDeeperThan(value(wide))).toBe(false);
    expect(nestedDeeperThan(value(wide.replace('{"c":', '{"c":[').replace(/}]}$/, ']}]}')))).toBe(true);
    expect(nestedDeeperThan(value(JSON.stringify({ s: '[[[[{{{{'.repeat(100), t: 'a\\"[[[' })))).toBe(false);
    expect(nestedDeeperThan('a string')).toBe(false);
    expect(nestedDeeperThan(null)).toBe(false);
    expect(parseBody(nested(6000))).toEqual({
      ok: false,
      reason: `nested more than ${MAX_JSON_DEPTH} levels deep`,
    });
    expect(parseBody('{"status":"PEND')).toEqual({ ok: false, reason: 'not JSON' });
    expect(parseBody('{"status":"PENDING"}')).toEqual({ ok: true, value: { status: 'PENDING' } });
  });
});
