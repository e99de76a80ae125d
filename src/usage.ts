import { InvalidValue } from './domain/invalid.js';
import { usageError } from './errors.js';

/**
 * Runs a domain parser on a value that came from `where` (a flag, an argument, a profile key): its refusal
 * (InvalidValue, a reason alone) becomes a usage error naming where the value came from, with the
 * refusal's own hint unless the caller gives one.
 */
export function asUsage<T>(where: string, parse: () => T, hint?: string): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError(where, error.message, hint ?? error.hint);
    throw error;
  }
}

/** `asUsage` for a parser that reads as it goes (a workbook): its refusal, once awaited, is a usage error. */
export async function asUsageAwait<T>(where: string, parse: () => Promise<T>, hint?: string): Promise<T> {
  try {
    return await parse();
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError(where, error.message, hint ?? error.hint);
    throw error;
  }
}
