import { describe, expect, it } from 'vitest';
import { PixError } from '../../src/errors.js';
import type { OutStream } from '../../src/output/iostreams.js';
import { createOutputWriter } from '../../src/output/writer.js';
import { createTestIO } from '../helpers/io.js';

/** A destination that answers each write asynchronously, failing from the `failAt`-th write on. */
function sink(failAt = Number.POSITIVE_INFINITY, code = 'ENOSPC') {
  const chunks: string[] = [];
  const stream: OutStream = {
    isTTY: false,
    columns: 80,
    write(chunk, done) {
      const index = chunks.length;
      chunks.push(String(chunk));
      setImmediate(() => {
        if (index >= failAt) done?.(Object.assign(new Error(`${code}: failed, write`), { code }));
        else done?.();
      });
      return true;
    },
    drained: () => Promise.resolve(),
  };
  return { stream, chunks };
}

function writerOn(stream: OutStream) {
  const test = createTestIO();
  const output = createOutputWriter({ ...test.io, stdout: stream }, { random: Math.random });
  return { output, stderr: test.stderr };
}

async function writeRecords(output: ReturnType<typeof writerOn>['output'], count: number, total: number) {
  const tally = output.records(total);
  for (let index = 0; index < count; index++) {
    // As the list writer does: wait only when the writer says its destination is full.
    const room = output.stdout.write(`{"id":${index},"pad":"${'x'.repeat(200)}"}\n`);
    tally.add();
    if (!room) await output.stdout.drained().catch(() => {});
  }
  return tally;
}

describe('the output writer', () => {
  it('gathers small writes into ~64 KB chunks; commit waits until every byte is out', async () => {
    const { stream, chunks } = sink();
    const { output } = writerOn(stream);
    const tally = await writeRecords(output, 2000, 2000);
    tally.done();
    await output.commit();
    const text = chunks.join('');
    expect(text.split('\n')).toHaveLength(2001);
    expect(chunks.length).toBeLessThanOrEqual(8);
  });

  it('a full disk is exit 1 with one line naming it, never "bug in pix"', async () => {
    const { stream } = sink(2);
    const { output } = writerOn(stream);
    await writeRecords(output, 3000, 3000);
    const error = await output.commit().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(PixError);
    expect((error as PixError).message).toBe('cannot write output: no space left on device');
    expect((error as PixError).kind).toBe('internal');
  });

  it('an I/O error is named too', async () => {
    const { stream } = sink(0, 'EIO');
    const { output } = writerOn(stream);
    output.stdout.write('x\n');
    await expect(output.commit()).rejects.toThrow(/^cannot write output: /);
  });

  it('a write that fails after the command handed over the whole list still leaves it partial', async () => {
    // A fast source (the in-process sandbox) can finish the list before the destination answers its first write.
    const { stream } = sink(0);
    const { output } = writerOn(stream);
    (await writeRecords(output, 10, 10)).done();
    await output.commit().catch(() => {});
    expect((await output.abort()).partial).toBe('the output is incomplete: wrote 0 of 10 records');
  });

  it('after a failure, abort counts only the records that reached the destination', async () => {
    const { stream, chunks } = sink(1);
    const { output } = writerOn(stream);
    await writeRecords(output, 3000, 3000);
    await output.commit().catch(() => {});
    const { partial, lost } = await output.abort();
    const written = chunks[0]!.split('\n').length - 1;
    expect(written).toBeGreaterThan(0);
    expect(partial).toBe(
      `the output is incomplete: wrote ${written.toLocaleString('en-US')} of 3,000 records`,
    );
    expect(lost).toEqual([]);
  });

  it('interrupted (SIGINT) with every written record whole: "interrupted: wrote N of M records"', async () => {
    const { stream, chunks } = sink();
    const { output } = writerOn(stream);
    await writeRecords(output, 1234, 5000);
    const { partial } = await output.abort('SIGINT');
    expect(partial).toBe('interrupted: wrote 1,234 of 5,000 records');
    expect(chunks.join('').split('\n')).toHaveLength(1235);
  });

  it('a list that was complete is not called partial when the command fails later', async () => {
    const { stream } = sink();
    const { output } = writerOn(stream);
    (await writeRecords(output, 10, 10)).done();
    const { partial } = await output.abort();
    expect(partial).toBeUndefined();
  });

  it('EPIPE (the reader went away) stops writing quietly: commit succeeds, closed is set', async () => {
    const { stream, chunks } = sink(1, 'EPIPE');
    const { output } = writerOn(stream);
    await writeRecords(output, 3000, 3000);
    await output.commit();
    expect(output.closed).toBe(true);
    const before = chunks.length;
    expect(output.stdout.write('more\n')).toBe(false);
    expect(chunks).toHaveLength(before);
  });

  it('what a lost output loses is said only when the output was lost', async () => {
    const ok = writerOn(sink().stream);
    ok.output.ifLost('the charge was created: id abc');
    ok.output.stdout.write('charge\n');
    await ok.output.commit();
    const failed = writerOn(sink(0).stream);
    failed.output.ifLost('the charge was created: id abc');
    failed.output.stdout.write('charge\n');
    await failed.output.commit().catch(() => {});
    expect((await failed.output.abort()).lost).toEqual(['the charge was created: id abc']);
  });
});
