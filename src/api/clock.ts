/**
 * The account's clock: the time the charge ledger reads expiry and the statement's window by. Against
 * the real API it is this machine's clock. The sandbox keeps a clock of its own, which `pix sandbox
 * clock` moves, and stamps each answer with it (SANDBOX_TIME_HEADER); an answer from the sandbox — the
 * embedded one, or `pix sandbox serve` on a loopback address — sets the account's clock to the
 * sandbox's, kept as an offset from the local clock so it runs on between answers. A header from any
 * other host is ignored: a remote server does not move the clock pix judges expiry by.
 */
import type { Clock } from '../context.js';

/** The sandbox's time when it answered (ISO 8601). */
export const SANDBOX_TIME_HEADER = 'x-pix-sandbox-time';

export interface AccountClock extends Clock {
  /** Reads the sandbox's time from an answer's headers (names in lower case). */
  observe(headers: Readonly<Record<string, string | string[] | undefined>>): void;
}

/** `trusted`: the API is the sandbox (embedded, or on a loopback address). */
export function createAccountClock(local: Clock, trusted: boolean): AccountClock {
  let offsetMs = 0;
  return {
    now: () => new Date(local.now().getTime() + offsetMs),
    observe(headers) {
      if (!trusted) return;
      const value = headers[SANDBOX_TIME_HEADER];
      const ms = Date.parse(String(Array.isArray(value) ? value[0] : (value ?? '')));
      if (Number.isFinite(ms)) offsetMs = ms - local.now().getTime();
    },
  };
}
