import { describe, expect, it } from 'vitest';
import { bufferedOut } from '../../src/output/buffered.js';
import type { OutStream } from '../../src/output/iostreams.js';

function fakeOut(accept: (index: number) => boolean = () => true) {
  const writes: string[] = [];
  let drains = 0;
  const out: OutStream = {
    isTTY: false,
    columns: 80,
    write(chunk) {
      writes.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return accept(writes.length - 1);
    },
    drained: async () => {
      drains++;
    },
  };
  return { out, writes, drains: () => drains };
}

describe('bufferedOut', () => {
  it('gathers small writes into chunks of the given size, in order, and flush writes the rest', async () => {
    const { out, writes } = fakeOut();
    const buffered = bufferedOut(out, 10);
    for (const line of ['abc\n', 'def\n', 'ghi\n', 'jk\n']) expect(buffered.write(line)).toBe(true);
    expect(writes).toEqual(['abc\ndef\nghi\n']);
    await buffered.flush();
    expect(writes).toEqual(['abc\ndef\nghi\n', 'jk\n']);
    await buffered.flush();
    expect(writes).toHaveLength(2);
  });

  it('passes backpressure on: a refused chunk returns false, and flush waits for the drain', async () => {
    const { out, drains } = fakeOut(() => false);
    const buffered = bufferedOut(out, 4);
    expect(buffered.write('ab')).toBe(true);
    expect(buffered.write('cd')).toBe(false);
    buffered.write('e');
    await buffered.flush();
    expect(drains()).toBe(1);
  });

  it('keeps order when bytes arrive between strings', async () => {
    const { out, writes } = fakeOut();
    const buffered = bufferedOut(out, 100);
    buffered.write('a');
    buffered.write(new TextEncoder().encode('b'));
    buffered.write('c');
    await buffered.flush();
    expect(writes.join('')).toBe('abc');
  });
});
