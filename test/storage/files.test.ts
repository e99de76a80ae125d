import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSystemError } from '../../src/errors.js';
import { appendPrivateLine } from '../../src/storage/append.js';
import { ensurePrivateDir, UnsafeDirectoryError } from '../../src/storage/dirs.js';
import { readLines, readPrivateFile, writeFileAtomic } from '../../src/storage/files.js';
import { holdLock, withFileLock } from '../../src/storage/locks.js';
import { SYSTEM } from '../../src/system.js';
import { nodeScript } from '../helpers/child.js';
import { tempConfigDir } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('ensurePrivateDir', () => {
  it('creates missing levels, the last one 0700 whatever the umask', () => {
    const base = tempConfigDir();
    const dir = join(base, 'a', 'b', 'pix');
    const old = process.umask(0);
    try {
      ensurePrivateDir(dir);
    } finally {
      process.umask(old);
    }
    expect(mode(dir)).toBe(0o700);
    ensurePrivateDir(dir); // again: nothing to do
    expect(mode(dir)).toBe(0o700);
  });

  it('refuses a group- or world-writable directory, naming the chmod', () => {
    const dir = tempConfigDir();
    chmodSync(dir, 0o777);
    expect(() => ensurePrivateDir(dir)).toThrow(UnsafeDirectoryError);
    try {
      ensurePrivateDir(dir);
    } catch (error) {
      expect((error as UnsafeDirectoryError).hint).toContain(`chmod 700 ${dir}`);
      expect((error as UnsafeDirectoryError).kind).toBe('usage');
    }
  });

  it('tightens a directory of ours that others can only read', () => {
    const dir = tempConfigDir();
    chmodSync(dir, 0o755);
    ensurePrivateDir(dir);
    expect(mode(dir)).toBe(0o700);
  });

  it('ends, with an error, under /proc/self (where recursive mkdir spins forever)', () => {
    expect(() => ensurePrivateDir('/proc/self/.config/pix')).toThrow();
  });

  it('says ENOTDIR when a file sits where a directory should be', () => {
    const base = tempConfigDir();
    writeFileSync(join(base, 'file'), 'x');
    expect(() => ensurePrivateDir(join(base, 'file', 'pix'))).toThrow(/not a directory/);
  });
});

