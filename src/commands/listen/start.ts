/**
 * `pix listen`: the webhooks the API does not have. It polls the statement (as `statement --follow` does)
 * and makes an event of every new entry (`entry.income`, `entry.outcome`), then delivers it: POSTed to
 * `--forward-to URL` signed as Stripe signs (`Pix-Signature`), piped to `--exec CMD`, or printed.
 *
 * Every event and every attempt is a line of the account's event log (domain/events.ts) before and after
 * it is delivered, so a stop or a kill loses nothing: the next `pix listen` delivers what is owed, and
 * repeats at most the deliveries that were in flight. A failed delivery is retried (1 s doubling to
 * 5 minutes) while newer events keep flowing; after `--max-attempts` it is a dead letter
 * (`pix events list --failed`, `pix events resend`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { StatementEntry } from '../../api/resources/statement.js';
import { configDir } from '../../config/store.js';
import { childEnv, type Deps, type Env } from '../../context.js';
import {
  attemptLines,
  entryEvent,
  type LogLine,
  type PixEvent,
  parseLog,
  recordEvent,
  replay,
  retryDelayMs,
  signature,
} from '../../domain/events.js';
import { InvalidValue } from '../../domain/invalid.js';
import { formatBRL } from '../../domain/money.js';
import { checkTransport, isLocalhostName, localhostLookup } from '../../domain/url.js';
import { formatTimeOfDay } from '../../domain/when.js';
import { usageError } from '../../errors.js';
import { journalOf } from '../../journal/record.js';
import { type Account, ofAccount } from '../../journal/rules.js';
import { jsonSafe, safeText } from '../../output/sanitize.js';
import {
  appendPrivateLine,
  ensurePrivateDir,
  readPrivateFile,
  writeFileAtomic,
} from '../../storage/files.js';
import * as z from '../../zod.js';
import { ledgerJson, openLedger, refreshLedger } from '../charge/ledger.js';
import { publicEntry } from '../journal/shared.js';
import { accountOf } from '../shared/account.js';
import { durationFlag, fromDomain, integerFlag, parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { newEntries, oldestFirst, pause } from '../statement/follow.js';

const DELIVERY_TIMEOUT_MS = 10_000;
/** After Ctrl-C or SIGTERM, how long a delivery in flight may take to be answered. */
const STOP_GRACE_MS = 5_000;

/**
 * `--forward-to URL` (listen and events resend): https://, or http:// to loopback only, the base URL's rule
 * (api/url.ts): an event carries full CPFs and CNPJs, which never cross a network in clear.
 */
export function parseForwardTarget(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidValue(`"${text}" is not a URL (https://…, or http:// to this machine)`);
  }
  checkTransport(url);
  return url;
}

const listenOptionsSchema = z.object({
  forwardTo: z.optional(fromDomain(parseForwardTarget)),
  exec: z.optional(z.string().check(z.minLength(1))),
  interval: z.optional(durationFlag),
  backfill: z.optional(durationFlag),
  maxAttempts: z._default(integerFlag(1), 8),
  printSecret: z._default(z.boolean(), false),
  rotateSecret: z._default(z.boolean(), false),
});

export type ListenOptions = z.output<typeof listenOptionsSchema>;

/**
 * Where one account's events live: the log and the signing secret of the account as the API identifies it
 * (commands/shared/account.ts), so a renamed profile, a second profile or another spelling of the URL keeps
 * them. The files of earlier versions, named after a profile and its base URL, become the account's the
 * first time it is listened to through that profile.
 */
