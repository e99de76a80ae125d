/**
 * A full disk mid-batch ended with exit 1 and "input/output error … the device
 * failed" (it was ENOSPC, which shows as a short write), and nothing on stdout although 92 rows were
 * paid; `pay key` said "no space left" without naming the file.
 *
 * The disk is filled by injection, not for real: node:fs is wrapped so that the journal (the file pix
 * appends to with O_APPEND) takes `journalLines` more lines; the next write is cut short half-way, as
 * write(2) does when the device fills during it, and every write after that fails with ENOSPC.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeSystemError } from '../../src/errors.js';
import { sampleLines, sampleRows } from '../../src/sandbox/batchfile.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { appendPrivateLine } from '../../src/storage/append.js';
import { tempConfigDir } from '../helpers/cli.js';
import { pix as runPix } from '../helpers/pix.js';

const disk = vi.hoisted(() => ({ journalLines: Number.POSITIVE_INFINITY, fds: new Set<number>() }));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const openSync = ((path: Parameters<typeof real.openSync>[0], flags?: number | string, mode?: number) => {
    const fd = real.openSync(path, flags ?? 'r', mode);
    if (
      String(path).endsWith('journal.jsonl') &&
      typeof flags === 'number' &&
      flags & real.constants.O_APPEND
    ) {
      disk.fds.add(fd);
    }
    return fd;
  }) as typeof real.openSync;
  const closeSync = (fd: number) => {
    disk.fds.delete(fd);
    real.closeSync(fd);
  };
  const writeSync = ((fd: number, buffer: Buffer, ...rest: unknown[]) => {
    const write = real.writeSync as (...args: unknown[]) => number;
    if (!disk.fds.has(fd) || disk.journalLines > 0) {
      if (disk.fds.has(fd)) disk.journalLines--;
      return write(fd, buffer, ...rest);
    }
    if (disk.journalLines === 0) {
      disk.journalLines = -1; // the device fills during this line: half of it lands
      return write(fd, buffer, 0, Math.floor(buffer.length / 2));
    }
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
      errno: -28,
      code: 'ENOSPC',
      syscall: 'write',
    });
  }) as typeof real.writeSync;
  const fs = { ...real, openSync, closeSync, writeSync };
  return { ...fs, default: fs };
});

let server: SandboxServer | undefined;
afterEach(async () => {
  disk.journalLines = Number.POSITIVE_INFINITY;
  await server?.close();
  server = undefined;
});

async function setup(rows: number) {
  const dir = tempConfigDir();
  server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox-state.json') });
  const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'disk-token' };
  const file = join(dir, 'payouts.csv');
  writeFileSync(file, sampleLines(sampleRows({ rows, seed: 5 }), 'csv').join(''));
  const pix = (args: string[]) => runPix(args, { env });
  const transfers = () => server!.requests.filter((r) => r.endpoint === 'transfer').length;
  return { dir, file, pix, transfers, journal: join(dir, 'journal.jsonl') };
}

describe('a full disk', () => {
  it('appendPrivateLine: a short write is ENOSPC naming the file; so is a write that fails outright', () => {
    const path = join(tempConfigDir(), 'journal.jsonl');
    appendPrivateLine(path, '{"a":1}');
    disk.journalLines = 0;
    let short: unknown;
    try {
      appendPrivateLine(path, '{"b":2}');
    } catch (error) {
      short = error;
    }
    expect(short).toMatchObject({ code: 'ENOSPC', path });
    expect(describeSystemError(short)?.message).toBe(`cannot write ${path}: no space left on device`);
    let failed: unknown;
    try {
      appendPrivateLine(path, '{"c":3}');
    } catch (error) {
      failed = error;
    }
    expect(describeSystemError(failed)?.message).toBe(`cannot write ${path}: no space left on device`);
    // What landed: the whole first line and half of the second, which the next line starts after.
    disk.journalLines = Number.POSITIVE_INFINITY;
    appendPrivateLine(path, '{"d":4}');
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"b"\n{"d":4}\n');
  });

  it('mid-batch: the rows already done are reported on stdout, the fault is named with the file; the rerun finishes', async () => {
    const { file, pix, transfers, journal } = await setup(30);
    disk.journalLines = 20; // a sending and a done line for each of 10 rows, then the disk is full
    const full = await pix(['pay', 'batch', file, '--yes', '--concurrency', '1', '-o', 'ndjson']);
    expect(full.code, full.stderr).toBe(1);
    expect(full.stderr).toContain(`cannot write ${journal}: no space left on device`);
    expect(full.stderr).not.toMatch(/input\/output error|device failed|internal error/);
    expect(transfers()).toBe(10);
    const records = full.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; error: string | null });
    expect(records).toHaveLength(30);
    expect(records.filter((r) => r.state === 'paid')).toHaveLength(10);
    expect(records.filter((r) => r.state === 'not_sent')).toHaveLength(20);
    expect(records[10]!.error).toContain('no space left on device');
    expect(full.stderr).toMatch(/batch: 10 paid, 20 not sent/);

    disk.journalLines = Number.POSITIVE_INFINITY; // space freed
    const rerun = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/batch: 20 paid, 10 already paid/);
    expect(transfers()).toBe(30);
  });

  it('when the outcome line cannot be written, the warning names the file and the row stays reported paid', async () => {
    const { file, pix, transfers, journal } = await setup(4);
    disk.journalLines = 3; // row 1 whole, row 2's sending line; its done line is cut short
    const full = await pix(['pay', 'batch', file, '--yes', '--concurrency', '1', '-o', 'ndjson']);
    expect(full.code, full.stderr).toBe(1);
    expect(transfers()).toBe(2);
    expect(full.stderr).toContain(
      `warning: the journal could not record the outcome (cannot write ${journal}: no space left on device)`,
    );
    const states = full.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { state: string }).state);
    expect(states).toEqual(['paid', 'paid', 'not_sent', 'not_sent']);
  });

  it('pay key: exit 1 naming the journal file, nothing sent', async () => {
    const { pix, transfers, journal } = await setup(1);
    disk.journalLines = 0;
    const result = await pix(['pay', 'key', 'ana@example.com', '--amount', '10', '--yes']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`error: cannot write ${journal}: no space left on device`);
    expect(transfers()).toBe(0);
  });
});
