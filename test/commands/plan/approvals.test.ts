import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PlanBody, planBody, sealPlan } from '../../../src/domain/plan.js';
import { dictOwner } from '../../../src/sandbox/people.js';
import { approvalsPerFile, type Person, policyDocument, type World } from '../../helpers/approvals.js';
import { makeKey } from '../../helpers/ssh.js';
import { until } from '../../helpers/wait.js';

/**
 * Payment approvals in-process against a real `pix sandbox serve` on loopback: plans made with
 * `pix pay … --plan`, signed with keys ssh-keygen made (`pix plan approve`), paid by `pix plan execute`.
 * Transfers are counted from the sandbox's own request log.
 */
// The people's keys made once for the file; each test's world closed after it.
const { world: approvalsWorld } = approvalsPerFile();

/** 14:00 and 23:30 in Brasília (UTC-3) on a day of the sandbox. */
const AFTERNOON = new Date('2026-03-10T17:00:00Z');
const NIGHT = new Date('2026-03-11T02:30:00Z');

/** The `-o ndjson` report of a run: one record per row. */
const records = (result: { stdout: string }) =>
  result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; state: string; error?: string });

/** carla makes the plans: her key signs them (`by` is a label). */
async function planOf(
  w: World,
  rows: Array<[string, string]>,
  name = 'payouts',
  by = 'Carla <carla@example.com>',
  at = AFTERNOON,
  maker: Person = 'carla',
) {
  const file = w.batchFile(`${name}.csv`, rows);
  const plan = join(w.repo, `${name}.plan.json`);
  const made = await w.pix(
    ['pay', 'batch', file, '--plan', plan, '--by', by, '--signing-key', w.keys[maker].privatePath!],
    { at },
  );
  expect(made.code, made.stderr).toBe(0);
  return plan;
}

describe('a plan approved by 2 of finance is paid, each row once', () => {
  it('pays every row; a second execute pays nothing and says already paid', async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, [
      ['r1', '10'],
      ['r2', '20.50'],
      ['r3', '30'],
    ]);
    expect(w.transfers()).toBe(0); // --plan sends nothing
    await w.approve(plan, 'ana', AFTERNOON);
    await w.approve(plan, 'bruno', new Date(AFTERNOON.getTime() + 60_000));
    const paid = await w.pix(['plan', 'execute', plan, '--yes', '-o', 'ndjson'], { at: AFTERNOON });
    expect(paid.code, paid.stderr).toBe(0);
    expect(records(paid).map((row) => row.state)).toEqual(['paid', 'paid', 'paid']);
    expect(w.transfers()).toBe(3);
    expect(paid.stderr).toMatch(
      /made by carla \(Carla <carla@example\.com>, key SHA256:\S+\), approved by ana, bruno/,
    );
    const again = await w.pix(['plan', 'execute', plan, '--yes', '-o', 'ndjson'], { at: AFTERNOON });
    expect(again.code, again.stderr).toBe(0);
    expect(records(again).map((row) => row.state)).toEqual(['already_paid', 'already_paid', 'already_paid']);
    expect(w.transfers()).toBe(3);
    // The journal says who made and who approved each payment, with the keys' fingerprints.
    const shown = await w.pix(['journal', '--all', '--json']);
    const entries = JSON.parse(shown.stdout).results as Array<Record<string, unknown>>;
    expect(entries).toHaveLength(3);
    const ids = w.readPlan(plan).id;
    for (const entry of entries) {
      expect(entry.plan).toEqual({
        id: ids,
        maker: 'Carla <carla@example.com>',
        makerKey: expect.stringMatching(/^SHA256:/),
        approvers: [
          { name: 'ana', key: expect.stringMatching(/^SHA256:/) },
          { name: 'bruno', key: expect.stringMatching(/^SHA256:/) },
        ],
      });
    }
    const show = await w.pix(['plan', 'show', plan, '--json'], { at: AFTERNOON });
    const document = JSON.parse(show.stdout);
    expect(document.approved).toBe(true);
    expect(document.paid.map((row: { row: string; state: string }) => [row.row, row.state])).toEqual([
      ['r1', 'done'],
      ['r2', 'done'],
      ['r3', 'done'],
    ]);
  });

  it('an execution stopped part-way resumes: the rest is paid, nothing twice', async () => {
    const w = await approvalsWorld(undefined, { latencyMs: 30 });
    const rows: Array<[string, string]> = Array.from({ length: 6 }, (_, n) => [`r${n + 1}`, `${n + 1}`]);
    const plan = await planOf(w, rows);
    await w.approve(plan, 'ana', AFTERNOON);
    await w.approve(plan, 'dora', AFTERNOON);
    const stop = new AbortController();
    const first = w.pix(['plan', 'execute', plan, '--yes', '--concurrency', '1', '-o', 'ndjson'], {
      at: AFTERNOON,
      signal: stop.signal,
    });
    await until(() => w.transfers() >= 2, 'two transfers', 10_000);
    stop.abort('SIGINT');
    const stopped = await first;
    expect(stopped.code).toBe(130);
    const before = w.transfers();
    expect(before).toBeGreaterThanOrEqual(2);
    expect(before).toBeLessThan(6);
    const rest = await w.pix(['plan', 'execute', plan, '--yes', '-o', 'ndjson'], { at: AFTERNOON });
    expect(rest.code, rest.stderr).toBe(0);
    expect(w.transfers()).toBe(6);
    const states = records(rest).map((row) => row.state);
    expect(states.filter((state) => state === 'already_paid')).toHaveLength(before);
  });
});

