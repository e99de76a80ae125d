/**
 * The account's clock when the API is the sandbox: the time the charge ledger reads expiry and the
 * statement's window by. The sandbox keeps a clock of its own, which `pix sandbox clock` moves, and stamps
 * each answer with it (SANDBOX_TIME_HEADER); an answer from the sandbox — the embedded one, or `pix sandbox
 * serve` on a loopback address — sets the account's clock to the sandbox's, kept as an offset from the local
 * clock so it runs on between answers. The composition root (src/wiring.ts) decides when the API is one it
 * believes, and then hands the API client this clock and a transport that reads the header (`followClock`):
 * api/ knows no sandbox. Against any other API the account's clock is this machine's.
 */
import type { ApiTransport } from '../api/transport.js';
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

/** The sandbox's clock, and what makes a transport's answers set it as soon as their headers arrive. */
export function followClock(local: Clock): { clock: Clock; follow(transport: ApiTransport): ApiTransport } {
  const clock = createAccountClock(local, true);
  return {
    clock,
    follow: (transport) => ({
      async request(options) {
        const response = await transport.request(options);
        clock.observe(response.headers);
        return response;
      },
    }),
  };
}
