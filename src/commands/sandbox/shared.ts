import type { Deps } from '../../context.js';
import { PixError } from '../../errors.js';
import { jsonDocument } from '../../output/format.js';
import { loadAccount, loadPaths, loadStore } from '../../sandbox/index.js';
import * as z from '../../zod.js';

/** `--state FILE`, which every verb but batch-file takes. */
export const stateFlag = z.optional(z.string().check(z.minLength(1, 'a file path is required')));

export const stateOption = [
  '--state <file>',
  'state file (default: <config dir>/sandbox-state.json)',
] as const;

export async function openStore(deps: Deps, file: string | undefined) {
  const [{ StateStore }, { defaultStateFile }] = await Promise.all([loadStore(), loadPaths()]);
  return new StateStore(file ?? defaultStateFile(deps.env), { host: deps });
}

/**
 * The sandbox's own refusals and state problems, as the contract's error kinds; `words` names what a 404
 * and a refusal are about (a charge, unless said).
 */
export async function translate<T>(
  work: () => Promise<T>,
  words = { notFound: 'charge not found', refused: 'charge cannot be paid' },
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // Loaded only on failure: reset, clock and seed never need the account module otherwise.
    const [{ ApiFailure }, { StateError }] = await Promise.all([loadAccount(), loadStore()]);
    if (error instanceof ApiFailure) {
      const failure = error;
      const kind = failure.status === 404 ? 'not_found' : 'rejected';
      throw new PixError(kind, failure.status === 404 ? words.notFound : words.refused, {
        status: failure.status,
        serverMessage: failure.message,
        server: { message: failure.message, code: failure.code },
      });
    }
    if (error instanceof StateError) {
      throw new PixError('unavailable', error.message, {
        hint: 'run `pix sandbox reset` to start a fresh account',
      });
    }
    throw error;
  }
}

export function writeJson(deps: Deps, value: unknown): void {
  deps.io.stdout.write(jsonDocument(value, deps.io.stdout.isTTY));
}
