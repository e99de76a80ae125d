import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_STANDING_PAYMENTS } from '../../../src/commands/schedule/make.js';
import { openPostgresSchedules } from '../../../src/journal/postgres/schedules.js';
import { dictOwner } from '../../../src/sandbox/people.js';
import { readSandboxState } from '../../../src/sandbox/store.js';
import { approvalsPerFile, type Person, policyDocument, type World } from '../../helpers/approvals.js';
import { STATIC_CODE } from '../../helpers/brcodes.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { clusterPerFile } from '../../helpers/postgres.js';

/**
 * Schedules approved ahead (docs/schedules.md "Under a policy"): a recurring schedule made as a standing
 * plan, approved once with `pix plan approve`, activated, and each occurrence judged again when it is paid
 * — the policy in force, its caps at that moment, the approval's signatures and quorum, the receiver as
 * approved. In-process pix against a real `pix sandbox serve` whose clock the test moves (and pix's own
 * clock with it: the journal's days are the sandbox's), keys made by ssh-keygen, the file ledger and a
 * real PostgreSQL for the shared one.
 */
const { KEYS, world: approvalsWorld } = approvalsPerFile();
const { suite, cluster } = clusterPerFile();

/** Plans only, R$ 250 a day, 2 of finance a plan. */
const strict = (keys: World['keys']) =>
  policyDocument(keys, { 'require-plan': true, caps: { 'per-day': '250' } });

interface Clocked {
  w: World;
  /** pix at the world's current instant (the sandbox's clock and pix's own, moved together). */
  pix(args: string[], env?: Record<string, string>): ReturnType<World['pix']>;
  ok(args: string[], env?: Record<string, string>): Promise<string>;
  /** Moves both clocks to `iso`. */
  at(iso: string): Promise<void>;
}