describe('pay key and pay qr make plans of one row', () => {
  it('a key payment and a dynamic code, each planned, approved and paid once', async () => {
    const w = await approvalsWorld();
    const keyPlan = join(w.repo, 'key.plan.json');
    const byKey = await w.pix(
      [
        'pay',
        'key',
        'fornecedor@example.com',
        '--amount',
        '42',
        '--plan',
        keyPlan,
        '--by',
        'carla',
        '--signing-key',
        w.keys.carla.privatePath!,
        '--json',
      ],
      { at: AFTERNOON },
    );
    expect(byKey.code, byKey.stderr).toBe(0);
    const written = JSON.parse(byKey.stdout);
    expect(written).toEqual(w.readPlan(keyPlan));
    expect(written.rows).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^pay-[0-9a-f]{12}$/),
        key: 'fornecedor@example.com',
        amountCentavos: 4200,
      }),
    ]);
    const charge = await w.pix([
      'charge',
      'immediate',
      '--amount',
      '15',
      '--no-qr',
      '--key',
      'loja@sandbox.pix.local',
    ]);
    expect(charge.code, charge.stderr).toBe(0);
    const code = charge.stdout.trim().split('\t')[10]!;
    const qrPlan = join(w.repo, 'qr.plan.json');
    const byCode = await w.pix(
      ['pay', 'qr', code, '--plan', qrPlan, '--signing-key', w.keys.carla.privatePath!],
      { at: AFTERNOON },
    );
    expect(byCode.code, byCode.stderr).toBe(0);
    expect(w.readPlan(qrPlan).rows[0]).toMatchObject({ emv: code, amountCentavos: 1500, sendAmount: false });
    expect(w.transfers()).toBe(0);
    for (const plan of [keyPlan, qrPlan]) {
      await w.approve(plan, 'ana', AFTERNOON);
      await w.approve(plan, 'bruno', AFTERNOON);
      const paid = await w.pix(['plan', 'execute', plan, '--yes'], { at: AFTERNOON });
      expect(paid.code, paid.stderr).toBe(0);
      const again = await w.pix(['plan', 'execute', plan, '--yes', '-o', 'ndjson'], { at: AFTERNOON });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout).state).toBe('already_paid');
    }
    expect(w.transfers()).toBe(2);
  });
});

