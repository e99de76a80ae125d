import { parseDuration } from '../../domain/duration.js';
import { InvalidValue } from '../../domain/invalid.js';
import { parseAmount } from '../../domain/money.js';
import { usageError } from '../../errors.js';
import * as z from '../../zod.js';

/** `keyId` → `--key-id`: zod paths are option keys, messages name flags. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * Validates Commander's raw options with a command's zod schema. The first problem becomes a usage
 * error (exit 2) whose message starts with the flag it is about, so nothing is ever sent on bad input.
 * `names` maps option keys to how the user typed them when that is not `--kebab-case` (arguments).
 */
export function parseOptions<S extends z.ZodMiniType>(
  schema: S,
  raw: unknown,
  names: Record<string, string> = {},
): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const key = issue.path.map(String)[0];
  const flag = key === undefined ? undefined : (names[key] ?? flagName(key));
  const hint = issue.code === 'custom' ? (issue.params as { hint?: string } | undefined)?.hint : undefined;
  throw usageError(flag, issue.message, hint);
}

/**
 * A domain parser's refusal (InvalidValue) as a zod issue of the flag, its hint kept for parseOptions.
 * `path`: the option the issue names, when the parser reads the whole options object.
 */
function domainTransform<I, T>(parse: (input: I) => T, path?: string[]) {
  return z.transform((input: I, context): T => {
    try {
      return parse(input);
    } catch (error) {
      if (!(error instanceof InvalidValue)) throw error;
      const params = error.hint === undefined ? {} : { params: { hint: error.hint } };
      context.issues.push({
        code: 'custom',
        message: error.message,
        input,
        ...(path ? { path } : {}),
        ...params,
      });
      return z.NEVER;
    }
  });
}

/**
 * A domain parser over options already parsed (a value read with the help of another flag, such as a key
 * with `--key-type`): its refusal is the issue of the option `key` names.
 */
export function fromDomainOptions<I, T>(key: string, parse: (options: I) => T) {
  return domainTransform(parse, [key]);
}

/**
 * Turns a domain parser (which throws InvalidValue with a reason) into a zod transform, so flag
 * schemas reuse the one implementation of each rule; the refusal's hint rides along to parseOptions.
 */
export function fromDomain<T>(parse: (text: string) => T) {
  return z.pipe(z.string(), domainTransform(parse));
}

/** The same for a JSON number (a field of a `--body` request). */
export function fromDomainNumber<T>(parse: (value: number) => T) {
  return z.pipe(z.number(), domainTransform(parse));
}

export const amountFlag = fromDomain(parseAmount);
export const durationFlag = fromDomain(parseDuration);

/** How far back the statement guard looks (pay key|qr|batch): a duration, or `0` to look nowhere. */
export const DEFAULT_DUPLICATE_WINDOW_MS = 24 * 3_600_000;
export const duplicateWindowFlag = fromDomain((text) =>
  text.trim() === '0' ? 0 : parseDuration(text).milliseconds,
);

/** A whole number typed as text, at least `min`. */
export function integerFlag(min: number) {
  return fromDomain((text) => {
    if (!/^\d+$/.test(text.trim())) throw new InvalidValue(`"${text}" is not a whole number`);
    const value = Number(text);
    if (value < min) throw new InvalidValue(`must be at least ${min}`);
    return value;
  });
}

/** Commander's accumulator of a repeatable flag. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