async function boundWorld(enforce = true): Promise<Clocked> {
  const w = await approvalsWorld(strict);
  const state = join(w.dir, 'sandbox-state.json');
  let now = new Date('2026-03-05T10:00:00-03:00');
  const pix: Clocked['pix'] = (args, env) => w.pix(args, { at: () => now, ...(env ? { env } : {}) });
  const ok: Clocked['ok'] = async (args, env) => {
    const result = await pix(args, env);
    expect(result.code, `pix ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };
  const at = async (iso: string) => {
    now = new Date(iso);
    // The sandbox's offset is from this machine's real clock: set with it.
    const set = await w.pix(['sandbox', 'clock', '--set', iso, '--state', state]);
    expect(set.code, set.stderr).toBe(0);
  };
  await at(now.toISOString());
  if (enforce) await ok(['policy', 'enforce', w.policyFile]);
  return { w, pix, ok, at };
}

/** `pix schedule create … --plan FILE --signing-key <maker>`, approved by `approvers`, not activated. */
async function approvedPlan(
  c: Clocked,
  name: string,
  args: string[],
  approvers: Person[] = ['ana', 'bruno'],
): Promise<{ id: string; plan: string }> {
  const plan = join(c.w.repo, `${name}.plan.json`);
  const id = (
    await c.ok(['schedule', 'create', ...args, '--plan', plan, '--signing-key', KEYS.carla.privatePath!])
  ).trim();
  expect(id).toMatch(/^s-[0-9a-f]{12}$/);
  for (const person of approvers) await c.ok(['plan', 'approve', plan, '--key', KEYS[person].privatePath!]);
  return { id, plan };
}

/** The same, activated. */
async function standing(...given: Parameters<typeof approvedPlan>): Promise<{ id: string; plan: string }> {
  const { id, plan } = await approvedPlan(...given);
  expect((await given[0].ok(['schedule', 'activate', plan, '--yes'])).trim()).toBe(id);
  return { id, plan };
}

/** A plain `schedule create … --yes` where the account pays only approved plans: exit 8, nothing scheduled. */
async function refusedWithoutPlan(c: Clocked, args: string[]): Promise<string> {
  const plain = await c.pix(['schedule', 'create', ...args, '--yes']);
  expect(plain.code, plain.stderr).toBe(8);
  expect(plain.stderr).toMatch(/this account pays only approved plans .*nothing was scheduled/);
  return plain.stderr;
}

/** The sandbox's transfers of `amount` centavos. */
function transfersOf(w: World, amount: number): number {
  const state = readSandboxState(join(w.dir, 'sandbox-state.json'))!;
  return Object.values(state.transfers).filter((transfer) => transfer.amount === amount).length;
}

interface Row {
  id: string;
  state: string;
  error?: string;
}
const rowsOf = (stdout: string): Row[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Row);

describe('a standing approval under the policy enforced on the account', () => {
  it('occurrences within it pay; one over the day cap is held and named; a key moved is refused and the next pays; one over its approved amount is held', {
    timeout: 120_000,
  }, async () => {
    const c = await boundWorld();
    const { w } = c;
    // Plans only: a schedule without one is refused at once, naming --plan.
    const plain = await refusedWithoutPlan(c, [
      '--key',
      'carla@example.com',
      '--amount',
      '10',
      '--at',
      '2026-03-06',
    ]);
    expect(plain).toMatch(/hint: make it a standing plan with --plan FILE/);
    // A standing plan must be bounded.
    const endless = await c.pix([
      'schedule',
      'create',
      '--key',
      'ana@example.com',
      '--amount',
      '100',
      '--every',
      'fri',
      '--plan',
      join(w.repo, 'x.plan.json'),
      '--signing-key',
      KEYS.carla.privatePath!,
    ]);
    expect(endless.code).toBe(2);
    expect(endless.stderr).toMatch(/--plan: a standing plan approves a number of occurrences or an end date/);

    // Rent to ana: R$ 100 every Friday, five times; made by carla, not active until approved.
    const plan = join(w.repo, 'rent.plan.json');
    const id = (
      await c.ok([
        'schedule',
        'create',
        '--key',
        'ana@example.com',
        '--amount',
        '100',
        '--every',
        'fri',
        '--count',
        '5',
        '--plan',
        plan,
        '--signing-key',
        KEYS.carla.privatePath!,
      ])
    ).trim();
    const written = w.readPlan(plan);
    expect(written.rows.map((row) => row.id)).toEqual(
      ['2026-03-06', '2026-03-13', '2026-03-20', '2026-03-27', '2026-04-03'].map((d) => `${id}.${d}`),
    );
    expect(written.standing).toMatchObject({ schedule: id, time: '08:00' });
    // Not approved yet: not activated, nothing scheduled; the plan cannot be executed as a plan.
    await c.ok(['plan', 'approve', plan, '--key', KEYS.ana.privatePath!]);
    const early = await c.pix(['schedule', 'activate', plan, '--yes']);
    expect(early.code).toBe(8);
    expect(early.stderr).toMatch(
      /cannot be activated: rule "every plan" \(2 of finance\) needs 1 more of finance/,
    );
    expect(JSON.parse(await c.ok(['schedule', 'list', '--json']))).toEqual({ results: [] });
    await c.ok(['plan', 'approve', plan, '--key', KEYS.bruno.privatePath!]);
    const executed = await c.pix(['plan', 'execute', plan, '--yes']);
    expect(executed.code).toBe(2);
    expect(executed.stderr).toMatch(
      /a standing plan of schedule s-\w+: its occurrences are paid on their days/,
    );
    expect((await c.ok(['schedule', 'activate', plan, '--yes'])).trim()).toBe(id);
    // A one-off R$ 200 to bruno on the 13th, under its own standing plan.
    await standing(c, 'bonus', ['--key', 'bruno@example.com', '--amount', '200', '--at', '2026-03-13']);

    // 6 March: the first Friday pays, under the plan (its entry names it).
    await c.at('2026-03-06T09:00:00-03:00');
    const first = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(first.code, first.stderr).toBe(0);
    expect(rowsOf(first.stdout).map((row) => row.state)).toEqual(['paid']);
    expect(transfersOf(w, 10000)).toBe(1);
    const journal = JSON.parse(await c.ok(['journal', '--all', '--json'])) as {
      results: Array<{
        batchRow?: { row: string };
        plan?: { id: string; approvers: Array<{ name: string }> };
      }>;
    };
    const paid = journal.results.find((entry) => entry.batchRow?.row === `${id}.2026-03-06`);
    expect(paid?.plan).toMatchObject({ id: written.id });
    expect(paid?.plan?.approvers.map((a) => a.name).sort()).toEqual(['ana', 'bruno']);

    // 13 March: R$ 100 + R$ 200 is over the R$ 250 a day: one is held, named; the other pays.
    await c.at('2026-03-13T09:00:00-03:00');
    const capped = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(capped.code).toBe(8);
    const day = rowsOf(capped.stdout);
    expect(day.map((row) => row.state).sort()).toEqual(['held', 'paid']);
    expect(day.find((row) => row.state === 'held')!.error).toMatch(
      /today's payments would reach R\$ 300,00 .*over the per-day cap of R\$ 250,00 .*no approval lifts a cap\): not sent at 2026-03-13 09:00 Brasília/,
    );
    expect(transfersOf(w, 10000) + transfersOf(w, 20000)).toBe(2);
    const listed = JSON.parse(await c.ok(['schedule', 'list', '--json'])) as {
      results: Array<{ attention: Array<{ state: string; reason?: string }> }>;
    };
    const held = listed.results.flatMap((schedule) => schedule.attention);
    expect(held).toEqual([
      expect.objectContaining({ state: 'held', reason: expect.stringMatching(/^held: today's payments/) }),
    ]);
    // Held is settled: the next run does not try it again on its own.
    expect((await c.pix(['schedule', 'run-due'])).stderr).toMatch(/nothing due/);

    // Between the approval and the 20th, ana's key moves to another owner: that occurrence is refused.
    await c.ok(['sandbox', 'move-key', 'ana@example.com', '--state', join(w.dir, 'sandbox-state.json')]);
    await c.at('2026-03-20T09:00:00-03:00');
    const moved = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(moved.code).toBe(8);
    expect(rowsOf(moved.stdout)).toEqual([
      expect.objectContaining({
        id: `${id}.2026-03-20`,
        state: 'receiver_changed',
        error: expect.stringMatching(/the schedule was confirmed for .*nothing was sent for this occurrence/),
      }),
    ]);
    // The key back with its approved owner: the next occurrence pays.
    await c.ok([
      'sandbox',
      'move-key',
      'ana@example.com',
      '--back',
      '--state',
      join(w.dir, 'sandbox-state.json'),
    ]);
    await c.at('2026-03-27T09:00:00-03:00');
    const back = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(back.code, back.stderr).toBe(0);
    expect(rowsOf(back.stdout).map((row) => [row.id, row.state])).toEqual([[`${id}.2026-03-27`, 'paid']]);

    // Someone with the config directory raises the schedule's amount: over what was approved, held.
    const file = join(w.dir, 'schedules.jsonl');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('"amountCentavos":10000', '"amountCentavos":15000'),
    );
    // 3 April 2026 is Good Friday: that occurrence is paid the next business day, Monday the 6th.
    await c.at('2026-04-06T09:00:00-03:00');
    const raised = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(raised.code, raised.stdout + raised.stderr).toBe(8);
    expect(rowsOf(raised.stdout)).toEqual([
      expect.objectContaining({
        state: 'held',
        error: expect.stringMatching(
          /R\$ 150,00 is over the R\$ 100,00 its standing plan sha256:\w{12} approved for 2026-04-03/,
        ),
      }),
    ]);
    // In all: the 6th, one of the 13th, the 27th; never the moved key's, never the raised amount.
    expect(transfersOf(w, 10000) + transfersOf(w, 20000)).toBe(3);
    expect(transfersOf(w, 15000)).toBe(0);
  });
});

describe('a batch file and a BR Code as standing plans', () => {
  it("a plan listing more payments than MAX_STANDING_PAYMENTS (its dates × the file's rows): exit 2 naming --count, no plan; the same file over fewer dates is made", async () => {
    const c = await boundWorld();
    const { w } = c;
    const rows = Math.floor(MAX_STANDING_PAYMENTS / 400) + 1;
    const file = join(w.repo, 'payroll.csv');
    const lines = Array.from({ length: rows }, (_, i) => `p${i},ana@example.com,${(1 + i / 100).toFixed(2)}`);
    writeFileSync(file, `id,key,amount\n${lines.join('\n')}\n`);
    const plan = join(w.repo, 'payroll.plan.json');
    const create = (count: string) =>
      c.pix(
        ['schedule', 'create', '--file', file, '--every', 'bday', '--count', count, '--plan', plan].concat([
          '--signing-key',
          KEYS.carla.privatePath!,
        ]),
      );
    const refused = await create('400');
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      `error: --count: a standing plan lists every payment it allows: 400 dates of ${rows} rows make ${400 * rows}, at most ${MAX_STANDING_PAYMENTS}\n`,
    );
    expect(existsSync(plan)).toBe(false);
    const made = await create('2');
    expect(made.code, made.stderr).toBe(0);
    expect(w.readPlan(plan).rows).toHaveLength(2 * rows);
  });

  it('under require-plan a file or a code is scheduled only as a plan; its rows approved ahead pay on the day; a row raised in the record is held, the others pay', async () => {
    const c = await boundWorld();
    const { w } = c;
    const file = join(w.repo, 'suppliers.csv');
    writeFileSync(file, 'id,key,amount\nr1,ana@example.com,60\nr2,bruno@example.com,40\n');
    await refusedWithoutPlan(c, ['--file', file, '--every', 'fri', '--count', '2']);
    await refusedWithoutPlan(c, ['--code', STATIC_CODE, '--amount', '5', '--at', '2026-03-06']);
    const { id, plan } = await standing(c, 'suppliers', ['--file', file, '--every', 'fri', '--count', '2']);
    // Every occurrence's every row is a row of the plan the approvers signed.
    expect(w.readPlan(plan).rows.map((row) => [row.id, row.amountCentavos])).toEqual([
      [`${id}.2026-03-06.r1`, 6000],
      [`${id}.2026-03-06.r2`, 4000],
      [`${id}.2026-03-13.r1`, 6000],
      [`${id}.2026-03-13.r2`, 4000],
    ]);
    await c.at('2026-03-06T09:00:00-03:00');
    const first = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(first.code, first.stderr).toBe(0);
    expect(rowsOf(first.stdout).map((row) => [row.id, row.state])).toEqual([
      [`${id}.2026-03-06.r1`, 'paid'],
      [`${id}.2026-03-06.r2`, 'paid'],
    ]);
    // Someone with the config directory raises one row: over what was approved for it, held; the other pays.
    const kept = join(w.dir, 'schedules.jsonl');
    writeFileSync(kept, readFileSync(kept, 'utf8').replace('"amountCentavos":6000', '"amountCentavos":9000'));
    await c.at('2026-03-13T09:00:00-03:00');
    const second = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(second.code, second.stderr).toBe(8);
    expect(rowsOf(second.stdout)).toEqual([
      expect.objectContaining({
        id: `${id}.2026-03-13.r1`,
        state: 'held',
        error: expect.stringMatching(
          /R\$ 90,00 is over the R\$ 60,00 its standing plan sha256:\w{12} approved for 2026-03-13/,
        ),
      }),
      expect.objectContaining({ id: `${id}.2026-03-13.r2`, state: 'paid' }),
    ]);
    expect(transfersOf(w, 6000)).toBe(1);
    expect(transfersOf(w, 4000)).toBe(2);
    expect(transfersOf(w, 9000)).toBe(0);
  });
});

describe('a schedule made before the account paid only approved plans', () => {
  it('is held on its day, named, once the policy enforced on the account says require-plan; nothing sent', async () => {
    const c = await boundWorld(false);
    const id = (
      await c.ok([
        'schedule',
        'create',
        '--key',
        'ana@example.com',
        '--amount',
        '40',
        '--every',
        'fri',
        '--yes',
      ])
    ).trim();
    await c.ok(['policy', 'enforce', c.w.policyFile]);
    await c.at('2026-03-06T09:00:00-03:00');
    const run = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(run.code).toBe(8);
    expect(rowsOf(run.stdout)).toEqual([
      expect.objectContaining({
        id: `${id}.2026-03-06`,
        state: 'held',
        error: expect.stringMatching(
          /^this account pays only approved plans \(the policy enforced on it, sha256:\w{12}, says require-plan\): schedule s-\w+ has no standing approval/,
        ),
      }),
    ]);
    expect(transfersOf(c.w, 4000)).toBe(0);
    const shown = JSON.parse(await c.ok(['schedule', 'show', id, '--json'])) as {
      occurrences: Array<{ date: string; state: string }>;
    };
    expect(shown.occurrences).toEqual([expect.objectContaining({ date: '2026-03-06', state: 'held' })]);
  });
});

describe('the receiver checked again on the day against who the operator said they pay', () => {
  it('--expect-document and --expect-name at create; a key moved since refuses that occurrence; back with its owner, the next pays', async () => {
    const c = await boundWorld(false);
    const owner = dictOwner('supplier@example.com', 'EMAIL').receiver;
    const create = (...extra: string[]) =>
      c.pix([
        'schedule',
        'create',
        '--key',
        'supplier@example.com',
        '--amount',
        '12,34',
        '--every',
        'fri',
        '--count',
        '2',
        '--yes',
        ...extra,
      ]);
    const wrong = await create('--expect-name', 'Someone Else Ltda');
    expect(wrong.code).toBe(8);
    expect(wrong.stderr).toMatch(/Someone Else Ltda/);
    expect(JSON.parse(await c.ok(['schedule', 'list', '--json']))).toEqual({ results: [] });
    const made = await create('--expect-document', owner.documentNumber, '--expect-name', owner.name);
    expect(made.code, made.stderr).toBe(0);
    const id = made.stdout.trim();
    await c.ok([
      'sandbox',
      'move-key',
      'supplier@example.com',
      '--state',
      join(c.w.dir, 'sandbox-state.json'),
    ]);
    await c.at('2026-03-06T09:00:00-03:00');
    const moved = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(moved.code).toBe(5); // pay batch's exit for a row not payable (contract §4)
    expect(rowsOf(moved.stdout)).toEqual([
      expect.objectContaining({
        id: `${id}.2026-03-06`,
        state: 'not_payable',
        error: expect.stringContaining(owner.name),
      }),
    ]);
    expect(transfersOf(c.w, 1234)).toBe(0);
    await c.ok([
      'sandbox',
      'move-key',
      'supplier@example.com',
      '--back',
      '--state',
      join(c.w.dir, 'sandbox-state.json'),
    ]);
    await c.at('2026-03-13T09:00:00-03:00');
    const back = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(back.code, back.stderr).toBe(0);
    expect(rowsOf(back.stdout).map((row) => [row.id, row.state])).toEqual([[`${id}.2026-03-13`, 'paid']]);
    expect(transfersOf(c.w, 1234)).toBe(1);
  });
});

suite('on the shared ledger', () => {
  /** A database of the file's cluster made the world's ledger (`ledger-url` in its repo), the policy enforced on it. */
  async function sharedLedger(c: Clocked, name: string): Promise<string> {
    const url = cluster().createDatabase(name);
    const urlFile = join(c.w.repo, 'ledger-url');
    writeFileSync(urlFile, url);
    await c.ok(['ledger', 'init', '--url-file', urlFile]);
    await c.ok(['policy', 'enforce', c.w.policyFile]);
    return url;
  }

  it('two activations of one plan at once: both exit 0, the second "already", one schedule; the store adds an id once', async () => {
    const c = await boundWorld();
    const url = await sharedLedger(c, 'activate');
    const { id, plan } = await approvedPlan(c, 'twice', [
      '--key',
      'ana@example.com',
      '--amount',
      '100',
      '--at',
      '2026-03-06',
    ]);
    const both = await Promise.all([
      c.pix(['schedule', 'activate', plan, '--yes']),
      c.pix(['schedule', 'activate', plan, '--yes']),
    ]);
    for (const run of both) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(id);
    }
    expect(both.filter((run) => /already: nothing changed/.test(run.stderr))).toHaveLength(1);
    const store = openPostgresSchedules(url, {});
    try {
      const kept = await store.read();
      expect(kept.map((schedule) => schedule.id)).toEqual([id]);
      // The primary key decides between two at once: the second adds nothing (no error to the operator).
      expect(await store.add(kept[0]!)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('a refusal signed after activation, on another machine, holds the next occurrences on every machine', async () => {
    const c = await boundWorld();
    const { w } = c;
    const url = join(w.repo, 'ledger-url');
    await sharedLedger(c, 'standing');
    const { id, plan } = await standing(c, 'rent', [
      '--key',
      'ana@example.com',
      '--amount',
      '100',
      '--every',
      'fri',
      '--count',
      '3',
    ]);
    await c.at('2026-03-06T09:00:00-03:00');
    const first = await c.pix(['schedule', 'run-due', '-o', 'ndjson']);
    expect(first.code, first.stderr).toBe(0);
    // Bruno refuses the standing plan from his laptop (the same ledger, no token): his verdict is remembered there.
    const laptop = {
      PIX_CONFIG_DIR: tempConfigDir(),
      PIX_PROFILE: '',
      PIX_LEDGER_URL: readFileSync(url, 'utf8'),
      PIX_TOKEN: '',
    };
    await c.ok(
      [
        'plan',
        'reject',
        plan,
        '--key',
        KEYS.bruno.privatePath!,
        '--reason',
        'contract ended',
        '--policy',
        w.policyFile,
      ],
      laptop,
    );
    // Another machine of the team runs the schedules: the next Friday is held, naming the refusal.
    const runner = {
      PIX_CONFIG_DIR: tempConfigDir(),
      PIX_PROFILE: '',
      PIX_BASE_URL: w.server.url,
      PIX_LEDGER_URL: readFileSync(url, 'utf8'),
    };
    await c.at('2026-03-13T09:00:00-03:00');
    const next = await c.pix(['schedule', 'run-due', '-o', 'ndjson'], runner);
    expect(next.code).toBe(8);
    expect(rowsOf(next.stdout)).toEqual([
      expect.objectContaining({
        id: `${id}.2026-03-13`,
        state: 'held',
        error: expect.stringMatching(/is not approved: bruno refused the plan at .*contract ended/),
      }),
    ]);
    expect(transfersOf(w, 10000)).toBe(1);
  });
});
