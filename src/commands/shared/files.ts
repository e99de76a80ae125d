/**
 * Files the operator hands a command (`pix pay batch FILE`, `pix reconcile --expected FILE`): read whole
 * (`-` is stdin), and the refusal of one whose rows have problems — the first 20 on stderr, each naming
 * its line or cell, then exit 2 (contract §4).
 */
import { readFile } from 'node:fs/promises';
import type { Deps } from '../../context.js';
import { type BatchProblem, formatProblem } from '../../domain/batch.js';
import { describeSystemError, usageError } from '../../errors.js';
import { safeText } from '../../output/sanitize.js';

/** How many problems of a file are listed on stderr. */
export const SHOWN_PROBLEMS = 20;

/** The file as errors name it: its path as given, `stdin` for `-`. */
export function fileName(file: string): string {
  return file === '-' ? 'stdin' : file;
}

/**
 * The bytes of `file` (`-`: stdin), for every command that takes a file or `-` (a batch, an ERP's export, a
 * charge's body, an API request's body or field): one that cannot be read, or an empty stdin, is exit 2
 * naming the flag that gave it (`--body: cannot open x.json: …`) or, for an argument, the file itself.
 */
export async function readInputFile(file: string, deps: Deps, what: string, flag?: string): Promise<Buffer> {
  const subject = flag ?? fileName(file);
  if (file === '-') {
    const bytes = await deps.io.stdin.readAll();
    if (bytes.toString('utf8').trim() === '')
      throw usageError(subject, `nothing on stdin: pipe ${what}, or give its path`);
    return bytes;
  }
  try {
    return await readFile(file);
  } catch (error) {
    const system = describeSystemError(error);
    const message = system?.message ?? `cannot read ${file}: ${String(error)}`;
    throw usageError(subject, flag ? message : message.replace(` ${file}:`, ' it:'));
  }
}

/** Up to 20 problems on stderr (the file's own text sanitized), then exit 2: `what`, and nothing was done. */
export function refuseFile(
  deps: Deps,
  file: string,
  problems: readonly BatchProblem[],
  what: string,
  hint: string,
  nothing = 'nothing was sent',
): never {
  for (const problem of problems.slice(0, SHOWN_PROBLEMS)) {
    deps.io.stderr.write(`  ${safeText(formatProblem(problem), 300)}\n`);
  }
  if (problems.length > SHOWN_PROBLEMS) {
    deps.io.stderr.write(`  … and ${problems.length - SHOWN_PROBLEMS} more\n`);
  }
  const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
  throw usageError(fileName(file), `${what}: ${count}; ${nothing}`, hint);
}
