/**
 * This machine as pix reads it: the clock, randomness, this process's id and whether another's is alive,
 * timers. With main.ts and output/iostreams.ts the only module that touches them (architecture rule 2):
 * the composition root (src/wiring.ts) puts them in every command's context, and code below the commands
 * is handed them (storage/locks.ts LockHost), so tests can give their own.
 */
import type { Clock, Processes } from './context.js';

export interface System {
  clock: Clock;
  random(): number;
  processes: Processes;
  /** Waits `ms`; ends at once when `signal` aborts (a stopped process has no timer left to wait on). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Milliseconds on a clock that only moves forward, at the rate time passes (a stopped or suspended
   * process sees it jump): what a claim's lease is measured by (journal/postgres/store.ts).
   */
  monotonic(): number;
  /** Stops this process as SIGSTOP would (a test's reproduction of a pause: PIX_TEST_STOP_AT). */
  stopSelf(): void;
}

export const SYSTEM: System = {
  clock: { now: () => new Date() },
  random: Math.random,
  processes: {
    pid: process.pid,
    // Signal 0 tests a process without touching it; EPERM means it runs under another user.
    alive(pid) {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
  },
  monotonic: () => performance.now(),
  stopSelf: () => {
    process.kill(process.pid, 'SIGSTOP');
  },
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', stop);
        resolve();
      }, ms);
      signal?.addEventListener('abort', stop, { once: true });
    }),
};
