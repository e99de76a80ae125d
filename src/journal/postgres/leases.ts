/**
 * A claim that cannot be outlived (docs/team.md, "A pause"): the leases of the claims this process holds on
 * the shared ledger, and the rule that it sends only while its claim is certainly its own.
 *
 * - A claim's lease is stamped by the database (`lease_beat = now()`, when the claim commits and at every
 *   heartbeat); another machine holds it dead once LEASE_TTL_MS have passed on the database's clock since.
 * - This process measures its lease from the moment it SENT the stamp that the database confirmed, on a
 *   monotonic clock: never later than the stamp itself. Just before the transfer request it checks that
 *   less than LEASE_TTL_MS − SEND_MARGIN_MS have passed since (checkSend); otherwise it could have been
 *   paused past its lease (SIGSTOP, a suspended laptop, a frozen VM) and another machine may have taken the
 *   row as unknown and had it resolved: it stops without sending (ClaimLapsed), the row left as it is.
 * - A heartbeat renews only a lease that has not lapsed on the database's clock, of a row still `sending`,
 *   unresolved and held by this process: a process waking from a pause never revives its claim.
 * - Each stamp also sets the claim's send deadline (`send_deadline`): the lease's end, plus this process's
 *   request timeout (a request that left before the lease's end may arrive until then), plus the margin.
 *   No one resolves the row as not paid before it (commands/journal/resolve.ts).
 */
import { PixError } from '../../errors.js';
import { shortId } from '../entries.js';
import type { Sql } from './connect.js';

/** How often a live claim's lease is beaten, and how long one that stopped beating stays "in progress". */
export const LEASE_BEAT_MS = 5_000;
export const LEASE_TTL_MS = 30_000;
/** What a claimant keeps back from its lease's end before sending, and what a deadline adds after. */
export const SEND_MARGIN_MS = 5_000;

/** Exit 8: the claim could have lapsed before its transfer was sent; nothing was sent. */
export class ClaimLapsed extends PixError {
  constructor(
    readonly entryId: string,
    elapsedMs: number,
  ) {
    super(
      'declined',
      `journal entry ${shortId(entryId)} was not sent: ${Math.round(elapsedMs / 1000)} s passed since its claim on the shared ledger was last confirmed (pix was paused or starved?), so another machine may hold it as unknown; nothing was sent`,
      {
        hint: `once its send deadline has passed (\`pix journal resolve ${shortId(entryId)} --not-paid\` says when), resolve it not paid and pay it again`,
      },
    );
    this.name = 'ClaimLapsed';
  }
}

export interface Leases {
  /** A claim just stamped: `sentAt` is when the stamp was sent (the monotonic clock). */
  take(id: string, sentAt: number): void;
  /** The claim's outcome is being recorded: its lease ends. */
  drop(id: string): void;
  /** Throws ClaimLapsed unless the claim of entry `id` (if this process holds one) is certainly its own. */
  checkSend(id: string): void;
  /** One heartbeat (the timer's; a test's). */
  beat(): Promise<void>;
  close(): void;
}

/** The SQL of the send deadline from now, for a row whose lease_timeout_ms is its claimant's timeout. */
export const DEADLINE_FROM_NOW = `now() + (${LEASE_TTL_MS + SEND_MARGIN_MS} + coalesce(lease_timeout_ms, 0)) * interval '1 millisecond'`;

export function createLeases(
  sql: Sql,
  holder: { host: string; pid: number },
  monotonic: () => number,
): Leases {
  /** Entry id → when the last stamp the database confirmed was sent. */
  const confirmed = new Map<string, number>();
  let beating: ReturnType<typeof setInterval> | undefined;

  const beat = async () => {
    if (confirmed.size === 0) return;
    const sentAt = monotonic();
    try {
      const renewed = await sql.unsafe(
        `UPDATE pix_journal SET lease_beat = now(), send_deadline = ${DEADLINE_FROM_NOW}
         WHERE id = ANY($1::text[]) AND state = 'sending' AND resolution IS NULL
           AND lease_host = $2 AND lease_pid = $3 AND now() - lease_beat < $4::interval
         RETURNING id`,
        [[...confirmed.keys()], holder.host, holder.pid, `${LEASE_TTL_MS} milliseconds`],
      );
      for (const row of renewed) {
        const id = String(row.id);
        if (confirmed.has(id)) confirmed.set(id, Math.max(confirmed.get(id)!, sentAt));
      }
    } catch {
      // The database lost: the lease stops beating, so other machines come to hold these as unknown.
    }
  };

  return {
    take(id, sentAt) {
      confirmed.set(id, sentAt);
      beating ??= setInterval(() => void beat(), LEASE_BEAT_MS);
      // A lease never keeps a finished command alive.
      beating.unref?.();
    },
    drop: (id) => {
      confirmed.delete(id);
    },
    checkSend(id) {
      const at = confirmed.get(id);
      if (at === undefined) return;
      const elapsed = monotonic() - at;
      if (elapsed < LEASE_TTL_MS - SEND_MARGIN_MS) return;
      // Never sent, never beaten again: the row stays as the ledger has it, for its holders to judge.
      confirmed.delete(id);
      throw new ClaimLapsed(id, elapsed);
    },
    beat,
    close() {
      if (beating !== undefined) clearInterval(beating);
      confirmed.clear();
    },
  };
}
