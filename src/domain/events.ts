/**
 * `pix listen`'s events and their delivery log, pure: what an event is, its deterministic id, the
 * signature receivers check (Stripe's scheme), the retry schedule, and the state a log of lines adds up to.
 *
 * The log (`<config dir>/events/<account>.jsonl`, one per profile and API) is append-only: an `event` line
 * when an event is made, an `attempt` line per delivery, `delivered` or `dead` when it ends, `resend` to
 * deliver a dead one again, and `seen` for statement entries that were there before the first listen (not
 * events). Replaying it after a stop or a kill gives back every event still owed: at least once, never lost.
 */
import { createHash, createHmac } from 'node:crypto';

export type EventType =
  | 'entry.income'
  | 'entry.outcome'
  | 'charge.paid'
  | 'charge.expired'
  | 'payment.sent'
  | 'payment.unknown'
  | 'payment.resolved';

export interface PixEvent {
  id: string;
  type: EventType;
  /** ISO 8601: when pix made the event. */
  created: string;
  profile: string;
  /**
   * The statement entry as `pix statement --json` shows it; the charge as `pix charge show --json`; the
   * payment as `pix journal show --json`.
   */
  data: Record<string, unknown>;
}

export type LogLine =
  | { t: 'event'; event: PixEvent }
  | { t: 'attempt'; id: string; at: string; ok: boolean; status?: number; error?: string }
  | { t: 'delivered'; id: string; at: string }
  | { t: 'dead'; id: string; at: string }
  | { t: 'resend'; id: string; at: string }
  | { t: 'seen'; ids: string[] };

export interface EventState {
  event: PixEvent;
  attempts: number;
  state: 'pending' | 'delivered' | 'dead';
  lastError?: string;
  /** When the next attempt may start (ms), for a pending event that failed before. */
  nextAt: number;
}

/** `evt_` and 24 hex of SHA-256 over the API, the source and its id: the same fact, the same id, always. */
export function eventId(baseUrl: string, source: string, id: string): string {
  return `evt_${createHash('sha256').update(`${baseUrl}\n${source}\n${id}`).digest('hex').slice(0, 24)}`;
}

export function entryEvent(
  entry: { id: string; type: string } & Record<string, unknown>,
  context: { baseUrl: string; profile: string; now: Date },
): PixEvent {
  return {
    id: eventId(context.baseUrl, 'entry', entry.id),
    type: entry.type === 'OUTCOME' ? 'entry.outcome' : 'entry.income',
    created: context.now.toISOString(),
    profile: context.profile,
    data: entry,
  };
}

/**
 * An event of a fact pix records itself (a charge paid or expired, a payment sent, unknown or resolved):
 * its id from the source record and the transition, so it is made once whatever restarts.
 */
export function recordEvent(
  type: Exclude<EventType, 'entry.income' | 'entry.outcome'>,
  sourceId: string,
  data: Record<string, unknown>,
  context: { baseUrl: string; profile: string; now: Date },
): PixEvent {
  return {
    id: eventId(context.baseUrl, type, sourceId),
    type,
    created: context.now.toISOString(),
    profile: context.profile,
    data,
  };
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: Stripe's `Stripe-Signature` scheme. */
export function signature(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/** The wait before attempt `attempt` (2, 3, …): 1 s doubling up to 5 minutes, with ±20 % jitter. */
export function retryDelayMs(attempt: number, random: number): number {
  const base = Math.min(300_000, 1000 * 2 ** Math.max(0, attempt - 2));
  return Math.round(base * (0.8 + 0.4 * random));
}

/** What one delivery adds to the log: its attempt, and `delivered` when it succeeded. */
export function attemptLines(
  id: string,
  at: string,
  result: { ok: boolean; status?: number | undefined; error?: string | undefined },
): LogLine[] {
  const attempt: LogLine = {
    t: 'attempt',
    id,
    at,
    ok: result.ok,
    ...(result.status === undefined ? {} : { status: result.status }),
    ...(result.error === undefined ? {} : { error: result.error }),
  };
  return result.ok ? [attempt, { t: 'delivered', id, at }] : [attempt];
}

/** The log's lines (a torn or unreadable line is skipped: its event is made again from the statement). */
export function parseLog(text: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as LogLine;
      if (value && typeof value === 'object' && typeof value.t === 'string') lines.push(value);
    } catch {
      // torn by a kill mid-write
    }
  }
  return lines;
}

/** What the log adds up to: every event in the order made, and the statement entries already accounted for. */
export function replay(lines: readonly LogLine[]): { events: Map<string, EventState>; seen: Set<string> } {
  const events = new Map<string, EventState>();
  const seen = new Set<string>();
  for (const line of lines) {
    switch (line.t) {
      case 'event':
        if (!events.has(line.event.id)) {
          events.set(line.event.id, { event: line.event, attempts: 0, state: 'pending', nextAt: 0 });
        }
        if (typeof line.event.data.id === 'string') seen.add(line.event.data.id);
        break;
      case 'seen':
        for (const id of line.ids) seen.add(id);
        break;
      case 'attempt': {
        const known = events.get(line.id);
        if (known) {
          known.attempts++;
          if (!line.ok && line.error !== undefined) known.lastError = line.error;
        }
        break;
      }
      case 'delivered':
      case 'dead': {
        const known = events.get(line.id);
        if (known) known.state = line.t;
        break;
      }
      case 'resend': {
        const known = events.get(line.id);
        if (known) {
          known.state = 'pending';
          known.attempts = 0;
        }
        break;
      }
    }
  }
  return { events, seen };
}
