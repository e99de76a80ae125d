/**
 * Concurrency and crash suite, with the built binary on the embedded sandbox:
 * - 16 CLI processes at once, same PIX_CONFIG_DIR, each creating a charge: all 16 exist afterwards and
 *   the state file parses;
 * - CLI processes killed with SIGKILL while they write the state (`pix sandbox seed`, `pix charge`) at
 *   several delays: the state file still parses, nothing committed before is lost, and the next command
 *   works (the dead process's lock is taken over);
 * - many processes appending to the journal (`pix pay key -y`), one of them killed: every complete line
 *   of the journal parses and every payment that reported success is there, done.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../src/journal/entries.js';
import { createJournalParser, parseJournal, TORN_MARK } from '../../src/journal/parser.js';
import { openJournal } from '../../src/journal/store.js';
import type { SandboxState } from '../../src/sandbox/model.js';
import { SEEDED_KEYS } from '../../src/sandbox/seed.js';
import { readSandboxState } from '../../src/sandbox/store.js';
import { SYSTEM } from '../../src/system.js';
import { deferEach } from '../helpers/cleanup.js';
import { BIN, runCli, tempConfigDir } from '../helpers/cli.js';
import { PAYEE } from '../helpers/reliability.js';
import { until } from '../helpers/wait.js';

const STATE = 'sandbox-state.json';
const CHARGE = ['charge', 'immediate', '--key', SEEDED_KEYS.email.key, '--no-qr', '--json', '--amount'];

function start(
  args: string[],
  dir: string,
): {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>;
} {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PIX_CONFIG_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

function readState(dir: string): SandboxState {
  const state = readSandboxState(join(dir, STATE));
  if (!state) throw new Error(`no sandbox state in ${dir}`);
  return state;
}

const { defer, dir: tempDir } = deferEach();

describe('concurrency and crash suite (built binary, embedded sandbox)', () => {
  const dir = tempConfigDir();
  const created: string[] = [];

  it('16 processes creating charges at once lose nothing', async () => {
    const runs = Array.from({ length: 16 }, (_, index) => start([...CHARGE, `${10 + index},25`], dir));
    const results = await Promise.all(runs.map((one) => one.done));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    for (const result of results) created.push((JSON.parse(result.stdout) as { id: string }).id);
    expect(new Set(created).size).toBe(16);
    const state = readState(dir);
    for (const id of created) expect(state.charges, id).toHaveProperty(id);
    // And through the API: each one can be settled by id.
    const paid = await runCli(['sandbox', 'pay', created[0]!], { env: { PIX_CONFIG_DIR: dir } });
    expect(paid.code, paid.stderr).toBe(0);
  });

  it('SIGKILL in the middle of state writes leaves a state file that parses, with nothing lost', async () => {
    const kills: string[] = [];
    const killAndCheck = async (run: ReturnType<typeof start>, what: string) => {
      run.child.kill('SIGKILL');
      const result = await run.done;
      if (result.signal === 'SIGKILL') kills.push(what);
      const state = readState(dir);
      for (const id of created) expect(state.charges, `after a kill ${what}`).toHaveProperty(id);
    };
    const commands = [
      ['sandbox', 'seed', '--transactions', '200000'],
      [...CHARGE, '99'],
    ];
    // 1. Killed the moment the state lock appears: the process is inside its read-modify-write.
    const lock = join(dir, `${STATE}.lock`);
    for (let index = 0; index < 8; index++) {
      const args = commands[index % 2]!;
      const run = start(args, dir);
      const deadline = performance.now() + 5_000;
      while (!existsSync(lock) && run.child.exitCode === null && performance.now() < deadline) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setTimeout(resolve, index % 3)); // 0, 1 or 2 ms into the write
      await killAndCheck(run, `${args[0]} holding the lock`);
    }
    // 2. Killed at points spread over a whole run of the same command.
    for (const args of commands) {
      const started = performance.now();
      await runCli(args, { env: { PIX_CONFIG_DIR: dir } });
      const lifetime = performance.now() - started;
      for (const fraction of [0.5, 0.7, 0.85, 0.95]) {
        const run = start(args, dir);
        await new Promise((resolve) => setTimeout(resolve, lifetime * fraction));
        await killAndCheck(run, `${args[0]} at ${Math.round(lifetime * fraction)} ms`);
      }
    }
    if (process.env.PIX_SHOW_COUNTS) process.stdout.write(`kills: ${kills.length} (${kills.join(', ')})\n`);
    expect(kills.filter((what) => what.endsWith('holding the lock')).length).toBeGreaterThanOrEqual(2);
    // The next commands work: a lock left by a killed process is taken over.
    const after = await runCli([...CHARGE, '12'], { env: { PIX_CONFIG_DIR: dir } });
    expect(after.code, after.stderr).toBe(0);
    const statement = await runCli(['statement', '--json'], { env: { PIX_CONFIG_DIR: dir } });
    expect(statement.code, statement.stderr).toBe(0);
    expect(readState(dir).charges).toHaveProperty((JSON.parse(after.stdout) as { id: string }).id);
  });

  it('12 processes paying at once, one killed: every complete journal line parses, every success is recorded', async () => {
    const payDir = tempConfigDir();
    const runs = Array.from({ length: 12 }, (_, index) =>
      start(['pay', 'key', PAYEE, '--amount', `${20 + index}`, '-y', '--json'], payDir),
    );
    // Killed once the payments are under way: the journal has their first lines.
    await until(() => existsSync(join(payDir, JOURNAL_FILE)), 'the first journal line');
    runs[5]!.child.kill('SIGKILL');
    const results = await Promise.all(runs.map((one) => one.done));
    const succeeded = results.filter((result) => result.code === 0);
    expect(succeeded.length).toBeGreaterThanOrEqual(11);
    for (const result of results) expect([0, null]).toContain(result.code);

    const text = readFileSync(join(payDir, JOURNAL_FILE), 'utf8');
    // Every line is whole, or a write the kill cut short and the next writer marked torn: never damage.
    const parser = createJournalParser();
    parser.feed(text);
    expect(parser.damage()).toEqual([]);
    const payments = parseJournal(text);
    const done = payments.filter((payment) => payment.state === 'done');
    expect(done.length).toBeGreaterThanOrEqual(succeeded.length);
    for (const result of succeeded) {
      const transfer = (JSON.parse(result.stdout) as { transfer: { id?: string } }).transfer;
      expect(done.map((payment) => payment.transferId)).toContain(transfer.id);
    }
    // The state file of the embedded sandbox they shared parses too.
    expect(existsSync(join(payDir, STATE))).toBe(true);
    expect(() => readState(payDir)).not.toThrow();
    // One chain through every line of all twelve, its end in the checkpoint (one line behind at most:
    // the killed one may have died between its line and its checkpoint), and pix journal verify agrees.
    const { damage, chain } = openJournal(payDir, { ...SYSTEM, clock: { now: () => new Date() } }).verify();
    expect(damage).toEqual([]);
    expect(chain.start).toBe(1);
    expect(chain.lag).toBeLessThanOrEqual(1);
    const lines = text.split('\n').filter((line) => line !== '' && line !== TORN_MARK);
    expect(lines.every((line) => typeof (JSON.parse(line) as { prev?: unknown }).prev === 'string')).toBe(
      true,
    );
    const verified = await runCli(['journal', 'verify'], { env: { PIX_CONFIG_DIR: payDir } });
    expect(verified.code, verified.stderr).toBe(0);
  });

  it('writers SIGKILLed at random points of their appends, some between a line and its checkpoint: never damage', async () => {
    const journalDir = tempDir();
    const store = fileURLToPath(new URL('../../src/journal/store.ts', import.meta.url));
    const system = fileURLToPath(new URL('../../src/system.ts', import.meta.url));
    // A writer appends pairs of lines until it is killed. With DIE_AT=n it kills itself as it opens the
    // checkpoint for the n-th time: its line is written, its checkpoint is not (the window a crash can hit).
    const script = `
      import fs from 'node:fs';
      import { syncBuiltinESMExports } from 'node:module';
      const dieAt = Number(process.env.DIE_AT ?? 0);
      const open = fs.openSync;
      let opened = 0;
      fs.openSync = (path, ...rest) => {
        if (dieAt > 0 && String(path).endsWith('.checkpoint') && ++opened === dieAt) process.kill(process.pid, 'SIGKILL');
        return open(path, ...rest);
      };
      syncBuiltinESMExports();
      const { openJournal } = await import(${JSON.stringify(store)});
      const { SYSTEM } = await import(${JSON.stringify(system)});
      const journal = openJournal(process.argv[1], { ...SYSTEM, clock: { now: () => new Date() } });
      for (let n = 0; ; n++) {
        const entry = journal.begin({ kind: 'payment', account: 'a', profile: 'p', host: 'h', amountCentavos: n + 1, payment: { method: 'key', key: 'k' + process.pid + '-' + n } });
        journal.finish(entry.id, { state: 'failed', reason: 'test' });
      }`;
    // tsx's loader in the writer's own process (its CLI would run the script in a child a kill misses).
    const tsx = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
    const path = join(journalDir, JOURNAL_FILE);
    const size = () => (existsSync(path) ? statSync(path).size : 0);
    const writer = (dieAt: number) => {
      const child = spawn(
        process.execPath,
        ['--import', tsx, '--input-type=module', '--eval', script, journalDir],
        {
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DIE_AT: String(dieAt) },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const done = new Promise<{ signal: string | null; stderr: string }>((resolve) =>
        child.on('close', (_code, signal) => resolve({ signal, stderr })),
      );
      return { child, done };
    };
    /** Waits (with a deadline) until the journal has grown past `bytes`. */
    const grown = async (bytes: number) => {
      const deadline = performance.now() + 30_000;
      while (size() <= bytes && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(size(), 'the writers append').toBeGreaterThan(bytes);
    };
    const check = (when: string) => {
      const { damage, chain } = openJournal(journalDir, {
        ...SYSTEM,
        clock: { now: () => new Date() },
      }).verify();
      expect(damage, when).toEqual([]);
      expect(chain.lag, when).toBeLessThanOrEqual(1);
    };
    // Three writers killed from outside at random moments, one that kills itself in the window.
    const slots = [writer(0), writer(0), writer(0), writer(3 + Math.floor(Math.random() * 6))];
    let selfKills = 0;
    defer(() => {
      for (const slot of slots) slot.child.kill('SIGKILL');
    });
    for (let round = 0; round < 16; round++) {
      await grown(size());
      const slot = round % 3;
      const victim = slots[slot]!;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
      victim.child.kill('SIGKILL');
      const ended = await victim.done;
      expect(ended.signal, ended.stderr).toBe('SIGKILL');
      check(`after kill ${round + 1}`);
      slots[slot] = writer(0);
      // The self-killer: once it is gone, the journal is judged with its last line past the checkpoint.
      const self = slots[3]!;
      if (self.child.exitCode !== null || self.child.signalCode !== null) {
        const gone = await self.done;
        expect(gone.signal, gone.stderr).toBe('SIGKILL');
        selfKills++;
        check(`after self-kill ${selfKills}`);
        slots[3] = writer(2 + Math.floor(Math.random() * 6));
      }
    }
    for (const slot of slots) slot.child.kill('SIGKILL');
    await Promise.all(slots.map((slot) => slot.done));
    check('at the end');
    expect(selfKills, 'the window between a line and its checkpoint was hit').toBeGreaterThan(0);
    const journal = openJournal(journalDir, { ...SYSTEM, clock: { now: () => new Date() } });
    // Every round waited for the journal to grow: at least a line a round.
    expect(journal.read().length).toBeGreaterThanOrEqual(8);
    const verified = await runCli(['journal', 'verify'], { env: { PIX_CONFIG_DIR: journalDir } });
    expect(verified.code, verified.stderr).toBe(0);
    if (process.env.PIX_SHOW_COUNTS)
      process.stdout.write(
        `journal kills: 16 from outside, ${selfKills} in the checkpoint window, ${journal.read().length} entries\n`,
      );
  }, 180_000);
});