export async function eventFiles(
  deps: Deps,
): Promise<{ log: string; secret: string; profile: string; baseUrl: string; account: Account }> {
  const [settings, account] = await Promise.all([deps.settings(), accountOf(deps)]);
  const { createHash } = await import('node:crypto');
  const dir = join(configDir(deps.env), 'events');
  ensurePrivateDir(dir);
  const files = { log: join(dir, `${account.id}.jsonl`), secret: join(dir, `${account.id}.secret`) };
  const names = [settings.profile.value, ...settings.formerNames];
  for (const name of names) {
    const legacy = createHash('sha256').update(`${name}\n${account.baseUrl}`).digest('hex').slice(0, 16);
    adoptFile(join(dir, `${legacy}.jsonl`), files.log);
    adoptFile(join(dir, `${legacy}.secret`), files.secret);
  }
  return { ...files, profile: account.profile, baseUrl: account.baseUrl, account };
}

/** Moves an earlier version's file to its account's name, unless the account has one already. */
function adoptFile(from: string, to: string): void {
  const exists = (path: string) => statSync(path, { throwIfNoEntry: false }) !== undefined;
  if (exists(to) || !exists(from)) return;
  renameSync(from, to);
}

/** The profile's signing secret (`whsec_…`, made on first use, 0600), or a new one with `rotate`. */
export function signingSecret(path: string, rotate = false): string {
  const existing = rotate ? undefined : readPrivateFile(path)?.trim();
  if (existing) return existing;
  const secret = `whsec_${randomBytes(24).toString('hex')}`;
  writeFileAtomic(path, `${secret}\n`);
  return secret;
}

export interface Delivery {
  /** Delivers one event; resolves with what happened (a receiver's non-2xx is a failure, not a throw). */
  deliver(event: PixEvent, signal?: AbortSignal): Promise<{ ok: boolean; status?: number; error?: string }>;
}

