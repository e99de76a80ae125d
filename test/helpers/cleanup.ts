import { afterEach } from 'vitest';
import { tempConfigDir } from './cli.js';

export interface Deferred {
  /** Work to undo after the test (a server to close, a child to kill), run last first. */
  defer(cleanup: () => unknown): void;
  /** A fresh, empty directory (`tempConfigDir`), removed after the test. */
  dir(): string;
}

/**
 * What each test of a file leaves behind, undone after it, last first: a server is closed before the
 * directory it wrote in is removed. Call once at the top of the file.
 */
export function deferEach(): Deferred {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const defer = (cleanup: () => unknown) => {
    cleanups.push(cleanup);
  };
  return {
    defer,
    // Removed after the test by tempConfigDir itself (helpers/temp.ts).
    dir: tempConfigDir,
  };
}
