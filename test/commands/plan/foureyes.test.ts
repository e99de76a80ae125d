import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approvalsPerFile, type Person, policyDocument, type World } from '../../helpers/approvals.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { clusterPerFile } from '../../helpers/postgres.js';
import { makeKey, type TestKey } from '../../helpers/ssh.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * Four eyes that hold against the team itself: the maker is the person whose key signed the plan, never a
 * name or an e-mail; a withdrawn approval does not come back by restoring its file. In-process pix against
 * a real `pix sandbox serve`, keys made by ssh-keygen, and a real PostgreSQL for the shared ledger.
 */
const { world: approvalsWorld } = approvalsPerFile();
const { suite, cluster } = clusterPerFile();

const AFTERNOON = new Date('2026-03-10T17:00:00Z');
const minutes = (n: number) => new Date(AFTERNOON.getTime() + n * 60_000);

async function planOf(w: World, maker: Person, by: string, name = 'payouts') {
  const plan = join(w.repo, `${name}.plan.json`);
  await w.make(w.batchFile(`${name}.csv`, [['r1', '10']]), plan, { maker, by, at: AFTERNOON });
  return plan;
}

const show = async (w: World, plan: string, env?: Record<string, string>) =>
  JSON.parse(
    (await w.pix(['plan', 'show', plan, '--json'], { at: minutes(30), ...(env ? { env } : {}) })).stdout,
  );

describe('the maker is the key that signed the plan', () => {
  it('under another name and e-mail (--by), the maker approving their own plan does not count', async () => {
    const w = await approvalsWorld();
    // carla signs the plan, calling herself B. Souza: her approval is still the maker's.
    const plan = await planOf(w, 'carla', 'B. Souza <financeiro@empresa.com>');
    await w.approve(plan, 'carla', minutes(1));
    await w.approve(plan, 'ana', minutes(2));
    const result = await w.pix(['plan', 'execute', plan, '--yes'], { at: minutes(3) });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/needs 1 more of finance \(bruno, dora may approve\)/);
    expect(w.transfers()).toBe(0);
    const shown = await show(w, plan);
    expect(shown.maker).toEqual({ key: expect.stringMatching(/^SHA256:/), name: 'carla' });
    expect(shown.approvals.find((a: { name: string }) => a.name === 'carla')).toMatchObject({
      counts: false,
      why: "carla made this plan (their key signed it): the maker's own verdict does not count",
    });
    expect(shown.status).not.toMatch(/carla may approve/);
  });

  it('with no e-mail in the policy and bare .pub keys, the maker is still known, and never offered as an approver', async () => {
    const bare = (keys: World['keys']) => {
      const document = policyDocument(keys);
      for (const [name, entry] of Object.entries(document.approvers)) {
        (entry as { keys: string[] }).keys = [keys[name as Person].publicLine];
      }
      return document;
    };
    const w = await approvalsWorld(bare);
    const plan = await planOf(w, 'ana', 'Ana Souza <ana@empresa.com>');
    await w.approve(plan, 'ana', minutes(1));
    await w.approve(plan, 'bruno', minutes(2));
    const result = await w.pix(['plan', 'execute', plan, '--yes'], { at: minutes(3) });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/needs 1 more of finance \(carla, dora may approve\)/);
    const text = await w.pix(['plan', 'show', plan], { at: minutes(4) });
    expect(text.stdout).not.toMatch(/met: ana/);
    expect(text.stdout).toMatch(/Made by\s+ana \(key SHA256:/);
    expect(w.transfers()).toBe(0);
    await w.approve(plan, 'carla', minutes(5));
    expect((await w.pix(['plan', 'execute', plan, '--yes'], { at: minutes(6) })).code).toBe(0);
    expect(w.transfers()).toBe(1);
  });

  it("the maker's other key is still the maker's: one person, whatever key they approve with", async () => {
    const extra = tempDir('pix-key-');
    const second: TestKey = makeKey(extra, 'ed25519', 'carla-laptop');
    const w = await approvalsWorld((keys) => {
      const document = policyDocument(keys);
      (document.approvers.carla as { keys: string[] }).keys.push(second.publicLine);
      return document;
    });
    const plan = await planOf(w, 'carla', 'Carla');
    const approved = await w.pix(['plan', 'approve', plan, '--key', second.privatePath!], { at: minutes(1) });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toMatch(/warning: carla made this plan/);
    await w.approve(plan, 'bruno', minutes(2));
    const result = await w.pix(['plan', 'execute', plan, '--yes'], { at: minutes(3) });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/needs 1 more of finance \(ana, dora may approve\)/);
  });

  it('an unsigned plan is exit 2; one signed by a key the policy does not know is refused at making and at payment', async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, 'carla', 'Carla');
    await w.approve(plan, 'ana', minutes(1));
    await w.approve(plan, 'bruno', minutes(2));
    const original = JSON.parse(readFileSync(plan, 'utf8'));
    const { signature: _signature, ...unsigned } = original;
    writeFileSync(plan, JSON.stringify(unsigned, null, 2));
    const bare = await w.pix(['plan', 'execute', plan, '--yes'], { at: minutes(3) });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^error: \S+: not a plan: signature: /);
    // Signed by mallory, whom the policy does not know: refused before anything is consulted.
    const stranger = makeKey(tempDir('pix-key-'), 'ed25519', 'mallory@example.com');
    const asked = w.server.requests.length;
    const making = await w.pix(
      [
        'pay',
        'batch',
        w.batchFile('m.csv', [['m1', '10']]),
        '--plan',
        join(w.repo, 'm.json'),
        '--signing-key',
        stranger.privatePath!,
      ],
      { at: AFTERNOON },
    );
    expect(making.code).toBe(2);
    expect(making.stderr).toMatch(/^error: --signing-key: key SHA256:\S+ is no approver's in /);
    // Nothing consulted: the maker's key is found before the first consultation.
    expect(w.server.requests.slice(asked).filter((r) => r.endpoint === 'dict')).toEqual([]);
    // The same plan signed by mallory (the file made by hand): nobody the policy knows made it.
    const signed = stranger.sign(`make ${original.id}\nat: ${original.createdAt}\n`, 'pix-plan');
    writeFileSync(plan, JSON.stringify({ ...original, signature: signed }, null, 2));
    const foreign = await w.pix(['plan', 'execute', plan, '--yes'], { at: minutes(3) });
    expect(foreign.code).toBe(8);
    expect(foreign.stderr).toMatch(
      /cannot be paid: the plan names maker key SHA256:\S+ but was signed by SHA256:/,
    );
    expect(w.transfers()).toBe(0);
  });
});