describe('what does not count', () => {
  it('one approval short: exit 8 naming the rule and who may still approve; nothing sent', async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, [['r1', '10']]);
    await w.approve(plan, 'ana', AFTERNOON);
    const asked = w.server.requests.length;
    const short = await w.pix(['plan', 'execute', plan, '--yes'], { at: AFTERNOON });
    expect(short.code).toBe(8);
    expect(short.stderr).toMatch(
      /error: sha256:\w{12} cannot be paid: rule "every plan" \(2 of finance\) needs 1 more of finance \(bruno, dora may approve\); nothing was sent/,
    );
    expect(w.server.requests).toHaveLength(asked); // not even a consultation
  });

  it("the maker's own approval does not count", async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, [['r1', '10']], 'payouts', 'Carla <carla@example.com>');
    await w.approve(plan, 'carla', AFTERNOON);
    await w.approve(plan, 'ana', AFTERNOON);
    const result = await w.pix(['plan', 'execute', plan, '--yes'], { at: AFTERNOON });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/needs 1 more of finance \(bruno, dora may approve\)/);
    expect(w.transfers()).toBe(0);
    const show = JSON.parse((await w.pix(['plan', 'show', plan, '--json'])).stdout);
    const carla = show.approvals.find((approval: { name: string }) => approval.name === 'carla');
    expect(carla).toMatchObject({
      counts: false,
      why: "carla made this plan (their key signed it): the maker's own verdict does not count",
    });
  });

  it('an approval of another plan, replayed beside this one, does not count', async () => {
    const w = await approvalsWorld();
    const first = await planOf(w, [['r1', '10']], 'first');
    const second = await planOf(w, [['s1', '10']], 'second');
    await w.approve(first, 'ana', AFTERNOON);
    await w.approve(first, 'bruno', AFTERNOON);
    await w.approve(second, 'ana', AFTERNOON);
    // bruno's approval of the first plan copied beside the second.
    const from = `${first}.approvals`;
    const bruno = readdirSync(from).find((name) =>
      readFileSync(join(from, name), 'utf8').includes('"by": "bruno"'),
    )!;
    cpSync(join(from, bruno), join(`${second}.approvals`, bruno));
    const result = await w.pix(['plan', 'execute', second, '--yes'], { at: AFTERNOON });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/needs 1 more of finance \(bruno, dora may approve\)/);
    const show = JSON.parse((await w.pix(['plan', 'show', second, '--json'])).stdout);
    const replayed = show.approvals.find((approval: { name: string }) => approval.name === 'bruno');
    expect(replayed.counts).toBe(false);
    expect(replayed.why).toMatch(/^it is bruno's approval of sha256:\w{12}, not of this one$/);
    expect(w.transfers()).toBe(0);
  });

  it('a plan edited after approval: by hand is exit 2; with its id made again, the approvals count for nothing', async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, [
      ['r1', '10'],
      ['r2', '20'],
    ]);
    await w.approve(plan, 'ana', AFTERNOON);
    await w.approve(plan, 'bruno', AFTERNOON);
    const original = readFileSync(plan, 'utf8');
    const edits: Array<[string, (body: PlanBody) => void]> = [
      [
        'an amount',
        (body) => {
          body.rows[0]!.amountCentavos = 100_000;
          body.total.amountCentavos = body.rows.reduce((sum, row) => sum + row.amountCentavos, 0);
        },
      ],
      [
        'a key',
        (body) => {
          body.rows[1]!.key = 'mallory@example.com';
        },
      ],
      [
        'a row added',
        (body) => {
          body.rows.push({ ...body.rows[0]!, id: 'r3', key: 'mallory@example.com' });
          body.total = { rows: 3, amountCentavos: body.total.amountCentavos + body.rows[0]!.amountCentavos };
        },
      ],
    ];
    for (const [what, edit] of edits) {
      const body = planBody(JSON.parse(original));
      edit(body);
      const { id, signature } = JSON.parse(original);
      // By hand: the id is the old one.
      writeFileSync(plan, JSON.stringify({ id, ...body, signature }, null, 2));
      const byHand = await w.pix(['plan', 'execute', plan, '--yes'], { at: AFTERNOON });
      expect(byHand.code, what).toBe(2);
      expect(byHand.stderr.split('\n')[0], what).toBe(
        `error: ${plan}: the plan was changed after it was made: its id no longer matches its content`,
      );
      // With the id made again: another plan, which its maker did not sign and nobody approved.
      writeFileSync(plan, JSON.stringify({ ...sealPlan(body), signature }, null, 2));
      const resealed = await w.pix(['plan', 'execute', plan, '--yes'], { at: AFTERNOON });
      expect(resealed.code, what).toBe(8);
      expect(resealed.stderr, what).toMatch(/cannot be paid: the maker's signature does not verify/);
      const show = JSON.parse((await w.pix(['plan', 'show', plan, '--json'])).stdout);
      expect(show.status, what).toMatch(/^cannot be paid: the maker's signature does not verify/);
      expect(
        show.approvals.every((a: { counts: boolean }) => !a.counts),
        what,
      ).toBe(true);
    }
    expect(w.transfers()).toBe(0);
  });

  it('an expired plan is refused', async () => {
    const w = await approvalsWorld();
    const file = w.batchFile('p.csv', [['r1', '10']]);
    const plan = join(w.repo, 'p.plan.json');
    const made = await w.pix(
      [
        'pay',
        'batch',
        file,
        '--plan',
        plan,
        '--signing-key',
        w.keys.carla.privatePath!,
        '--expires-in',
        '2h',
      ],
      {
        at: AFTERNOON,
      },
    );
    expect(made.code, made.stderr).toBe(0);
    await w.approve(plan, 'ana', AFTERNOON);
    await w.approve(plan, 'bruno', AFTERNOON);
    const late = await w.pix(['plan', 'execute', plan, '--yes'], {
      at: new Date(AFTERNOON.getTime() + 2 * 3_600_000),
    });
    expect(late.code).toBe(8);
    expect(late.stderr).toMatch(
      /cannot be paid: the plan expired at 10\/03\/2026 16:00 \(UTC-03:00\); nothing was sent/,
    );
    expect(w.transfers()).toBe(0);
    const inTime = await w.pix(['plan', 'execute', plan, '--yes'], {
      at: new Date(AFTERNOON.getTime() + 3_600_000),
    });
    expect(inTime.code, inTime.stderr).toBe(0);
    expect(w.transfers()).toBe(1);
  });

  it("a policy loosened without the admins' signatures is refused, for executing and for planning", async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, [['r1', '10']]);
    await w.approve(plan, 'ana', AFTERNOON);
    // Loosened: one approval of finance is enough now. The admins signed the old digest only.
    const loosened = policyDocument(w.keys);
    loosened.rules[0]!.require = '1 of finance';
    writeFileSync(w.policyFile, JSON.stringify(loosened, null, 2));
    const result = await w.pix(['plan', 'execute', plan, '--yes'], { at: AFTERNOON });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(
      /is not approved by its admins: it needs 2 more of admins \(dora, edu may approve\)/,
    );
    const replan = await w.pix(
      [
        'pay',
        'key',
        'x@example.com',
        '--amount',
        '5',
        '--plan',
        join(w.repo, 'x.json'),
        '--signing-key',
        w.keys.carla.privatePath!,
      ],
      { at: AFTERNOON },
    );
    expect(replan.code).toBe(8);
    expect(replan.stderr).toMatch(/is not approved by its admins/);
    expect(w.transfers()).toBe(0);
    // Once both admins sign the new digest, the old plan is still another policy's: make it again.
    for (const admin of ['dora', 'edu'] as const) {
      const signed = await w.pix(['policy', 'approve', w.policyFile, '--key', w.keys[admin].privatePath!]);
      expect(signed.code, signed.stderr).toBe(0);
    }
    const stale = await w.pix(['plan', 'execute', plan, '--yes'], { at: AFTERNOON });
    expect(stale.code).toBe(8);
    expect(stale.stderr).toMatch(/the plan was made under policy sha256:\w{12}, and the policy in force is/);
    expect(w.transfers()).toBe(0);
  });
});

