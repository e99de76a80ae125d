/**
 * For tests of `pix listen`: a real node:http receiver on loopback, the built binary listening (killed
 * after the test), a customer paying a charge from another process, and conditions to wait on (with
 * until(), test/helpers/wait.ts: a deadline, never a fixed sleep).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { BIN, NODE, runCli } from './cli.js';
import type { Cluster } from './postgres.js';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/**
 * A receiver answering with `status(n, id)` for its n-th request (1-based), `id` the request's
 * Pix-Event-Id; `hang` never answers that one.
 */
export async function receiver(status: (n: number, id: string) => number | 'hang' = () => 200) {
  const got: Received[] = [];
  /** Requests left hanging that the client closed. */
  const seen = { abandoned: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      const answer = status(got.length, String(req.headers['pix-event-id']));
      if (answer === 'hang') {
        res.on('close', () => seen.abandoned++);
        return;
      }
      res.statusCode = answer;
      res.end('ok');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    got,
    get abandoned() {
      return seen.abandoned;
    },
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pix`,
  };
}

/** `pix listen --interval 1s ARGS` on config dir `dir` (plus `env`), killed after the test. */
export function listen(dir: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(NODE, [BIN, 'listen', '--interval', '1s', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, PIX_CONFIG_DIR: dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout!.resume();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  Object.defineProperty(child, 'stderrText', { get: () => stderr });
  children.push(child);
  return child;
}

/** What a listener started by `listen` wrote on stderr so far. */
export const stderrOf = (child: ChildProcess): string =>
  (child as unknown as { stderrText: string }).stderrText;

/** The exit code of a child, once it has exited. */
export const stopped = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });

/** The file of the account's events in `dir` ending in `suffix` (`.jsonl`, `.checkpoint`, `.lock`), if any. */
export function eventsFile(dir: string, suffix: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(join(dir, 'events'));
  } catch {
    return undefined;
  }
  const name = names.find((file) => file.startsWith('acct_') && file.endsWith(suffix));
  return name === undefined ? undefined : join(dir, 'events', name);
}

/** The listener of `dir` made its first run (its checkpoint is written, without a first run's marker). */
export function caughtUp(dir: string): boolean {
  const file = eventsFile(dir, '.checkpoint');
  if (file === undefined) return false;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { catchUp?: unknown }).catchUp === undefined;
  } catch {
    return false;
  }
}

/**
 * On a database profile (events/postgres.ts): an account's listener made its first run (its cursor is
 * recorded, without a first run's marker).
 */
export function caughtUpOn(cluster: Cluster, database: string): boolean {
  try {
    const sql = `SELECT count(*) FROM pix_listen WHERE cursor IS NOT NULL AND NOT cursor ? 'catchUp'`;
    return Number(cluster.psql(sql, database).trim()) > 0;
  } catch {
    return false;
  }
}

/**
 * A customer pays a new charge of `amount` on the sandbox `env` names (a profile's, or the embedded one):
 * an INCOME entry. `extra`: more arguments for `pix charge immediate` and for `pix sandbox pay`.
 */
export async function customerPays(
  env: Record<string, string>,
  amount: string,
  extra: { charge?: string[]; pay?: string[] } = {},
): Promise<string> {
  const charge = await runCli(['charge', 'immediate', '--amount', amount, ...(extra.charge ?? [])], { env });
  expect(charge.code, charge.stderr).toBe(0);
  const id = charge.stdout.split('\t')[0]!;
  const paid = await runCli(['sandbox', 'pay', id, ...(extra.pay ?? [])], { env });
  expect(paid.code, paid.stderr).toBe(0);
  return id;
}

/** The account's signing secret (`pix listen --print-secret`). */
export async function secretOf(env: Record<string, string>): Promise<string> {
  const printed = await runCli(['listen', '--print-secret'], { env });
  expect(printed.code, printed.stderr).toBe(0);
  return printed.stdout.trim();
}

/** The lines of a file an `--exec` appends events to (none while it does not exist). */
export function linesOf(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** An event as a receiver got it (the fields the tests look at). */
export interface Delivered {
  id: string;
  type: string;
  created: string;
  data: { id: string; amount?: number };
}

/** The events a receiver got, parsed. */
export const bodies = (got: Received[]) => got.map((request) => JSON.parse(request.body) as Delivered);

export const ids = (got: Received[]) => got.map((request) => String(request.headers['pix-event-id']));

/** Whether `request` is its body signed with `secret` (Pix-Signature: t=…,v1=HMAC-SHA256(secret, "t.body")). */
export function signedWith(secret: string, request: Received): boolean {
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['pix-signature'])) ?? [];
  return v1 === createHmac('sha256', secret).update(`${t}.${request.body}`).digest('hex');
}

/**
 * A machine of a team (docs/team.md): a config directory of its own on the sandbox at `baseUrl`, its ledger
 * the database at `ledger`.
 */
export function teamMachine(dir: string, baseUrl: string, ledger: string) {
  return { PIX_CONFIG_DIR: dir, PIX_BASE_URL: baseUrl, PIX_TOKEN: 'e2e-token', PIX_LEDGER_URL: ledger };
}
