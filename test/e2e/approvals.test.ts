import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../src/journal/entries.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { BIN, NODE, runProcess, tempConfigDir } from '../helpers/cli.js';
import { keyDir, makeKey, type TestKey } from '../helpers/ssh.js';
import { until } from '../helpers/wait.js';

/**
 * Payment approvals with the built binary, as a team and its CI run them: the signing key found where git
 * finds it (user.signingkey, gpg.format ssh) or in ssh-agent, the maker from git's user.name/user.email,
 * and two `pix plan execute` of one plan at once against `pix sandbox serve`.
 */
let server: SandboxServer | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface Team {
  home: string;
  dir: string;
  env: Record<string, string>;
  keys: { ana: TestKey; bruno: TestKey; carla: TestKey; dora: TestKey };
  pix(args: string[], extra?: Record<string, string>): ReturnType<typeof runProcess>;
  transfers(): number;
}

/** Four people (finance: ana, bruno, carla; admins: dora), a policy they approved, a `prod` profile on a served sandbox. */
async function team(latencyMs = 0): Promise<Team> {
  const scratch = keyDir();
  cleanups.push(scratch.cleanup);
  const home = scratch.dir;
  const dir = tempConfigDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox-state.json'), latencyMs });
  const keys = {
    ana: makeKey(home, 'ed25519', 'ana@example.com'),
    bruno: makeKey(home, 'ecdsa', 'bruno@example.com'),
    carla: makeKey(home, 'ed25519', 'carla@example.com'),
    dora: makeKey(home, 'ed25519', 'dora@example.com'),
  };
  const line = (key: TestKey) => `${key.publicLine.split(' ').at(-1)} ${key.publicLine}`;
  writeFileSync(
    join(home, 'pix-policy.json'),
    JSON.stringify({
      'pix-policy': 1,
      approvers: {
        ana: { groups: ['finance'], keys: [line(keys.ana)] },
        bruno: { groups: ['finance'], keys: [line(keys.bruno)] },
        carla: { groups: ['finance'], keys: [line(keys.carla)] },
        dora: { groups: ['admins'], keys: [line(keys.dora)] },
      },
      rules: [{ name: 'every plan', require: '2 of finance' }],
      'policy-change': '1 of admins',
    }),
  );
  const env = { PIX_CONFIG_DIR: dir, PIX_PROFILE: 'prod', PIX_TOKEN: 'e2e-approvals-secret', HOME: home };
  // Run in the repository, as an operator or CI does: git reads the repository's config there.
  const pix = (args: string[], extra: Record<string, string> = {}) =>
    runProcess(NODE, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env, ...extra },
      cwd: home,
      timeoutMs: 60_000,
    });
  for (const args of [
    ['config', 'set', 'base-url', server.url],
    ['config', 'set', 'policy', join(home, 'pix-policy.json')],
    ['policy', 'approve', join(home, 'pix-policy.json'), '--key', keys.dora.privatePath!],
  ]) {
    const result = await pix(args);
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  }
  return {
    home,
    dir,
    env,
    keys,
    pix,
    transfers: () => server!.requests.filter((request) => request.endpoint === 'transfer').length,
  };
}

function batchFile(t: Team, rows: number): string {
  const file = join(t.home, 'payouts.csv');
  const lines = Array.from({ length: rows }, (_, n) => `r${n + 1},payee${n}@example.com,${n + 1}.00`);
  writeFileSync(file, `id,key,amount\n${lines.join('\n')}\n`);
  return file;
}

function git(home: string, ...args: string[]): void {
  const result = spawnSync('git', args, { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home } });
  expect(result.status, String(result.stderr)).toBe(0);
}

