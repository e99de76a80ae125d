import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** Directories made outside a test (at a file's top level, in beforeAll): removed after the file (test/setup.ts). */
const leftForTheFile: string[] = [];

function remove(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * A fresh directory under the system's temporary folder, removed when the test that made it finishes, or,
 * made outside a test, when its file's tests are done: a run leaves nothing in /tmp.
 */
export function tempDir(prefix = 'pix-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    onTestFinished(() => remove(dir));
  } catch {
    // Not inside a running test.
    leftForTheFile.push(dir);
  }
  return dir;
}

/** Removes the directories made outside a test (test/setup.ts, after all of a file's tests). */
export function removeFileTempDirs(): void {
  for (const dir of leftForTheFile.splice(0)) remove(dir);
}