/** The approval file of `person` beside `plan`. */
function approvalFile(plan: string, person: Person): string {
  const dir = `${plan}.approvals`;
  const name = readdirSync(dir).find((file) =>
    readFileSync(join(dir, file), 'utf8').includes(`"by": "${person}"`),
  );
  if (name === undefined) throw new Error(`no approval of ${person}`);
  return join(dir, name);
}

describe('a withdrawn approval does not come back', () => {
  it('with files only: the executor that saw the refusal refuses the approval restored over it, naming both', async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, 'carla', 'Carla');
    await w.approve(plan, 'ana', minutes(1));
    await w.approve(plan, 'bruno', minutes(2));
    const file = approvalFile(plan, 'ana');
    const approval = readFileSync(file, 'utf8');
    const rejected = await w.pix(
      ['plan', 'reject', plan, '--reason', 'wrong supplier', '--key', w.keys.ana.privatePath!],
      {
        at: minutes(5),
      },
    );
    expect(rejected.code, rejected.stderr).toBe(0);
    // The maker restores Ana's old approval from git history over her refusal.
    writeFileSync(file, approval);
    const result = await w.pix(['plan', 'execute', plan, '--yes'], { at: minutes(6) });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(
      /ana refused the plan at 2026-03-10T17:05:00\.000Z \(this config directory \(\S+\)\): wrong supplier; ana's approval of 2026-03-10T17:01:00\.000Z \(\S+\.json\) is older than that refusal and does not count/,
    );
    expect(w.transfers()).toBe(0);
  });

  it('with files only, what a restored file can do: a machine that never saw the refusal counts the approval', async () => {
    const w = await approvalsWorld();
    const plan = await planOf(w, 'carla', 'Carla');
    // Ana reviews on her own machine (its own config directory): her verdicts are remembered there only.
    const laptop = { PIX_CONFIG_DIR: tempConfigDir(), PIX_PROFILE: '', PIX_TOKEN: '' };
    const ana = async (verdict: 'approve' | 'reject', at: Date) => {
      const args = ['plan', verdict, plan, '--key', w.keys.ana.privatePath!, '--policy', w.policyFile];
      const ran = await w.pix(verdict === 'reject' ? [...args, '--reason', 'no'] : args, { at, env: laptop });
      expect(ran.code, ran.stderr).toBe(0);
    };
    await ana('approve', minutes(1));
    copyFileSync(approvalFile(plan, 'ana'), join(w.repo, 'kept.json'));
    await w.approve(plan, 'bruno', minutes(2));
    await ana('reject', minutes(5));
    copyFileSync(join(w.repo, 'kept.json'), approvalFile(plan, 'ana'));
    // Her laptop saw the refusal; the executor never did.
    const there = await w.pix(['plan', 'show', plan, '--json', '--policy', w.policyFile], {
      env: laptop,
      at: minutes(6),
    });
    expect(JSON.parse(there.stdout).approved).toBe(false);
    const paid = await w.pix(['plan', 'execute', plan, '--yes'], { at: minutes(6) });
    expect(paid.code, paid.stderr).toBe(0);
    expect(w.transfers()).toBe(1);
  });
});