describe('pix plan, built binary', () => {
  it('two plan execute at once pay each row once', async () => {
    const t = await team(20);
    const plan = join(t.home, 'payouts.plan.json');
    const made = await t.pix([
      'pay',
      'batch',
      batchFile(t, 12),
      '--plan',
      plan,
      '--signing-key',
      t.keys.carla.privatePath!,
    ]);
    expect(made.code, made.stderr).toBe(0);
    for (const person of ['ana', 'bruno'] as const) {
      const approved = await t.pix(['plan', 'approve', plan, '--key', t.keys[person].privatePath!]);
      expect(approved.code, approved.stderr).toBe(0);
    }
    const both = await Promise.all([
      t.pix(['plan', 'execute', plan, '--yes', '-o', 'ndjson', '--concurrency', '2']),
      t.pix(['plan', 'execute', plan, '--yes', '-o', 'ndjson', '--concurrency', '2']),
    ]);
    // Each run ends paid (0), or holding rows the other is paying or paid (8): never an error of its own.
    for (const run of both) expect([0, 8], run.stderr).toContain(run.code);
    expect(t.transfers()).toBe(12);
    const states = both.flatMap((run) =>
      run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    );
    const paidBy = new Map<string, number>();
    for (const row of states) if (row.state === 'paid') paidBy.set(row.id, (paidBy.get(row.id) ?? 0) + 1);
    expect(paidBy.size).toBe(12);
    expect([...paidBy.values()].every((count) => count === 1)).toBe(true);
    // And the journal holds one done payment per row.
    const done = readFileSync(join(t.dir, JOURNAL_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((record) => record.state === 'done');
    expect(done).toHaveLength(12);
  });

  it("the GitOps way: the maker from git's user.name/email, the key git signs with, then ssh-agent's", async () => {
    const t = await team();
    git(t.home, 'init', '-q');
    git(t.home, 'config', 'user.name', 'Carla Dias');
    git(t.home, 'config', 'user.email', 'carla@example.com');
    // Carla makes the plan and signs it with the key git signs her commits with.
    git(t.home, 'config', 'gpg.format', 'ssh');
    git(t.home, 'config', 'user.signingkey', t.keys.carla.privatePath!);
    const plan = join(t.home, 'payouts.plan.json');
    const made = await t.pix(['pay', 'batch', batchFile(t, 2), '--plan', plan]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toMatch(/signed by carla \(SHA256:\S+, from git config user\.signingkey\)/);
    expect(JSON.parse(readFileSync(plan, 'utf8')).maker).toEqual({
      name: 'Carla Dias',
      email: 'carla@example.com',
      from: 'git',
      key: expect.stringMatching(/^SHA256:/),
    });
    // Ana signs with the key git would sign her commits with.
    git(t.home, 'config', 'user.signingkey', t.keys.ana.privatePath!);
    const byGit = await t.pix(['plan', 'approve', plan]);
    expect(byGit.code, byGit.stderr).toBe(0);
    expect(byGit.stderr).toMatch(/as ana \(SHA256:\S+, from git config user\.signingkey\)/);
    // Bruno's key lives in ssh-agent only (its private file removed after ssh-add).
    const socket = join(t.home, 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', socket], {
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '' },
    });
    cleanups.push(() => agent.kill());
    // The agent takes the key once its socket is up (until() fails naming it if it never does).
    await until(
      () =>
        spawnSync('ssh-add', [t.keys.bruno.privatePath!], {
          env: { SSH_AUTH_SOCK: socket, PATH: process.env.PATH ?? '' },
        }).status === 0,
      'ssh-agent to take the key',
      10_000,
    );
    rmSync(t.keys.bruno.privatePath!);
    git(t.home, 'config', '--unset', 'user.signingkey');
    // An approver needs no token and no account: no PIX_TOKEN, no profile, an empty config dir.
    const nowhere = join(t.home, 'approver-config');
    const byAgent = await t.pix(['plan', 'approve', plan, '--policy', join(t.home, 'pix-policy.json')], {
      SSH_AUTH_SOCK: socket,
      PIX_TOKEN: '',
      PIX_PROFILE: '',
      PIX_CONFIG_DIR: nowhere,
    });
    expect(byAgent.code, byAgent.stderr).toBe(0);
    expect(byAgent.stderr).toMatch(/as bruno \(SHA256:\S+, from ssh-agent\)/);
    expect(byAgent.stderr).toMatch(/plan status: approved: ready to execute/);
    // The approvals are files a reviewer commits; CI pays with the token as its only secret.
    git(t.home, 'add', '.');
    const paid = await t.pix(['plan', 'execute', plan, '--yes']);
    expect(paid.code, paid.stderr).toBe(0);
    expect(t.transfers()).toBe(2);
    const shown = await t.pix(['journal', '--all', '--json']);
    const entry = JSON.parse(shown.stdout).results[0];
    expect(entry.plan.maker).toBe('Carla Dias <carla@example.com>');
    expect(entry.plan.approvers.map((a: { name: string }) => a.name)).toEqual(['ana', 'bruno']);
  });

  it('ssh-keygen and git run without pix secrets in their environment (context.ts childEnv)', async () => {
    const t = await team();
    const plan = join(t.home, 'payouts.plan.json');
    const made = await t.pix([
      'pay',
      'batch',
      batchFile(t, 1),
      '--plan',
      plan,
      '--signing-key',
      t.keys.carla.privatePath!,
    ]);
    expect(made.code, made.stderr).toBe(0);
    // ssh-keygen and git as wrappers that write down what they were given, then run the real ones.
    const bin = join(t.home, 'bin');
    mkdirSync(bin);
    const seen = join(t.home, 'seen-env');
    for (const name of ['ssh-keygen', 'git']) {
      const real = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
      writeFileSync(join(bin, name), `#!/bin/sh\nenv >> "${seen}"\nexec "${real}" "$@"\n`);
      chmodSync(join(bin, name), 0o755);
    }
    const path = `${bin}:${process.env.PATH ?? ''}`;
    const approved = await t.pix(['plan', 'approve', plan, '--key', t.keys.ana.privatePath!], {
      PATH: path,
      PIX_CLIENT_SECRET: 'e2e-client-secret',
    });
    expect(approved.code, approved.stderr).toBe(0);
    const env = readFileSync(seen, 'utf8');
    expect(env).toContain(`HOME=${t.home}`);
    expect(env).not.toMatch(/PIX_TOKEN|PIX_CLIENT_SECRET/);
    expect(env).not.toContain('e2e-approvals-secret');
    expect(env).not.toContain('e2e-client-secret');
  });
});