describe('private files', () => {
  it('readPrivateFile refuses a symbolic link and reads a plain file', () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'target'), 'secret elsewhere');
    symlinkSync(join(dir, 'target'), join(dir, 'config.json'));
    expect(() => readPrivateFile(join(dir, 'config.json'))).toThrow(
      expect.objectContaining({ code: 'ELOOP' }),
    );
    writeFileSync(join(dir, 'plain'), 'hello');
    expect(readPrivateFile(join(dir, 'plain'))).toBe('hello');
    expect(readPrivateFile(join(dir, 'missing'))).toBeUndefined();
  });

  it('appendPrivateLine refuses a symbolic link, and writes 0600 lines that start fresh after a torn one', () => {
    const dir = tempConfigDir();
    const outside = join(dir, 'outside');
    writeFileSync(outside, '');
    symlinkSync(outside, join(dir, 'journal.jsonl'));
    expect(() => appendPrivateLine(join(dir, 'journal.jsonl'), '{}')).toThrow(
      expect.objectContaining({ code: 'ELOOP' }),
    );
    expect(readFileSync(outside, 'utf8')).toBe('');
    const path = join(dir, 'j2');
    writeFileSync(path, '{"torn', { mode: 0o600 });
    appendPrivateLine(path, '{"a":1}');
    appendPrivateLine(path, '{"b":2}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"torn\n{"a":1}\n{"b":2}\n');
    expect(mode(path)).toBe(0o600);
  });

  it('writeFileAtomic replaces a symbolic link instead of writing through it, 0600, no temporary left', () => {
    const dir = tempConfigDir();
    const outside = join(dir, 'outside');
    writeFileSync(outside, 'untouched');
    const path = join(dir, 'config.json');
    symlinkSync(outside, path);
    writeFileAtomic(path, '{"x":1}');
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
    expect(readPrivateFile(path)).toBe('{"x":1}');
    expect(mode(path)).toBe(0o600);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('a failed writeFileAtomic names the file (not its temporary one) and leaves no temporary file', () => {
    const dir = tempConfigDir();
    const path = join(dir, 'config.json');
    mkdirSync(path); // rename onto a directory fails, as a full or read-only disk fails a step
    let error: unknown;
    try {
      writeFileAtomic(path, '{}');
    } catch (caught) {
      error = caught;
    }
    expect(describeSystemError(error)?.message).toBe(`cannot write ${path}: is a directory`);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('withFileLock', () => {
  it('serialises read-modify-write across processes: 12 writers, 25 increments each, none lost', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'counter');
    writeFileSync(file, '0');
    const writer = nodeScript(`
      import { readPrivateFile, writeFileAtomic } from './src/storage/files.ts';
      import { withFileLock } from './src/storage/locks.ts';
      import { SYSTEM } from './src/system.ts';
      for (let i = 0; i < 25; i++) {
        await withFileLock(${JSON.stringify(file)}, 'counter', SYSTEM, () => {
          const n = Number(readPrivateFile(${JSON.stringify(file)}));
          writeFileAtomic(${JSON.stringify(file)}, String(n + 1));
        });
      }`);
    const runs = Array.from(
      { length: 12 },
      () =>
        new Promise<number | null>((resolve, reject) => {
          const child = spawn(process.execPath, [writer], {
            stdio: ['ignore', 'ignore', 'inherit'],
          });
          child.on('error', reject);
          child.on('close', resolve);
        }),
    );
    expect(await Promise.all(runs)).toEqual(Array(12).fill(0));
    expect(readFileSync(file, 'utf8')).toBe('300');
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 60_000);

  it('takes over a lock left by a dead process', async () => {
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'state');
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + 7, at: new Date().toISOString() }));
    expect(await withFileLock(file, 'state', SYSTEM, () => 'ran')).toBe('ran');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe('holdLock (a lock held for a whole run)', () => {
  const holder = (pid: number) => ({ pid, at: '2026-11-25T12:00:00.000Z', destination: 'stdout' });

  it('is held once: a second taker is told who holds it, and takes it once it is released', () => {
    const lock = join(tempDir(), 'acct.lock');
    const first = holdLock(lock, holder(process.pid), SYSTEM);
    expect(first.held).toBe(true);
    const second = holdLock(lock, holder(4242), SYSTEM);
    expect(second).toEqual({ held: false, holder: holder(process.pid) });
    if (first.held) first.release();
    expect(existsSync(lock)).toBe(false);
    const third = holdLock(lock, holder(4242), SYSTEM);
    expect(third.held).toBe(true);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual(holder(4242));
  });

  it("takes over a dead process's lock, and one naming this pid that this process does not hold", () => {
    const lock = join(tempDir(), 'acct.lock');
    writeFileSync(lock, JSON.stringify(holder(99)));
    expect(
      holdLock(lock, holder(100), {
        ...SYSTEM,
        processes: { ...SYSTEM.processes, alive: (pid) => pid !== 99 },
      }).held,
    ).toBe(true);
    // A container restarted with the same pid: the lock on its volume names us, but we never took it.
    const again = join(tempDir(), 'acct.lock');
    writeFileSync(again, JSON.stringify(holder(process.pid)));
    expect(holdLock(again, holder(process.pid), SYSTEM).held).toBe(true);
  });

  it('release removes only a lock that is still ours', () => {
    const lock = join(tempDir(), 'acct.lock');
    const mine = holdLock(lock, holder(process.pid), SYSTEM);
    writeFileSync(lock, JSON.stringify(holder(7))); // taken over meanwhile
    if (mine.held) mine.release();
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual(holder(7));
  });
});

describe('readLines', () => {
  it('hands each whole line with its offset, a piece at a time, and returns the torn tail', () => {
    const file = join(tempDir(), 'log');
    const long = 'x'.repeat(1_500_000); // longer than a piece
    writeFileSync(file, `a\n${long}\nbé\ncut`);
    const seen: Array<[string, number]> = [];
    const read = readLines(file, 0, (text, start) =>
      seen.push([text.length > 10 ? `x*${text.length}` : text, start]),
    );
    expect(seen).toEqual([
      ['a', 0],
      ['x*1500000', 2],
      ['bé', 1_500_003],
    ]);
    expect(read).toMatchObject({ tail: 'cut', end: 1_500_007 });
    expect(readLines(`${file}.nowhere`, 0, () => {})).toBeUndefined();
  });
});