/** POST to the URL, signed; redirects are not followed; the API token is never part of it. */
export function forwarder(url: URL, secret: string, now: () => Date): Delivery {
  return {
    async deliver(event, signal) {
      const body = JSON.stringify(event);
      const t = Math.floor(now().getTime() / 1000);
      const { request } = await import(url.protocol === 'https:' ? 'node:https' : 'node:http');
      return new Promise((resolve) => {
        const req = request(
          url,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'user-agent': 'pix-cli',
              'pix-signature': signature(secret, body, t),
              'pix-event-id': event.id,
              'pix-event-type': event.type,
            },
            timeout: DELIVERY_TIMEOUT_MS,
            // A localhost name let through as loopback is resolved to loopback by pix, never by DNS.
            ...(isLocalhostName(url.hostname) ? { lookup: localhostLookup } : {}),
            ...(signal ? { signal } : {}),
          },
          (response: import('node:http').IncomingMessage) => {
            response.resume();
            const status = response.statusCode ?? 0;
            response.on('end', () => resolve({ ok: status >= 200 && status < 300, status }));
          },
        );
        req.on('timeout', () => req.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`)));
        req.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ ok: false, error: error.code ?? error.message }),
        );
        req.end(body);
      });
    },
  };
}

/**
 * One run of `sh -c CMD` per event, the event's JSON on its stdin; exit 0 is delivered. The command's
 * environment is the user's without pix's secrets (context.ts childEnv).
 */
export function executor(command: string, env: Env): Delivery {
  return {
    deliver(event, signal) {
      return new Promise((resolve) => {
        const child = spawn('/bin/sh', ['-c', command], {
          stdio: ['pipe', 'inherit', 'inherit'],
          env: childEnv(env),
          ...(signal ? { signal } : {}),
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), DELIVERY_TIMEOUT_MS * 6);
        child.on('error', (error) => resolve({ ok: false, error: error.message }));
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve(code === 0 ? { ok: true } : { ok: false, error: `exit ${code}` });
        });
        child.stdin.on('error', () => {});
        child.stdin.end(JSON.stringify(event));
      });
    },
  };
}

/**
 * An event for a person: its time on the profile's clock, its type, its amount as money (`R$ 13,13`),
 * who, and its id.
 */
function eventLine(event: PixEvent, timeZone: string): string {
  const entry = event.data as Partial<StatementEntry> & { amount?: number };
  const party = (entry.type === 'OUTCOME' ? entry.debtor : entry.creditor) ?? entry.creditor ?? entry.debtor;
  const amount = typeof entry.amount === 'number' ? formatBRL(Math.round(entry.amount * 100)) : '';
  return `${formatTimeOfDay(event.created, timeZone)}  ${event.type.padEnd(16)} ${amount.padStart(13)}  ${safeText(party?.name ?? '', 40)}  ${event.id}`;
}

/** Printed: one JSON line per event (piped), or a short line for a person on a terminal. */
function printer(deps: Deps, timeZone: string): Delivery {
  const out = deps.io.stdout;
  return {
    async deliver(event) {
      const text = out.isTTY ? `${eventLine(event, timeZone)}\n` : jsonSafe(`${JSON.stringify(event)}\n`);
      if (!out.write(text)) await out.drained();
      return { ok: true };
    },
  };
}

export async function runListen(options: ListenOptions, deps: Deps): Promise<void> {
  if (options.forwardTo && options.exec)
    throw usageError('--exec', 'cannot go with --forward-to: one destination');
  const files = await eventFiles(deps);
  if (options.printSecret || options.rotateSecret) {
    const secret = signingSecret(files.secret, options.rotateSecret);
    deps.io.stdout.write(`${secret}\n`);
    return;
  }
  const { stderr } = deps.io;
  const interval = options.interval?.milliseconds ?? 5_000;
  const secret = signingSecret(files.secret);
  const timeZone = (await deps.settings()).timeZone.value;
  const sink = options.forwardTo
    ? forwarder(options.forwardTo, secret, () => deps.clock.now())
    : options.exec
      ? executor(options.exec, deps.env)
      : printer(deps, timeZone);
  // Delivering elsewhere, a person watching sees each event and each delivery (as `stripe listen` shows).
  const narrate = stderr.isTTY && (options.forwardTo !== undefined || options.exec !== undefined);
  const write = (line: LogLine) => appendPrivateLine(files.log, JSON.stringify(line));
  const logged = readPrivateFile(files.log);
  const firstRun = logged === undefined;
  const replayed = replay(parseLog(logged ?? ''));
  const { seen } = replayed;
  // Only what is owed stays in memory: a delivered or dead event is remembered by its id alone, so a
  // listener running for months holds ids, not events.
  const events = new Map([...replayed.events].filter(([, state]) => state.state === 'pending'));
  const ended = new Set([...replayed.events.keys()].filter((id) => !events.has(id)));
  const known = (id: string) => events.has(id) || ended.has(id);
  const client = await deps.api();
  const context = { baseUrl: files.baseUrl, profile: files.profile, now: deps.clock.now() };
  const { account } = files;
  const journal = await journalOf(deps);
  const ledger = await openLedger(deps);
  /** The state each journal entry and charge had at the last poll (its facts were made then). */
  const lastState = new Map<string, string>();
  /** A charge was pending or ambiguous at the last poll: the ledger is read again even if the journal is not. */
  let chargesOpen = true;
  let journalVersion = '';

  /**
   * The facts pix records itself, as events: this account's payments sent, unknown or resolved (the
   * journal), and its charges paid or expired (the charge ledger, after a look at the statement for the
   * pending ones). Each with the time it happened, for --backfill.
   */
  async function recordedFacts(): Promise<Array<{ event: PixEvent; at: number }>> {
    const now = { ...context, now: deps.clock.now() };
    const facts: Array<{ event: PixEvent; at: number }> = [];
    // When the journal's version is what it was, no entry changed, and nothing is walked.
    const version = await journal.version();
    const changed = version !== journalVersion;
    journalVersion = version;
    for (const entry of changed ? await journal.read() : []) {
      // A record whose state has not changed since the last poll has no new fact: a journal of 100,000
      // lines costs a comparison each, not an event made (and hashed) each, every poll.
      const state = `${entry.state}|${entry.resolution === undefined ? '' : 'r'}`;
      if (lastState.get(entry.id) === state) continue;
      lastState.set(entry.id, state);
      if (entry.kind !== 'payment' || !ofAccount(entry, account)) continue;
      const data = publicEntry(entry);
      const at = Date.parse(entry.finishedAt ?? entry.at);
      if (entry.state === 'done') facts.push({ event: recordEvent('payment.sent', entry.id, data, now), at });
      if (entry.state === 'unknown')
        facts.push({ event: recordEvent('payment.unknown', entry.id, data, now), at });
      if (entry.resolution !== undefined) {
        const resolvedAt = Date.parse(entry.resolvedAt ?? entry.at);
        facts.push({ event: recordEvent('payment.resolved', entry.id, data, now), at: resolvedAt });
      }
    }
    // The charges change only with the journal, or with time while one is pending (it may expire).
    if (!changed && !chargesOpen) return facts.sort((a, b) => a.at - b.at);
    const records = await ledger.reload();
    const pending = records.filter((record) => record.status === 'pending' || record.status === 'ambiguous');
    chargesOpen = pending.length > 0;
    const look = pending.length ? await refreshLedger(ledger, pending, false, deps) : undefined;
    for (const record of look?.records ?? records) {
      if (lastState.get(`charge:${record.id}`) === record.status) continue;
      lastState.set(`charge:${record.id}`, record.status);
      if (record.status === 'paid' || record.status === 'probable') {
        const at = Date.parse(record.matchedAt ?? record.createdAt);
        facts.push({ event: recordEvent('charge.paid', record.id, ledgerJson(record), now), at });
      } else if (record.status === 'expired') {
        const at = Date.parse(record.expiresAt ?? record.createdAt);
        facts.push({ event: recordEvent('charge.expired', record.id, ledgerJson(record), now), at });
      }
    }
    return facts.sort((a, b) => a.at - b.at);
  }

  function recordFact(event: PixEvent): void {
    if (known(event.id) || seen.has(event.id)) return;
    write({ t: 'event', event });
    events.set(event.id, { event, attempts: 0, state: 'pending', nextAt: 0 });
  }

  if (firstRun) {
    // What is on the statement and in pix's records now is not news, except the --backfill window's.
    const from = options.backfill
      ? deps.clock.now().getTime() - options.backfill.milliseconds
      : Number.POSITIVE_INFINITY;
    const before = await newEntries(client, seen);
    const backfilled = before.filter((entry) => Date.parse(entry.confirmedAt) >= from);
    const facts = await recordedFacts();
    const old = [
      ...before.filter((entry) => !backfilled.includes(entry)).map((entry) => entry.id),
      ...facts.filter((fact) => fact.at < from).map((fact) => fact.event.id),
    ];
    write({ t: 'seen', ids: old });
    for (const id of old) seen.add(id);
    for (const entry of oldestFirst(backfilled)) record(entry);
    for (const fact of facts) recordFact(fact.event);
  }
  if (stderr.isTTY) {
    const where = options.forwardTo ? `to ${options.forwardTo.href}` : options.exec ? 'to --exec' : 'here';
    stderr.write(
      `listening to the statement every ${interval / 1000} s, delivering ${where}; Ctrl-C to stop\n`,
    );
  }

  function record(entry: StatementEntry): void {
    const event = entryEvent(entry as unknown as StatementEntry & Record<string, unknown>, {
      ...context,
      now: deps.clock.now(),
    });
    if (known(event.id)) return;
    write({ t: 'event', event });
    events.set(event.id, { event, attempts: 0, state: 'pending', nextAt: 0 });
  }

  /**
   * A delivery's outcome, or undefined when pix was stopped (Ctrl-C, SIGTERM) and the delivery in flight
   * got no answer within STOP_GRACE_MS after that.
   */
  function withinGrace<T>(delivery: Promise<T>, cancel: () => void): Promise<T | undefined> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onStop = () => {
        timer = setTimeout(() => {
          cancel();
          resolve(undefined);
        }, STOP_GRACE_MS);
      };
      if (deps.signal.aborted) onStop();
      else deps.signal.addEventListener('abort', onStop, { once: true });
      void delivery.then((value) => {
        clearTimeout(timer);
        deps.signal.removeEventListener('abort', onStop);
        resolve(value);
      });
    });
  }

  /** Delivers every pending event that is due, in the order made; a failure waits while later ones go. */
  async function deliverDue(): Promise<void> {
    for (const state of events.values()) {
      if (state.nextAt > deps.clock.now().getTime()) continue;
      if (deps.signal.aborted) return;
      const controller = new AbortController();
      const started = deps.clock.now().getTime();
      if (narrate && state.attempts === 0) stderr.write(`${eventLine(state.event, timeZone)}\n`);
      const result = await withinGrace(sink.deliver(state.event, controller.signal), () =>
        controller.abort(),
      );
      // Stopped and not answered within the grace: owed still (the next run delivers it), nothing logged.
      if (result === undefined) return;
      if (narrate) {
        const answer = result.status ?? (result.ok ? 'exit 0' : safeText(result.error ?? 'failed', 80));
        stderr.write(`  → ${state.event.id} ${answer} in ${deps.clock.now().getTime() - started} ms\n`);
      }
      state.attempts++;
      const at = deps.clock.now().toISOString();
      for (const line of attemptLines(state.event.id, at, result)) write(line);
      if (result.ok) {
        events.delete(state.event.id);
        ended.add(state.event.id);
      } else if (state.attempts >= options.maxAttempts) {
        events.delete(state.event.id);
        ended.add(state.event.id);
        write({ t: 'dead', id: state.event.id, at });
        stderr.write(
          `warning: event ${state.event.id} is a dead letter after ${state.attempts} attempts (pix events resend ${state.event.id})\n`,
        );
      } else {
        state.nextAt = deps.clock.now().getTime() + retryDelayMs(state.attempts + 1, deps.random());
        const why =
          result.status === undefined ? safeText(result.error ?? 'failed', 80) : `status ${result.status}`;
        stderr.write(
          `warning: delivering ${state.event.id} failed (${why}); attempt ${state.attempts} of ${options.maxAttempts}\n`,
        );
      }
    }
  }

  const stopped = () => deps.signal.aborted;
  try {
    for (;;) {
      await deliverDue();
      if (!(await pause(deps, interval))) break;
      try {
        for (const entry of oldestFirst((await newEntries(client, seen)).reverse())) record(entry);
        for (const fact of await recordedFacts()) recordFact(fact.event);
      } catch (error) {
        if (stopped()) break;
        const message = error instanceof Error ? error.message : String(error);
        stderr.write(`warning: reading the statement: ${safeText(message, 200)}; trying again\n`);
      }
    }
  } catch (error) {
    if (!stopped()) throw error;
  }
  // Stopped (Ctrl-C, SIGTERM): the delivery in flight was finished; what is owed stays in the log for the
  // next run, and nothing more is started.
}

export function register(command: Command, deps: Deps): void {
  command
    .option('--forward-to <url>', 'POST each event (JSON, signed: Pix-Signature) to URL')
    .option('--exec <command>', "run COMMAND once per event with the event's JSON on its stdin")
    .option(
      '--interval <duration>',
      'time between polls of the statement (default 5s; durations are whole seconds)',
    )
    .option('--backfill <duration>', 'on the first run, also the entries of this window before it (24h)')
    .option('--max-attempts <n>', 'deliveries of one event before it is a dead letter (default 8)')
    .option('--print-secret', 'print the signing secret of this profile and exit')
    .option('--rotate-secret', 'make a new signing secret, print it and exit')
    .action(async (_options, self: Command) => {
      await runListen(parseOptions(listenOptionsSchema, self.opts()), deps);
    });
  addExamples(
    command,
    ['pix listen --print-secret', 'pix listen --forward-to http://127.0.0.1:3000/pix --backfill 1h'],
    ['usage', 'auth', 'unavailable'],
  );
}
