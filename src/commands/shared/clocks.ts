/**
 * The two clocks a read of the statement is judged by (docs/reliability.md, "Clocks"): the account's (the
 * sandbox's when the API is the sandbox, else this machine's) and the server's, as the Date of its
 * answers tells it (api/client.ts serverTime). Neither is trusted over the other: a window of the
 * statement is read from the earlier, less SKEW_MARGIN_MS, to the later, plus SKEW_MARGIN_MS.
 */
import type { ApiClient } from '../../api/client.js';

/**
 * How far a window of the statement is read past what the two clocks make of it, on both sides: a server
 * that sends no Date (or one a proxy rewrote), the Date's whole seconds, entries a server shows a little
 * after the time they carry, and the time between reading the clocks and reading the statement.
 */
export const SKEW_MARGIN_MS = 5 * 60_000;

/** Now, as the account's clock and the server's say it (ms): the earlier and the later of the two. */
export function nowOnBothClocks(client: ApiClient): { early: number; late: number } {
  const account = client.clock.now().getTime();
  const server = client.serverTime()?.getTime() ?? account;
  return { early: Math.min(account, server), late: Math.max(account, server) };
}