suite('on the shared ledger, every machine sees every verdict', () => {
  it('an approval restored after a refusal on another machine is refused (exit 8 naming both); nothing is paid', async () => {
    const w = await approvalsWorld();
    const url = join(w.repo, 'ledger-url');
    writeFileSync(url, cluster().createDatabase('verdicts'));
    const init = await w.pix(['ledger', 'init', '--url-file', url]);
    expect(init.code, init.stderr).toBe(0);
    const plan = await planOf(w, 'carla', 'Carla');
    // Ana reviews from her laptop: another config directory, the same ledger, no token.
    const laptop = {
      PIX_CONFIG_DIR: tempConfigDir(),
      PIX_PROFILE: '',
      PIX_TOKEN: '',
      PIX_LEDGER_URL: readFileSync(url, 'utf8'),
    };
    const verdict = async (args: string[], at: Date) => {
      const ran = await w.pix([...args, '--key', w.keys.ana.privatePath!, '--policy', w.policyFile], {
        at,
        env: laptop,
      });
      expect(ran.code, ran.stderr).toBe(0);
    };
    await verdict(['plan', 'approve', plan], minutes(1));
    const file = approvalFile(plan, 'ana');
    const approval = readFileSync(file, 'utf8');
    await w.approve(plan, 'bruno', minutes(2));
    await verdict(['plan', 'reject', plan, '--reason', 'not this month'], minutes(5));
    writeFileSync(file, approval);
    const result = await w.pix(['plan', 'execute', plan, '--yes'], { at: minutes(6) });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(
      /ana refused the plan at 2026-03-10T17:05:00\.000Z \(the shared ledger postgres:\/\/127\.0\.0\.1:\d+\/verdicts\): not this month; ana's approval of 2026-03-10T17:01:00\.000Z \(\S+\.json\) is older than that refusal and does not count/,
    );
    expect(w.transfers()).toBe(0);
    // Deleting the refusal's trace from the repository changes nothing either: the ledger keeps it.
    const shown = await show(w, plan);
    expect(shown.approved).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// The policy binds the account

/** The company's policy, bound to the account: plans only, R$ 150 a day, 2 of finance a plan. */
const strict = (keys: World['keys'], over: Record<string, unknown> = {}) =>
  policyDocument(keys, { 'require-plan': true, caps: { 'per-day': '150' }, ...over });

async function boundWorld(policy = strict): Promise<World> {
  const w = await approvalsWorld(policy);
  const enforced = await w.pix(['policy', 'enforce', w.policyFile]);
  expect(enforced.code, enforced.stderr).toBe(0);
  expect(enforced.stderr).toMatch(
    /now binds the account of profile "prod" via 127\.0\.0\.1:\d+: recorded in this config directory/,
  );
  return w;
}

describe('the policy binds the account, whatever the profile, flags or environment', () => {
  it('another profile on the same URL and token: refused without a plan (exit 8), nothing sent', async () => {
    const w = await boundWorld();
    expect((await w.pix(['config', 'set', 'base-url', w.server.url, '--profile', 'other'])).code).toBe(0);
    for (const args of [
      ['pay', 'key', 'ana@example.com', '--amount', '500', '--yes', '--profile', 'other'],
      ['pay', 'key', 'ana@example.com', '--amount', '500', '--yes'],
      ['pay', 'batch', w.batchFile('b.csv', [['b1', '500']]), '--yes', '--profile', 'other'],
    ]) {
      const refused = await w.pix(args);
      expect(refused.code, args.join(' ')).toBe(8);
      expect(refused.stderr, args.join(' ')).toMatch(
        /^error: this account pays only approved plans: the policy enforced on it \(sha256:\w{12}, this config directory \(\S+\)\) says require-plan; nothing was sent/m,
      );
    }
    expect(w.transfers()).toBe(0);
  });

  it('`config set require-plan false` says it cannot loosen the account, and does not', async () => {
    const w = await boundWorld();
    const set = await w.pix(['config', 'set', 'require-plan', 'false']);
    expect(set.code).toBe(0);
    expect(set.stderr).toMatch(
      /note: require-plan is profile prod's own setting: it can only add to a policy enforced on the account/,
    );
    const refused = await w.pix(['pay', 'key', 'ana@example.com', '--amount', '10', '--yes']);
    expect(refused.code).toBe(8);
    expect(w.transfers()).toBe(0);
  });

  it("the caps at each payment's moment, from any profile: a plain batch pays up to R$ 150 a day and holds the rest", async () => {
    const w = await boundWorld((keys) => strict(keys, { 'require-plan': false }));
    expect((await w.pix(['config', 'set', 'base-url', w.server.url, '--profile', 'other'])).code).toBe(0);
    const batch = w.batchFile('five.csv', [
      ['f1', '100'],
      ['f2', '100'],
      ['f3', '100'],
      ['f4', '100'],
      ['f5', '100'],
    ]);
    const result = await w.pix(
      ['pay', 'batch', batch, '--yes', '--concurrency', '1', '-o', 'ndjson', '--profile', 'other'],
      {
        at: AFTERNOON,
      },
    );
    expect(result.code).toBe(8);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; error?: string });
    expect(rows.map((row) => row.state)).toEqual(['paid', 'held', 'held', 'held', 'held']);
    expect(rows[1]!.error).toMatch(
      /^today's payments would reach R\$ 200,00 \(R\$ 100,00 paid already, R\$ 100,00 in this payment\), over the per-day cap of R\$ 150,00 \(the policy enforced on account \S+ \(this config directory \(\S+\)\); no approval lifts a cap\): not sent at 2026-03-10 14:00 Brasília$/,
    );
    const single = await w.pix(['pay', 'key', 'ana@example.com', '--amount', '60', '--yes'], {
      at: AFTERNOON,
    });
    expect(single.code).toBe(8);
    expect(single.stderr).toMatch(
      /^error: the account's policy refuses this payment: today's payments would reach R\$ 160,00/m,
    );
    expect(w.transfers()).toBe(1);
    // The next day in Brasília, the count starts again.
    const tomorrow = new Date('2026-03-11T12:00:00Z');
    expect(
      (await w.pix(['pay', 'key', 'ana@example.com', '--amount', '60', '--yes'], { at: tomorrow })).code,
    ).toBe(0);
    expect(w.transfers()).toBe(2);
  });

  it('plan execute --policy FILE with a policy whose only admin is the operator, self-approved: the bound policy still rules (exit 8)', async () => {
    const w = await boundWorld();
    // The operator's two keys, one policy that names them its admins and approvers.
    const dir = tempDir('pix-key-');
    const mallory = makeKey(dir, 'ed25519', 'mallory');
    const alias = makeKey(dir, 'ed25519', 'mallory-alias');
    const evil = join(w.repo, 'evil.json');
    writeFileSync(
      evil,
      JSON.stringify({
        'pix-policy': 1,
        approvers: {
          mallory: { groups: ['admins', 'finance'], keys: [mallory.publicLine] },
          alias: { groups: ['admins', 'finance'], keys: [alias.publicLine] },
        },
        rules: [{ name: 'every plan', require: '1 of finance' }],
        'policy-change': '1 of admins',
      }),
    );
    // A config directory of its own (no record: a file ledger binds only the directories that recorded it)
    // makes the plan under the operator's policy, approved by the alias.
    const elsewhere = { PIX_CONFIG_DIR: tempConfigDir() };
    for (const args of [
      ['config', 'set', 'base-url', w.server.url],
      ['config', 'set', 'policy', evil],
      ['policy', 'approve', evil, '--key', alias.privatePath!],
    ]) {
      const ran = await w.pix(args, { env: elsewhere });
      expect(ran.code, `${args.join(' ')}: ${ran.stderr}`).toBe(0);
    }
    const plan = join(w.repo, 'evil.plan.json');
    const made = await w.pix(
      [
        'pay',
        'batch',
        w.batchFile('e.csv', [['e1', '500']]),
        '--plan',
        plan,
        '--signing-key',
        mallory.privatePath!,
      ],
      { env: elsewhere, at: AFTERNOON },
    );
    expect(made.code, made.stderr).toBe(0);
    const approved = await w.pix(['plan', 'approve', plan, '--key', alias.privatePath!], {
      env: elsewhere,
      at: minutes(1),
    });
    expect(approved.code, approved.stderr).toBe(0);
    // On prod, the account's policy is the first judge: nobody it knows made this plan.
    const result = await w.pix(['plan', 'execute', plan, '--yes', '--policy', evil], { at: minutes(2) });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/cannot be paid: the maker's key SHA256:\S+ is no one's in the policy/);
    expect(w.transfers()).toBe(0);
    // And enforcing that policy over the bound one needs the bound one's admins.
    const over = await w.pix(['policy', 'enforce', evil]);
    expect(over.code).toBe(8);
    expect(over.stderr).toMatch(
      /^error: the policy in force on this account \(sha256:\w{12}, since \S+\) is replaced only with its own admins' approval \(2 of admins\): \S+evil\.json needs 2 more of admins \(dora, edu may approve\); nothing was recorded/,
    );
  });

  it('with files only, a fresh config directory has no record and is not bound: what remains is the token', async () => {
    const w = await boundWorld();
    // PIX_BASE_URL and PIX_TOKEN alone, in a fresh config directory: pix cannot know, and says nothing.
    const fresh = { PIX_CONFIG_DIR: tempConfigDir(), PIX_PROFILE: '', PIX_BASE_URL: w.server.url };
    const paid = await w.pix(['pay', 'key', 'ana@example.com', '--amount', '500', '--yes'], { env: fresh });
    expect(paid.code, paid.stderr).toBe(0);
    expect(w.transfers()).toBe(1);
  });
});

suite('on the shared ledger the account is bound on every machine', () => {
  it('PIX_BASE_URL, PIX_TOKEN and PIX_LEDGER_URL in a fresh config directory: bound (exit 8); so is every profile', async () => {
    const w = await approvalsWorld(strict);
    const url = join(w.repo, 'ledger-url');
    writeFileSync(url, cluster().createDatabase('bound'));
    expect((await w.pix(['ledger', 'init', '--url-file', url])).code).toBe(0);
    const enforced = await w.pix(['policy', 'enforce', w.policyFile]);
    expect(enforced.code, enforced.stderr).toBe(0);
    expect(enforced.stderr).toMatch(/recorded in the shared ledger postgres:\/\/127\.0\.0\.1:\d+\/bound/);
    const machine = {
      PIX_CONFIG_DIR: tempConfigDir(),
      PIX_PROFILE: '',
      PIX_BASE_URL: w.server.url,
      PIX_LEDGER_URL: readFileSync(url, 'utf8'),
    };
    const refused = await w.pix(['pay', 'key', 'ana@example.com', '--amount', '500', '--yes'], {
      env: machine,
    });
    expect(refused.code).toBe(8);
    expect(refused.stderr).toMatch(
      /this account pays only approved plans: the policy enforced on it \(sha256:\w{12}, the shared ledger postgres:/,
    );
    const shown = await w.pix(['policy', 'show', '--json'], { env: machine });
    expect(JSON.parse(shown.stdout).enforced).toMatchObject({ requirePlan: true, caps: { perDay: 15000 } });
    // A row written by hand (the runtime role can insert), its digest right, does not loosen it: its
    // approvals are of another digest, so it is ignored, loudly.
    cluster().psql(
      `INSERT INTO pix_policies (account, digest, previous, policy, approvals, enforced_at, enforced_by)
       SELECT account, 'sha256:' || encode(sha256(convert_to(loose, 'UTF8')), 'hex'), digest, loose, approvals, enforced_at, 'mallory'
         FROM (SELECT *, replace(policy, '"require-plan":true', '"require-plan":false') AS loose FROM pix_policies) AS p`,
      'bound',
    );
    const again = await w.pix(['pay', 'key', 'ana@example.com', '--amount', '500', '--yes'], {
      env: machine,
    });
    expect(again.code).toBe(8);
    expect(again.stderr).toMatch(
      /warning: a policy record of this account \(sha256:\w{12}, mallory\) does not hold and is ignored: its own admins did not approve it \(it needs 2 more of admins \(dora, edu may approve\)\)/,
    );
    expect(w.transfers()).toBe(0);
  });
});

describe('the night rule at the moment of each payment', () => {
  it('a run started at 19:59 Brasília holds the rows that cross into the night without its quorum, and pays the others', async () => {
    const w = await approvalsWorld();
    const plan = join(w.repo, 'late.plan.json');
    const before = new Date('2026-03-10T22:59:00Z'); // 19:59 in Brasília
    const after = new Date('2026-03-10T23:01:00Z'); // 20:01: the night (20:00–06:00) began
    await w.make(
      w.batchFile('late.csv', [
        ['r1', '1500'],
        ['r2', '500'],
        ['r3', '1500'],
      ]),
      plan,
      { at: new Date('2026-03-10T17:00:00Z') },
    );
    await w.approve(plan, 'ana', new Date('2026-03-10T17:01:00Z'));
    await w.approve(plan, 'bruno', new Date('2026-03-10T17:02:00Z'));
    // The clock moves on once the first transfer has left.
    const clock = () => (w.transfers() >= 1 ? after : before);
    const run = await w.pix(['plan', 'execute', plan, '--yes', '--concurrency', '1', '-o', 'ndjson'], {
      at: clock,
    });
    expect(run.code).toBe(8);
    const rows = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; error?: string });
    expect(rows.map((row) => [row.id, row.state])).toEqual([
      ['r1', 'paid'],
      ['r2', 'paid'],
      ['r3', 'held'],
    ]);
    expect(rows[2]!.error).toBe(
      'rule "night" (1 of admins; rows r1, r3: over R$ 1.000,00; paid at night (20:00–06:00 Brasília)) needs 1 more of admins (dora, edu may approve): not sent at 2026-03-10 20:01 Brasília',
    );
    expect(w.transfers()).toBe(2);
    // With the night's quorum, the held row is paid; nothing twice.
    await w.approve(plan, 'edu', after);
    const again = await w.pix(['plan', 'execute', plan, '--yes', '-o', 'ndjson'], { at: after });
    expect(again.code, again.stderr).toBe(0);
    expect(w.transfers()).toBe(3);
  });
});