describe('at the moment of payment', () => {
  it("keys moved between approval and execution: a row's expected payee, kept in the plan, makes it not_payable; a row without one is receiver_changed; the others pay", async () => {
    const w = await approvalsWorld();
    const owner = dictOwner('supplier@example.com', 'EMAIL');
    const file = join(w.repo, 'suppliers.csv');
    writeFileSync(
      file,
      `id;chave;valor;documento;nome\ns1;supplier@example.com;10;${owner.receiver.documentNumber};${owner.receiver.name}\nr2;payee1@example.com;20;;\nr3;payee2@example.com;30;;\n`,
    );
    const plan = join(w.repo, 'suppliers.plan.json');
    const made = await w.pix(
      ['pay', 'batch', file, '--plan', plan, '--signing-key', w.keys.carla.privatePath!],
      { at: AFTERNOON },
    );
    expect(made.code, made.stderr).toBe(0);
    // Inside the row, so the plan's id (and every approval) covers it.
    expect(w.readPlan(plan).rows[0]!.expect).toEqual({
      document: owner.receiver.documentNumber,
      name: owner.receiver.name,
    });
    await w.approve(plan, 'ana', AFTERNOON);
    await w.approve(plan, 'bruno', AFTERNOON);
    for (const key of ['supplier@example.com', 'payee1@example.com']) {
      const moved = await w.pix(['sandbox', 'move-key', key, '--state', join(w.dir, 'sandbox-state.json')]);
      expect(moved.code, moved.stderr).toBe(0);
    }
    const result = await w.pix(['plan', 'execute', plan, '--yes', '-o', 'ndjson'], { at: AFTERNOON });
    // not_payable (5) outranks receiver_changed (8): domain/batchplan.ts batchOutcome, contract §4.
    expect(result.code).toBe(5);
    const rows = records(result);
    expect(rows.map((row) => [row.id, row.state])).toEqual([
      ['s1', 'not_payable'],
      ['r2', 'receiver_changed'],
      ['r3', 'paid'],
    ]);
    expect(rows[0]!.error).toMatch(
      /^the receiver is .+, not the expected .+ \(the document differs, the name differs\)$/,
    );
    expect(rows[1]!.error).toMatch(
      /^the receiver is now .+; the plan approved .+: nothing was sent for this row$/,
    );
    expect(w.transfers()).toBe(1);
  });

  it("a night payment over the night limit needs the night rule's quorum (1 of admins)", async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, [['r1', '1500']]);
    await w.approve(plan, 'ana', AFTERNOON);
    await w.approve(plan, 'bruno', AFTERNOON);
    const night = await w.pix(['plan', 'execute', plan, '--yes'], { at: NIGHT });
    expect(night.code).toBe(8);
    expect(night.stderr).toMatch(
      /rule "night" \(1 of admins; row r1: over R\$ 1\.000,00; paid at night \(20:00–06:00 Brasília\)\) needs 1 more of admins \(dora, edu may approve\)/,
    );
    expect(w.transfers()).toBe(0);
    await w.approve(plan, 'edu', NIGHT);
    const approved = await w.pix(['plan', 'execute', plan, '--yes'], { at: NIGHT });
    expect(approved.code, approved.stderr).toBe(0);
    expect(w.transfers()).toBe(1);
  });

  it('the same plan in the afternoon needs no admin; a night plan under the limit neither', async () => {
    const w = await approvalsWorld();
    const day = await planOf(w, [['r1', '1500']], 'day');
    const small = await planOf(w, [['s1', '999']], 'small');
    for (const plan of [day, small]) {
      await w.approve(plan, 'ana', AFTERNOON);
      await w.approve(plan, 'bruno', AFTERNOON);
    }
    expect((await w.pix(['plan', 'execute', day, '--yes'], { at: AFTERNOON })).code).toBe(0);
    expect((await w.pix(['plan', 'execute', small, '--yes'], { at: NIGHT })).code).toBe(0);
    expect(w.transfers()).toBe(2);
  });

  it("the daily cap counts two plans of the same day (Brasília's calendar)", async () => {
    const w = await approvalsWorld((keys) => policyDocument(keys, { caps: { 'per-day': '100' } }));
    const first = await planOf(w, [['r1', '60']], 'first');
    const second = await planOf(w, [['s1', '50']], 'second');
    for (const plan of [first, second]) {
      await w.approve(plan, 'ana', AFTERNOON);
      await w.approve(plan, 'bruno', AFTERNOON);
    }
    expect((await w.pix(['plan', 'execute', first, '--yes'], { at: AFTERNOON })).code).toBe(0);
    const over = await w.pix(['plan', 'execute', second, '--yes'], { at: AFTERNOON });
    expect(over.code).toBe(8);
    expect(over.stderr).toMatch(
      /would break the policy's caps: today's payments would reach R\$ 110,00 \(R\$ 60,00 paid already, R\$ 50,00 in this plan\), over the per-day cap of R\$ 100,00; nothing was sent/,
    );
    expect(w.transfers()).toBe(1);
    // The next day in Brasília (00:30 BRT is 03:30 UTC) the count starts again.
    const tomorrow = new Date('2026-03-11T03:30:00Z');
    await w.approve(second, 'edu', tomorrow); // paid at night: the night rule wants an admin (under its limit: not needed)
    const next = await w.pix(['plan', 'execute', second, '--yes'], { at: tomorrow });
    expect(next.code, next.stderr).toBe(0);
    expect(w.transfers()).toBe(2);
  });
});

