import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  approvalsWorld as makeWorld,
  type Person,
  peopleKeys,
  policyDocument,
  type World,
} from '../../helpers/approvals.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { clusterPerFile } from '../../helpers/postgres.js';
import { keyDir, makeKey, type TestKey } from '../../helpers/ssh.js';

/**
 * Four eyes that hold against the team itself: the maker is the person whose key signed the plan, never a
 * name or an e-mail; a withdrawn approval does not come back by restoring its file. In-process pix against
 * a real `pix sandbox serve`, keys made by ssh-keygen, and a real PostgreSQL for the shared ledger.
 */
let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});
const keyStore = keyDir();
const KEYS = peopleKeys(keyStore.dir);
afterAll(() => keyStore.cleanup());
const { suite, cluster } = clusterPerFile();

async function approvalsWorld(policy?: Parameters<typeof makeWorld>[0]): Promise<World> {
  world = await makeWorld(policy, { keys: KEYS });
  return world;
}

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
    const extra = mkdtempSync(join(tmpdir(), 'pix-key-'));
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
    const stranger = makeKey(mkdtempSync(join(tmpdir(), 'pix-key-')), 'ed25519', 'mallory@example.com');
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
function approvalFile(w: World, plan: string, person: Person): string {
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
    const file = approvalFile(w, plan, 'ana');
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
    copyFileSync(approvalFile(w, plan, 'ana'), join(w.repo, 'kept.json'));
    await w.approve(plan, 'bruno', minutes(2));
    await ana('reject', minutes(5));
    copyFileSync(join(w.repo, 'kept.json'), approvalFile(w, plan, 'ana'));
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
    const file = approvalFile(w, plan, 'ana');
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
