import { Readable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
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

  it('decodes a compressed answer (gzip, deflate, br; whether a server compresses is not shown), within the bound', async () => {
    const json = Buffer.from(JSON.stringify({ total: 1, results: [{ id: 'é' }] }));
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(json)],
      ['x-gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
      ['identity', json],
    ] as const) {
      const read = await readBounded(Readable.from([bytes]), undefined, 1000, encoding);
      expect(read, encoding).toEqual({ ok: true, text: json.toString('utf8'), raw: json });
    }
    // A bomb: 8 kB of gzip that inflates to 8 MB is as long as what it inflates to.
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    const read = await readBounded(Readable.from([bomb]), undefined, 1024 * 1024, 'gzip');
    expect(read.ok).toBe(false);
    expect(await readBounded(Readable.from([json]), undefined, 1000, 'gzip')).toEqual({
      ok: false,
      bytes: json.byteLength,
      reason: 'not valid gzip',
    });
    expect(await readBounded(Readable.from([json]), undefined, 1000, 'zstd')).toEqual({
      ok: false,
      bytes: json.byteLength,
      reason: 'compressed as zstd',
    });
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