describe('require-plan', () => {
  it('refuses a plain pay key --yes (exit 8 naming pix plan); --plan and plan execute still work', async () => {
    const w = await approvalsWorld();
    expect((await w.pix(['config', 'set', 'require-plan', 'true'])).code).toBe(0);
    const plain = await w.pix(['pay', 'key', 'ana@example.com', '--amount', '10', '--yes']);
    expect(plain.code).toBe(8);
    expect(plain.stderr).toMatch(
      /^error: profile "prod" pays only approved plans \(require-plan true\); nothing was sent\nhint: .*pix plan execute FILE/,
    );
    const batch = await w.pix(['pay', 'batch', w.batchFile('b.csv', [['r1', '1']]), '--yes']);
    expect(batch.code).toBe(8);
    expect(w.server.requests).toHaveLength(0);
    const plan = await planOf(w, [['r1', '10']]);
    await w.approve(plan, 'ana', AFTERNOON);
    await w.approve(plan, 'bruno', AFTERNOON);
    const paid = await w.pix(['plan', 'execute', plan, '--yes'], { at: AFTERNOON });
    expect(paid.code, paid.stderr).toBe(0);
    expect(w.transfers()).toBe(1);
  });

  it('the built-in sandbox profile never requires a plan: it cannot set require-plan', async () => {
    const w = await approvalsWorld();
    const set = await w.pix(['config', 'set', 'require-plan', 'true', '--profile', 'sandbox']);
    expect(set.code).toBe(2);
    expect(set.stderr).toMatch(/require-plan: the built-in sandbox profile cannot set it/);
  });
});

