/**
 * A company that pays through approvals, for tests: SSH keys made by ssh-keygen for five people —
 * finance: ana, bruno, carla; admins: dora (also finance) and edu — a policy naming them, approved by the
 * admins with `pix policy approve`, a `prod` profile on a real `pix sandbox serve` (loopback) using it,
 * and `pix` run in-process with a clock the test may set.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import type { Plan } from '../../src/domain/plan.js';
import { run } from '../../src/main.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { tempConfigDir } from './cli.js';
import { createTestIO, type TestIOOptions } from './io.js';
import { type KeyKind, keyDir, makeKey, type TestKey } from './ssh.js';

export const PEOPLE = ['ana', 'bruno', 'carla', 'dora', 'edu'] as const;
export type Person = (typeof PEOPLE)[number];

const KINDS: Record<Person, KeyKind> = {
  ana: 'ed25519',
  bruno: 'ecdsa',
  carla: 'ed25519',
  dora: 'ed25519',
  edu: 'rsa',
};

/** The policy of the tests: 2 of finance for every plan; more for large, new, night; caps. */
export function policyDocument(keys: Record<Person, TestKey>, over: Record<string, unknown> = {}) {
  const line = (person: Person) => `${person}@example.com ${keys[person].publicLine}`;
  return {
    'pix-policy': 1,
    approvers: {
      ana: { groups: ['finance'], keys: [line('ana')] },
      bruno: { groups: ['finance'], keys: [line('bruno')] },
      carla: { groups: ['finance'], keys: [line('carla')] },
      dora: { groups: ['admins', 'finance'], keys: [line('dora')] },
      edu: { groups: ['admins'], keys: [line('edu')] },
    },
    rules: [
      { name: 'every plan', require: '2 of finance' },
      { name: 'night', night: true, 'amount-over': '1000', require: '1 of admins' },
    ],
    night: { from: '20:00', to: '06:00' },
    'policy-change': '2 of admins',
    ...over,
  };
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export interface World {
  /** The executor's config dir (journal, profile), and the repository of plans and the policy. */
  dir: string;
  repo: string;
  server: SandboxServer;
  keys: Record<Person, TestKey>;
  policyFile: string;
  /**
   * pix in-process as the `prod` profile; `at`: the clock it runs with (default: now), or a function of
   * nothing read at each look (a clock that moves); `env`: variables over the world's (another machine's
   * PIX_CONFIG_DIR, a ledger URL).
   */
  pix(
    args: string[],
    options?: {
      at?: Date | (() => Date);
      io?: TestIOOptions;
      signal?: AbortSignal;
      env?: Record<string, string | undefined>;
    },
  ): Promise<Result>;
  /** `pix plan approve FILE --key <person's key>`; expects exit 0. */
  approve(plan: string, person: Person, at?: Date): Promise<void>;
  /** `pix pay batch FILE --plan PLAN --signing-key <maker's key>` (carla by default); expects exit 0. */
  make(batch: string, plan: string, options?: { maker?: Person; by?: string; at?: Date }): Promise<Result>;
  /** Transfers the sandbox received. */
  transfers(): number;
  /** A batch file of `rows` key payments (`r1`…), amounts in reais. */
  batchFile(name: string, rows: Array<[string, string]>): string;
  readPlan(file: string): Plan;
  close(): Promise<void>;
}

/** One key for each person, made by ssh-keygen in `dir` (an RSA key takes a while: make them once per file). */
export function peopleKeys(dir: string): Record<Person, TestKey> {
  return Object.fromEntries(
    PEOPLE.map((person) => [person, makeKey(dir, KINDS[person], `${person}@example.com`)]),
  ) as Record<Person, TestKey>;
}

export async function approvalsWorld(
  policy: (keys: Record<Person, TestKey>) => Record<string, unknown> = (keys) => policyDocument(keys),
  options: { latencyMs?: number; keys?: Record<Person, TestKey> } = {},
): Promise<World> {
  const dir = tempConfigDir();
  const repo = mkdtempSync(join(tmpdir(), 'pix-repo-'));
  const keys = options.keys ?? peopleKeys(repo);
  const policyFile = join(repo, 'pix-policy.json');
  writeFileSync(policyFile, `${JSON.stringify(policy(keys), null, 2)}\n`);
  const server = await startSandboxServer({
    port: 0,
    stateFile: join(dir, 'sandbox-state.json'),
    ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
  });
  // What an in-process pix sees: its own config dir, the profile, the token; PATH for ssh-keygen; a HOME
  // with no git config, so nothing of the developer's own is used.
  const env = {
    PIX_CONFIG_DIR: dir,
    PIX_PROFILE: 'prod',
    PIX_TOKEN: 'approvals-token',
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: repo,
    USER: 'ci',
  };
  const pix: World['pix'] = async (args, given = {}) => {
    const test = createTestIO(given.io);
    const at = given.at;
    const clock =
      at === undefined ? {} : { clock: { now: () => (typeof at === 'function' ? at() : new Date(at)) } };
    const code = await run(args, {
      io: test.io,
      env: { ...env, ...given.env },
      ...clock,
      ...(given.signal ? { signal: given.signal } : {}),
    });
    return { code, stdout: test.stdout(), stderr: test.stderr() };
  };
  const ok = async (args: string[], at?: Date) => {
    const result = await pix(args, at === undefined ? {} : { at });
    expect(result.code, `pix ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result;
  };
  await ok(['config', 'set', 'base-url', server.url]);
  await ok(['config', 'set', 'policy', policyFile]);
  await ok(['policy', 'approve', policyFile, '--key', keys.dora.privatePath!]);
  await ok(['policy', 'approve', policyFile, '--key', keys.edu.privatePath!]);
  return {
    dir,
    repo,
    server,
    keys,
    policyFile,
    pix,
    async approve(plan, person, at) {
      await ok(['plan', 'approve', plan, '--key', keys[person].privatePath!], at);
    },
    make: (batch, plan, { maker = 'carla', by, at } = {}) =>
      ok(
        [
          'pay',
          'batch',
          batch,
          '--plan',
          plan,
          '--signing-key',
          keys[maker].privatePath!,
          ...(by === undefined ? [] : ['--by', by]),
        ],
        at,
      ),
    transfers: () => server.requests.filter((request) => request.endpoint === 'transfer').length,
    batchFile(name, rows) {
      const file = join(repo, name);
      writeFileSync(
        file,
        `id,key,amount\n${rows.map(([id, amount], n) => `${id},payee${n}@example.com,${amount}`).join('\n')}\n`,
      );
      return file;
    },
    readPlan: (file) => JSON.parse(readFileSync(file, 'utf8')) as Plan,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(repo, { recursive: true, force: true });
    },
  };
}

/**
 * What a test file of approvals sets up once: the people's keys, made for the file (ssh-keygen takes a
 * while over an RSA key) and removed after it, and `world()`, an approvals world for the test that calls
 * it, closed after that test. Call it at the top of the file: it registers the file's hooks.
 */
export function approvalsPerFile(): {
  KEYS: Record<Person, TestKey>;
  world(policy?: Parameters<typeof approvalsWorld>[0], options?: { latencyMs?: number }): Promise<World>;
} {
  let current: World | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const store = keyDir();
  const KEYS = peopleKeys(store.dir);
  afterAll(() => store.cleanup());
  return {
    KEYS,
    world: async (policy, options = {}) => {
      current = await approvalsWorld(policy, { ...options, keys: KEYS });
      return current;
    },
  };
}
