/**
 * What is new in the statement since it was last read, for a live view (`pix statement --follow`, `pix
 * listen`): the entries in order of time, the ids already seen, and one read of the window since then.
 */
import type { ApiClient } from '../../api/client.js';
import { type StatementEntry, statementWindow } from '../../api/resources/statement.js';
import { nowOnBothClocks, SKEW_MARGIN_MS } from './clocks.js';

/** Ids remembered to recognise entries already printed (the newest; far more than a page). */
const REMEMBERED = 10_000;

/** Oldest first by `confirmedAt`; entries of the same instant keep the order given. */
export function oldestFirst(entries: readonly StatementEntry[]): StatementEntry[] {
  const time = (entry: StatementEntry) => {
    const ms = Date.parse(entry.confirmedAt);
    return Number.isNaN(ms) ? 0 : ms;
  };
  return entries
    .map((entry, index) => ({ entry, index, ms: time(entry) }))
    .sort((a, b) => a.ms - b.ms || a.index - b.index)
    .map(({ entry }) => entry);
}

/**
 * The ids already seen, the newest REMEMBERED of them (insertion order is age): what a live view needs
 * to tell new from seen without a set that grows for as long as it runs (`--follow`, pix listen).
 */
export class RecentIds {
  private readonly ids = new Set<string>();
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > REMEMBERED) this.ids.delete(this.ids.values().next().value!);
  }
}

/** Newest first by `confirmedAt`; entries of the same instant keep the order given. */
export function newestFirst(entries: readonly StatementEntry[]): StatementEntry[] {
  return oldestFirst([...entries].reverse()).reverse();
}

/**
 * The entries not seen before, newest first, from `since` (ms: the earlier clock's time when the statement
 * was read before, shared/clocks.ts) on: the window from `since` less SKEW_MARGIN_MS to the later clock
 * plus that margin, read whole through the pager (a read that is not whole is exit 6 for this poll, and the
 * next reads from the same `since`). By time, not by offset: the order the server lists entries in is not
 * shown (API §4), and entries a server shows a little after the time they carry are still in the window.
 * `readAt`: what `since` is for the next read.
 */
export async function newEntries(
  client: ApiClient,
  seen: { has(id: string): boolean; add(id: string): void },
  since: number,
): Promise<{ fresh: StatementEntry[]; readAt: number }> {
  const { early, late } = nowOnBothClocks(client);
  const window = await statementWindow(
    client,
    new Date(since - SKEW_MARGIN_MS),
    new Date(late + SKEW_MARGIN_MS),
    { consequence: 'the next poll reads it again' },
  );
  const fresh: StatementEntry[] = [];
  for (const entry of oldestFirst(window)) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    fresh.push(entry);
  }
  return { fresh: fresh.reverse(), readAt: early };
}
