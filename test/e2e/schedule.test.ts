import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DYNAMIC_CODE, STATIC_CODE } from '../helpers/brcodes.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { caughtUp, linesOf, listen } from '../helpers/listen.js';
import { until } from '../helpers/wait.js';

/**
 * Scheduled payments on a file ledger with the built binary, the embedded sandbox's clock moved by `pix
 * sandbox clock` so days pass without waiting: `pix schedule run-due` as cron or a timer runs it (twice at
 * once, late, never), and what the statement and `pix listen` see of it.
 */
function machine() {
  const dir = tempConfigDir();
  const env = { PIX_CONFIG_DIR: dir, HOME: dir };
  const pix = (args: string[]) => runCli(args, { env, timeoutMs: 30_000 });
  return { dir, env, pix };
}

type Pix = ReturnType<typeof machine>['pix'];

async function ok(pix: Pix, args: string[]): Promise<string> {
  const result = await pix(args);
  expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

/**
 * Debits of `amount` reais in the sandbox's own statement for March–April 2026 (not the journal's word),
 * once every transfer made so far has settled (the sandbox's clock moved past its settling time).
 */
async function debits(pix: Pix, amount: number): Promise<unknown[]> {
  await ok(pix, ['sandbox', 'clock', '--advance', '1m']);
  const out = await ok(pix, [
    'statement',
    '--from',
    '2026-03-01',
    '--to',
    '2026-04-30',
    '--type',
    'outcome',
    '--all',
    '--json',
  ]);
  return (JSON.parse(out) as { results: Array<{ amount: number }> }).results.filter(
    (e) => e.amount === -amount,
  );
}

interface JournalRow {
  id: string;
  state: string;
  reason?: string;
  batchRow?: { row: string };
}

async function journalRows(pix: Pix, row: string): Promise<JournalRow[]> {
  const out = await ok(pix, ['journal', '--all', '--json']);
  return (JSON.parse(out) as { results: JournalRow[] }).results.filter((e) => e.batchRow?.row === row);
}

describe('pix schedule run-due (a file ledger)', () => {
  it('fired twice at once pays the occurrence once; the next run has nothing due', async () => {
    const { pix } = machine();
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-05T10:00:00-03:00']);
    const id = (
      await ok(pix, [
        'schedule',
        'create',
        '--key',
        'ana@example.com',
        '--amount',
        '17,31',
        '--every',
        '5bd',
        '--count',
        '2',
        '--yes',
      ])
    ).trim();
    expect(id).toMatch(/^s-[0-9a-f]{12}$/);
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-06T08:30:00-03:00']);
    const [a, b] = await Promise.all([
      pix(['schedule', 'run-due', '-o', 'ndjson']),
      pix(['schedule', 'run-due', '-o', 'ndjson']),
    ]);
    // One paid it; the other found it paid (already_paid) or held by the first while it was sending.
    const states = [a, b].map((r) => r.stdout.trim()).join('\n');
    expect(states).toMatch(/"state":"paid"/);
    expect(await debits(pix, 17.31)).toHaveLength(1);
    const rows = await journalRows(pix, `${id}.2026-03-06`);
    expect(rows.filter((row) => row.state === 'done')).toHaveLength(1);
    const again = await pix(['schedule', 'run-due']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('schedule: nothing due');
    expect(await debits(pix, 17.31)).toHaveLength(1);
  });

  it('with nothing due it reads the schedules alone: a damaged journal stops it only once something is due', async () => {
    const { dir, pix } = machine();
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-05T10:00:00-03:00']);
    await ok(pix, [
      'schedule',
      'create',
      '--key',
      'ana@example.com',
      '--amount',
      '8',
      '--at',
      '2026-03-06',
      '--yes',
    ]);
    await ok(pix, ['journal']); // the journal exists
    appendFileSync(join(dir, 'journal.jsonl'), 'not a journal line\n');
    const early = await pix(['schedule', 'run-due']);
    expect(early.code, early.stderr).toBe(0);
    expect(early.stderr).toContain('nothing due');
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-06T09:00:00-03:00']);
    const due = await pix(['schedule', 'run-due']);
    expect(due.code, due.stderr).toBe(8);
    expect(due.stderr).toMatch(/journal/);
    expect(await debits(pix, 8)).toHaveLength(0);
  });

  it('every runner stopped across the day: missed, no debit, one schedule.missed event, paid only by hand', async () => {
    const { dir, env, pix } = machine();
    const out = join(dir, 'events.ndjson');
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-05T10:00:00-03:00']);
    listen(dir, ['--exec', `cat >> '${out}'; echo >> '${out}'`], env);
    await until(() => caughtUp(dir), "the listener's first run");
    const id = (
      await ok(pix, [
        'schedule',
        'create',
        '--key',
        'ana@example.com',
        '--amount',
        '23,45',
        '--every',
        '10',
        '--count',
        '3',
        '--yes',
      ])
    ).trim();
    // 10 March is a Tuesday; nothing runs that day. On the 11th two timers fire late.
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-11T07:00:00-03:00']);
    const [first, second] = [await pix(['schedule', 'run-due']), await pix(['schedule', 'run-due'])];
    expect(first.code, first.stderr).toBe(8);
    expect(first.stderr).toContain(`missed: ${id} 2026-03-10`);
    expect(second.code, second.stderr).toBe(0);
    expect(await debits(pix, 23.45)).toHaveLength(0);
    const list = await ok(pix, ['schedule', 'list', '--json']);
    const [listed] = (
      JSON.parse(list) as { results: Array<{ attention: Array<{ state: string; date: string }> }> }
    ).results;
    expect(listed!.attention).toEqual([expect.objectContaining({ state: 'missed', date: '2026-03-10' })]);
    await until(() => linesOf(out).some((line) => line.includes('"schedule.missed"')), 'the missed event');
    // Paid by hand, as a new payment: once, and its event is schedule.paid.
    await ok(pix, ['schedule', 'pay', id, '2026-03-10', '--yes']);
    expect(await debits(pix, 23.45)).toHaveLength(1);
    await until(() => linesOf(out).some((line) => line.includes('"schedule.paid"')), 'the paid event');
    const types = linesOf(out).map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.filter((type) => type === 'schedule.missed')).toHaveLength(1);
    const again = await pix(['schedule', 'pay', id, '2026-03-10', '--yes', '-o', 'ndjson']);
    expect(again.stdout).toContain('"state":"already_paid"');
    expect(await debits(pix, 23.45)).toHaveLength(1);
  });

  it("a receiver whose key moved since the schedule was made is refused; another schedule's occurrence still pays", async () => {
    const { dir, env, pix } = machine();
    const out = join(dir, 'events.ndjson');
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-05T10:00:00-03:00']);
    listen(dir, ['--exec', `cat >> '${out}'; echo >> '${out}'`], env);
    await until(() => caughtUp(dir), "the listener's first run");
    const moved = (
      await ok(pix, [
        'schedule',
        'create',
        '--key',
        'carla@example.com',
        '--amount',
        '31',
        '--at',
        '2026-03-06',
        '--yes',
      ])
    ).trim();
    await ok(pix, [
      'schedule',
      'create',
      '--key',
      'bruno@example.com',
      '--amount',
      '32',
      '--at',
      '2026-03-06',
      '--yes',
    ]);
    await ok(pix, ['sandbox', 'move-key', 'carla@example.com']);
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-06T09:00:00-03:00']);
    const run = await pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(run.code, run.stderr).toBe(8);
    expect(run.stdout).toMatch(/"state":"receiver_changed"/);
    expect(await debits(pix, 31)).toHaveLength(0);
    expect(await debits(pix, 32)).toHaveLength(1);
    const rows = await journalRows(pix, `${moved}.2026-03-06`);
    expect(rows.map((row) => [row.state, row.reason])).toEqual([['failed', 'refused: receiver_changed']]);
    // Refused is settled: the next run does not try it again on its own.
    const next = await pix(['schedule', 'run-due']);
    expect(next.code, next.stderr).toBe(0);
    await until(() => linesOf(out).some((line) => line.includes('"schedule.failed"')), 'the failed event');
  });

  it('refuses bad input naming the flag, sending nothing', async () => {
    const { pix } = machine();
    for (const [args, message] of [
      [['--every', 'fortnight'], '--every: "fortnight" is not a rule pix knows'],
      [['--at', '2020-01-01'], '--at: 2020-01-01 is in the past'],
      [['--every', '10', '--at', 'tomorrow'], '--at: cannot be combined with --every'],
      [['--every', '10', '--until', '+30d', '--count', '2'], '--count: cannot be combined with --until'],
      [['--every', '10', '--time', '21:00'], '--time: an occurrence is due before 20:00'],
      [[], '--every: say when'],
    ] as const) {
      const result = await pix([
        'schedule',
        'create',
        '--key',
        'ana@example.com',
        '--amount',
        '5',
        '--yes',
        ...args,
      ]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(message);
    }
    const list = await pix(['schedule', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toEqual({ results: [] });
  });
});

describe('pix schedule create --code and --file (a file ledger)', () => {
  it('a batch file read and consulted at create, paid as shown whatever the file becomes; a row whose key moved refused, the other paid; a static code held to its merchant', {
    timeout: 120_000,
  }, async () => {
    const { dir, pix } = machine();
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-05T10:00:00-03:00']);
    const file = join(dir, 'rent.csv');
    writeFileSync(file, 'id,key,amount\nr1,ana@example.com,"12,34"\nr2,carla@example.com,"5,67"\n');
    // One of --key, --code, --file; a dynamic code is paid once, not --every (exit 2, nothing consulted).
    const both = await pix([
      'schedule',
      'create',
      '--key',
      'ana@example.com',
      '--file',
      file,
      '--at',
      '+1d',
      '--yes',
    ]);
    expect(both.code, both.stderr).toBe(2);
    expect(both.stderr).toMatch(/--file.*cannot be combined with --key/);
    const amount = await pix(['schedule', 'create', '--file', file, '--amount', '3', '--at', '+1d', '--yes']);
    expect(amount.code, amount.stderr).toBe(2);
    expect(amount.stderr).toMatch(/--amount/);
    const dynamic = await pix([
      'schedule',
      'create',
      '--code',
      DYNAMIC_CODE,
      '--every',
      '10',
      '--count',
      '2',
      '--yes',
    ]);
    expect(dynamic.code, dynamic.stderr).toBe(2);
    expect(dynamic.stderr).toMatch(/--code.*dynamic code.*not --every/);
    // A static code whose merchant name is not its key's owner: refused unless --expect-* says who it pays.
    const ofCode = [
      'schedule',
      'create',
      '--code',
      STATIC_CODE,
      '--amount',
      '7',
      '--every',
      '10',
      '--count',
      '2',
    ];
    const merchant = await pix([...ofCode, '--yes']);
    expect(merchant.code, merchant.stderr).toBe(8);
    expect(merchant.stderr).toMatch(/names "Loja da Esquina" but its key belongs to .*nothing was scheduled/);
    const owner = /belongs to (.+?): fill/.exec(merchant.stderr)![1]!;
    const code = (await ok(pix, [...ofCode, '--expect-name', owner, '--yes'])).trim();
    const rows = (
      await ok(pix, ['schedule', 'create', '--file', file, '--every', '10', '--count', '2', '--yes'])
    ).trim();
    expect(rows).toMatch(/^s-[0-9a-f]{12}$/);
    const shown = JSON.parse(await ok(pix, ['schedule', 'show', rows, '--json'])) as {
      file: string;
      digest: string;
      rows: Array<{ id: string; amount: string }>;
    };
    expect(shown.rows.map((row) => [row.id, row.amount])).toEqual([
      ['r1', '12.34'],
      ['r2', '5.67'],
    ]);
    expect(shown.digest).toMatch(/^[0-9a-f]{64}$/);
    // The file changed after it was confirmed: what is paid is what was shown.
    writeFileSync(file, 'id,key,amount\nr1,ana@example.com,"999,99"\nr3,bruno@example.com,"1"\n');
    await ok(pix, ['sandbox', 'clock', '--set', '2026-03-10T09:00:00-03:00']);
    const first = await pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(first.code, first.stderr).toBe(0);
    const paid = first.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; amount: number });
    // Schedule ids are random: both sides in one order, whichever schedule's id sorts first.
    expect(paid.map((row) => [row.id, row.state, row.amount]).sort()).toEqual(
      [
        [`${code}.2026-03-10`, 'paid', 7],
        [`${rows}.2026-03-10.r1`, 'paid', 12.34],
        [`${rows}.2026-03-10.r2`, 'paid', 5.67],
      ].sort(),
    );
    expect(await debits(pix, 999.99)).toHaveLength(0);
    // Fired again: each row was paid once.
    const again = await pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(await debits(pix, 12.34)).toHaveLength(1);
    // A row's key moved to another owner before the next occurrence: that row refused, the others paid.
    await ok(pix, ['sandbox', 'move-key', 'carla@example.com']);
    await ok(pix, ['sandbox', 'clock', '--set', '2026-04-10T09:00:00-03:00']);
    const second = await pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(second.code, second.stderr).toBe(8);
    const states = Object.fromEntries(
      second.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string; state: string })
        .map((row) => [row.id, row.state]),
    );
    expect(states).toEqual({
      [`${code}.2026-04-10`]: 'paid',
      [`${rows}.2026-04-10.r1`]: 'paid',
      [`${rows}.2026-04-10.r2`]: 'receiver_changed',
    });
    expect(await debits(pix, 12.34)).toHaveLength(2);
    expect(await debits(pix, 5.67)).toHaveLength(1);
    expect(await journalRows(pix, `${rows}.2026-04-10.r2`)).toMatchObject([
      { state: 'failed', reason: 'refused: receiver_changed' },
    ]);
  });
});
