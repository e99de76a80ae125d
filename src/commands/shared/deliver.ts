/**
 * Where `pix listen` (and `pix events resend`) deliver an event: POSTed to `--forward-to URL` signed as
 * Stripe signs (`Pix-Signature`), piped to `--exec CMD`, or printed; and the delivery of what is owed,
 * each attempt logged (src/events/log.ts) before the next starts.
 */
import { spawn } from 'node:child_process';
import type { StatementEntry } from '../../api/resources/statement.js';
import { childEnv, type Deps, type Env } from '../../context.js';
import { attemptLines, type LogLine } from '../../domain/event-log.js';
import { type PixEvent, retryDelayMs, signature } from '../../domain/events.js';
import { InvalidValue } from '../../domain/invalid.js';
import { formatBRL } from '../../domain/money.js';
import { checkTransport, isLocalhostName, localhostLookup } from '../../domain/url.js';
import { formatTimeOfDay } from '../../domain/when.js';
import { jsonSafe, safeText } from '../../output/sanitize.js';

const DELIVERY_TIMEOUT_MS = 10_000;
/** After Ctrl-C or SIGTERM, how long a delivery in flight may take to be answered. */
const STOP_GRACE_MS = 5_000;

/**
 * `--forward-to URL` (listen and events resend): https://, or http:// to loopback only, the base URL's rule
 * (domain/url.ts): an event carries full CPFs and CNPJs, which never cross a network in clear.
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

/**
 * Where events go, as a person is told (the lock file, a second listener's error): a URL without its
 * user, password or query (they may hold a receiver's token), `--exec` without its command.
 */
export function destinationOf(options: { forwardTo?: URL | undefined; exec?: string | undefined }): string {
  if (options.forwardTo) return `${options.forwardTo.origin}${options.forwardTo.pathname}`;
  return options.exec === undefined ? 'stdout' : '--exec';
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
export function printer(deps: Deps, timeZone: string): Delivery {
  const out = deps.io.stdout;
  return {
    async deliver(event) {
      const text = out.isTTY ? `${eventLine(event, timeZone)}\n` : jsonSafe(`${JSON.stringify(event)}\n`);
      if (!out.write(text)) await out.drained();
      return { ok: true };
    },
  };
}

/** An event owed: made, not yet delivered nor a dead letter. */
export interface Owed {
  event: PixEvent;
  attempts: number;
  /** When the next attempt may start (ms), after a failure. */
  nextAt: number;
}

/**
 * A delivery's outcome, or undefined when pix was stopped (Ctrl-C, SIGTERM) and the delivery in flight
 * got no answer within STOP_GRACE_MS after that.
 */
function withinGrace<T>(
  delivery: Promise<T>,
  cancel: () => void,
  signal: AbortSignal,
): Promise<T | undefined> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onStop = () => {
      timer = setTimeout(() => {
        cancel();
        resolve(undefined);
      }, STOP_GRACE_MS);
    };
    if (signal.aborted) onStop();
    else signal.addEventListener('abort', onStop, { once: true });
    void delivery.then((value) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onStop);
      resolve(value);
    });
  });
}

/**
 * Delivers every owed event that is due, in the order made; a failure waits (1 s doubling to 5 minutes)
 * while later ones go, and after `maxAttempts` is a dead letter. Each outcome is written with `write`
 * before the next delivery starts. `narrate` (the profile's time zone): a person watching the terminal
 * while events go elsewhere sees each event and each delivery on stderr, as `stripe listen` shows them.
 */
export async function deliverDue(
  owed: Map<string, Owed>,
  sink: Delivery,
  maxAttempts: number,
  write: (lines: LogLine[]) => unknown,
  deps: Deps,
  narrate?: string,
): Promise<void> {
  const { stderr } = deps.io;
  for (const state of owed.values()) {
    if (state.nextAt > deps.clock.now().getTime()) continue;
    if (deps.signal.aborted) return;
    const controller = new AbortController();
    const started = deps.clock.now().getTime();
    if (narrate !== undefined && state.attempts === 0) stderr.write(`${eventLine(state.event, narrate)}\n`);
    const result = await withinGrace(
      sink.deliver(state.event, controller.signal),
      () => controller.abort(),
      deps.signal,
    );
    // Stopped and not answered within the grace: owed still (the next run delivers it), nothing logged.
    if (result === undefined) return;
    if (narrate !== undefined) {
      const answer = result.status ?? (result.ok ? 'exit 0' : safeText(result.error ?? 'failed', 80));
      stderr.write(`  → ${state.event.id} ${answer} in ${deps.clock.now().getTime() - started} ms\n`);
    }
    state.attempts++;
    const at = deps.clock.now().toISOString();
    const { id } = state.event;
    const lines = attemptLines(id, at, result);
    if (result.ok) {
      owed.delete(id);
    } else if (state.attempts >= maxAttempts) {
      owed.delete(id);
      lines.push({ t: 'dead', id, at });
      stderr.write(
        `warning: event ${id} is a dead letter after ${state.attempts} attempts (pix events resend ${id})\n`,
      );
    } else {
      state.nextAt = deps.clock.now().getTime() + retryDelayMs(state.attempts + 1, deps.random());
      const why =
        result.status === undefined ? safeText(result.error ?? 'failed', 80) : `status ${result.status}`;
      stderr.write(
        `warning: delivering ${id} failed (${why}); attempt ${state.attempts} of ${maxAttempts}\n`,
      );
    }
    await write(lines);
  }
}