describe('a signed file means what is signed', () => {
  it('a "__proto__" line that would turn "over R$ 5.000 needs 2 of admins" off is refused (exit 2 naming it); nothing is paid', async () => {
    const large = (keys: World['keys']) =>
      policyDocument(keys, {
        rules: [
          { name: 'every plan', require: '1 of finance' },
          { name: 'large payment', 'amount-over': '5000', require: '2 of admins' },
        ],
      });
    const w = await approvalsWorld(large);
    const plan = await planOf(w, [['r1', '9000']]);
    await w.approve(plan, 'ana', AFTERNOON);
    const short = await w.pix(['plan', 'execute', plan, '--yes'], { at: AFTERNOON });
    expect(short.code).toBe(8);
    expect(short.stderr).toMatch(/rule "large payment" \(2 of admins; row r1: over R\$ 5\.000,00\)/);
    // One line, as the finding had it: the rule read its amount through the prototype, the digest did not.
    const poisoned = JSON.stringify(large(w.keys), null, 2).replace(
      '"name": "large payment",',
      '"name": "large payment",\n        "__proto__": {"total-over": "99999999"},',
    );
    writeFileSync(w.policyFile, poisoned);
    const line = poisoned.split('\n').findIndex((text) => text.includes('__proto__')) + 1;
    for (const args of [
      ['policy', 'approve', w.policyFile, '--key', w.keys.dora.privatePath!],
      ['plan', 'execute', plan, '--yes'],
      ['plan', 'show', plan],
    ]) {
      const refused = await w.pix(args, { at: AFTERNOON });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr, args.join(' ')).toMatch(
        new RegExp(`^error: \\S+pix-policy\\.json line ${line}, column 9: "__proto__" is refused as a key`),
      );
    }
    expect(w.transfers()).toBe(0);
  });

  it('a plan or an approval with such a key is exit 2 naming its line', async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, [['r1', '10']]);
    await w.approve(plan, 'ana', AFTERNOON);
    const original = readFileSync(plan, 'utf8');
    writeFileSync(plan, original.replace('"kind": "batch",', '"kind": "batch",\n  "constructor": {},'));
    const shown = await w.pix(['plan', 'show', plan]);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toMatch(
      /^error: \S+\.plan\.json: not a plan: line \d+, column 3: "constructor" is refused as a key/,
    );
    writeFileSync(plan, original);
    const dir = `${plan}.approvals`;
    const [file] = readdirSync(dir);
    const approval = readFileSync(join(dir, file!), 'utf8');
    writeFileSync(join(dir, file!), approval.replace('{', '{"__proto__": {"verdict": "approve"},'));
    const bad = await w.pix(['plan', 'show', plan]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/: not an approval: line 1, column 2: "__proto__" is refused as a key/);
  });
});

