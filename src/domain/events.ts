/**
 * `pix listen`'s events, pure: what an event is, its deterministic id and body, the signature receivers
 * check (Stripe's scheme), and the retry schedule. The log they are kept in is domain/event-log.ts.
 *
 * An event is made from a source record, and everything in it comes from that record: its id from the
 * account and the record (never from a URL's spelling or a profile's name), `created` from the time the
 * record gives (a statement entry's confirmedAt, a journal line's time, a charge's match or expiry), never
 * from the clock of the pix that made it. So the same fact is the same event, byte for byte, whoever makes
 * it and however often.
 */
import { createHash, createHmac } from 'node:crypto';

export type EventType =
  | 'entry.income'
  | 'entry.outcome'
  | 'charge.paid'
  | 'charge.expired'
  | 'payment.sent'
  | 'payment.unknown'
  | 'payment.resolved'
  | 'schedule.paid'
  | 'schedule.failed'
  | 'schedule.held'
  | 'schedule.missed';

export type RecordEventType = Exclude<EventType, 'entry.income' | 'entry.outcome'>;

export interface PixEvent {
  id: string;
  type: EventType;
  /** ISO 8601: when the fact happened, as its source record says. */
  created: string;
  profile: string;
  /**
   * The statement entry as `pix statement --json` shows it; the charge as `pix charge show --json`; the
   * payment as `pix journal show --json`.
   */
  data: Record<string, unknown>;
}

/** Who makes an event: the account it is of (journal/accounts.ts id) and the profile listening to it. */
export interface EventContext {
  account: string;
  profile: string;
}

/**
 * `evt_` and 24 hex of SHA-256 over a scope, the source and its id: the same fact, the same id, always.
 * The scope is the account's id; events made by earlier versions used the base URL (legacyEventIds).
 */
export function eventId(scope: string, source: string, id: string): string {
  return `evt_${createHash('sha256').update(`${scope}\n${source}\n${id}`).digest('hex').slice(0, 24)}`;
}

/** A time as the source gave it: ISO 8601 (UTC) when it is one, else the text itself (still the source's). */
export function sourceTime(text: string): string {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : new Date(ms).toISOString();
}

export function entryEvent(
  entry: { id: string; type: string; confirmedAt: string } & Record<string, unknown>,
  context: EventContext,
): PixEvent {
  return {
    id: eventId(context.account, 'entry', entry.id),
    type: entry.type === 'OUTCOME' ? 'entry.outcome' : 'entry.income',
    created: sourceTime(entry.confirmedAt),
    profile: context.profile,
    data: entry,
  };
}

/**
 * An event of a fact pix records itself (a charge paid or expired, a payment sent, unknown or resolved):
 * its id from the source record and the transition, its `created` the time the record gives that
 * transition, so it is made once, and alike, whatever restarts.
 */
export function recordEvent(
  type: RecordEventType,
  source: { id: string; at: string; data: Record<string, unknown> },
  context: EventContext,
): PixEvent {
  return {
    id: eventId(context.account, type, source.id),
    type,
    created: sourceTime(source.at),
    profile: context.profile,
    data: source.data,
  };
}

/**
 * The ids earlier versions gave the same fact (scoped by the base URL, in each spelling the account was
 * reached by): an event log they wrote may hold them, and what it holds was already made.
 */
export function legacyEventIds(baseUrls: readonly string[], source: string, id: string): string[] {
  return baseUrls.map((baseUrl) => eventId(baseUrl, source, id));
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
