/**
 * What both of `pix listen`'s stores (stores.ts) share: where the listener had got to (the checkpoint
 * of the file log without the log's own counts), how a run starts from it, and the error of a listener that
 * is no longer the active one.
 */
import type { Checkpoint } from '../domain/event-log.js';
import { PixError } from '../errors.js';

/**
 * The listener lost the account's lock (another may be active now): it stops (exit 6) rather than write or
 * poll again; never a warning to try again after.
 */
export class ListenerLockLost extends PixError {
  constructor(message: string, hint: string) {
    super('unavailable', message, { hint });
  }
}

/** Where the listener had got to: the checkpoint without the file log's own counts. */
export type Cursor = Omit<Checkpoint, 'version' | 'log'>;

/** How a run starts: its first, an earlier version's log adopted, or where the last run stopped. */
export type Start =
  | { kind: 'first'; since?: number }
  | { kind: 'adopt' }
  | { kind: 'resume'; cursor: Cursor };

/** Whether the cursor moved: a first run's marker, the journal read further, newer statement entries. */
export function moved(before: Cursor, next: Cursor): boolean {
  return (
    next.catchUp !== undefined ||
    before.catchUp !== undefined ||
    next.journal?.offset !== before.journal?.offset ||
    next.journal?.identity !== before.journal?.identity ||
    next.statement.recent.join() !== before.statement.recent.join()
  );
}

/** How a run starts from the cursor the last one left. */
export function startOfCursor(cursor: Cursor): Start {
  const { catchUp } = cursor;
  if (catchUp === undefined) return { kind: 'resume', cursor };
  return catchUp.legacy ? { kind: 'adopt' } : { kind: 'first', since: Date.parse(catchUp.since) };
}