describe('bad input is one line and exit 2', () => {
  it('a malformed signature, an unknown --key, a malformed policy', async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, [['r1', '10']]);
    await w.approve(plan, 'ana', AFTERNOON);
    const dir = `${plan}.approvals`;
    const [file] = readdirSync(dir);
    const record = JSON.parse(readFileSync(join(dir, file!), 'utf8'));
    writeFileSync(
      join(dir, file!),
      JSON.stringify({
        ...record,
        signature: '-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----',
      }),
    );
    const malformed = await w.pix(['plan', 'show', plan]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toBe(`error: ${join(dir, file!)}: its signature is cut short\n`);
    writeFileSync(join(dir, file!), JSON.stringify(record));

    const stranger = join(w.repo, 'stranger');
    mkdirSync(stranger);
    const key = makeKey(stranger, 'ed25519', 'mallory@example.com');
    const unknown = await w.pix(['plan', 'approve', plan, '--key', key.privatePath!], { at: AFTERNOON });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: --key: key SHA256:\S+ is no approver's in \S+pix-policy\.json\n/);
    const missing = await w.pix(['plan', 'approve', plan, '--key', join(stranger, 'nothing')], {
      at: AFTERNOON,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: --key: no such file: /);

    writeFileSync(
      w.policyFile,
      readFileSync(w.policyFile, 'utf8').replace('"2 of finance"', '"2 of finanse"'),
    );
    const policy = await w.pix(['policy', 'check']);
    expect(policy.code).toBe(2);
    expect(policy.stderr).toMatch(
      /^error: \S+pix-policy\.json line \d+: rules\[0\]\.require: no approver is in group "finanse"/,
    );
  });
});
