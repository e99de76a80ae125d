/**
 * What the list commands (`pix statement`, `pix keys`) share about pages: the largest `--limit` pix asks
 * for, and the command line of the next page, which keeps every flag the user gave.
 */
import { DEFAULT_TIMEOUT_MS, type Env, type GlobalOptions } from '../../context.js';
import { InvalidValue } from '../../domain/invalid.js';
import { fromDomain } from './flags.js';

/**
 * The most records one page of pix holds (`--limit`). The API document gives no maximum (its default is
 * 10): the page is read 100 records a request, or fewer if the server takes fewer (api/pager.ts), and a
 * page of 1000 statement entries is already more than a terminal shows. A larger `--limit` is refused
 * before anything is sent rather than capped, so a script never gets fewer records than it asked for
 * without knowing; `--all` reads everything, in pages.
 */
export const MAX_PAGE = 1000;

/** `--limit N`: a whole number from 1 to MAX_PAGE. */
export const limitFlag = fromDomain((text) => {
  if (!/^\d+$/.test(text.trim())) throw new InvalidValue(`"${text}" is not a whole number`);
  const value = Number(text);
  if (value < 1) throw new InvalidValue('must be at least 1');
  if (value > MAX_PAGE) {
    throw new InvalidValue(
      `${value} is more than ${MAX_PAGE}, the most pix shows in one page`,
      'to read everything, use --all: it fetches every page, several at a time',
    );
  }
  return value;
});

/** A word as a POSIX shell reads it back: bare when that is safe, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** `30000` ms → `30s`, `120000` → `2m`: the largest unit of `--timeout` that says it exactly. */
function durationWord(milliseconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const) {
    if (milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${Math.ceil(milliseconds / 1000)}s`;
}

/**
 * The words that run pix again where the person is: `npx pix` when npm ran this one for `npx pix` or
 * `npm exec pix` (npm sets npm_command=exec in what it runs; both are `npx pix` again, which works inside
 * a clone or a project that has pix as a dependency, where a bare `pix` is not on PATH), else `pix`.
 * Other ways in (`npm run`, `node bin/pix.js`) cannot be told apart from an installed pix by what the
 * process sees, so they get `pix`.
 */
export function invokedAs(env: Env): string[] {
  return env.npm_command === 'exec' ? ['npx', 'pix'] : ['pix'];
}

/**
 * The global flags the user gave that shape a list page: the profile, the base URL, the output format,
 * the timeout, verbosity, colour, `--wide` and `--no-pager` (`--jq` as given, which is `--json` too;
 * `--fields` as given, with the format it was asked in). (Flags for confirmations and prompts do
 * nothing to a list; `--output-file` is left out: the same file again would replace the page before.)
 */
function globalWords(globals: GlobalOptions): string[] {
  const words: string[] = [];
  if (globals.profile !== undefined) words.push('-p', globals.profile);
  if (globals.baseUrl !== undefined) words.push('--base-url', globals.baseUrl);
  if (globals.jq !== undefined) words.push('--jq', globals.jq);
  else if (globals.json) words.push('--json');
  else if (globals.fieldsFormat !== undefined) words.push('-o', globals.fieldsFormat);
  else if (globals.output !== undefined) words.push('-o', globals.output);
  if (globals.fields !== undefined) words.push('--fields', globals.fields.join(','));
  if (globals.timeoutMs !== DEFAULT_TIMEOUT_MS) words.push('--timeout', durationWord(globals.timeoutMs));
  if (globals.verbose) words.push('-v');
  if (!globals.color) words.push('--no-color');
  if (globals.wide) words.push('--wide');
  if (!globals.pager) words.push('--no-pager');
  return words;
}

/**
 * The shell command of the next page: pix as it was invoked (`pix`, `npx pix`: invokedAs), the command's
 * own words and flags (`statement --month 2025-01`), then the global flags the user gave, `--limit` unless
 * it is the default, and `--offset`. Every word is shell-quoted, so the line can be pasted as it is.
 */
export function nextPageCommand(
  command: string[],
  globals: GlobalOptions,
  page: { limit: number; defaultLimit: number; offset: number },
  env: Env,
): string {
  const words = [...invokedAs(env), ...command, ...globalWords(globals)];
  if (page.limit !== page.defaultLimit) words.push('--limit', String(page.limit));
  words.push('--offset', String(page.offset));
  return words.map(shellWord).join(' ');
}
