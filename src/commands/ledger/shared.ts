/**
 * What `pix ledger`'s verbs share (docs/team.md): the database a profile's ledger names, opened with the
 * driver (loaded only here and by the journal's PostgreSQL store: architecture rule 8), and the URL read
 * from where a secret may come from — the environment, a file or stdin, never argv (contract §5).
 */
import { readFileSync } from 'node:fs';
import { parseLedgerUrl } from '../../config/ledger.js';
import { isLedgerUrl } from '../../config/resolve.js';
import type { Deps } from '../../context.js';
import { InvalidValue } from '../../domain/invalid.js';
import { PixError, usageError } from '../../errors.js';
import type { LedgerTrouble, Pool } from '../../journal/postgres/connect.js';

/** `--url-file FILE` and `--url-stdin`: where `pix ledger init` and `use` read a URL to keep in the profile. */
export const URL_FILE_OPTION = [
  '--url-file <FILE>',
  "read the database's URL from FILE (a secret: never on the command line) and keep it in the profile",
] as const;
export const URL_STDIN_OPTION = [
  '--url-stdin',
  "read the database's URL from stdin and keep it in the profile",
] as const;

/** The URL given to `init` by file or stdin, checked (never echoed), or undefined when neither is given. */
export async function givenUrl(
  deps: Deps,
  options: { urlFile?: string | undefined; urlStdin?: boolean | undefined },
): Promise<string | undefined> {
  if (options.urlFile !== undefined && options.urlStdin) {
    throw usageError('--url-file', 'give --url-file or --url-stdin, not both');
  }
  let text: string | undefined;
  let flag = '--url-stdin';
  if (options.urlFile !== undefined) {
    flag = '--url-file';
    try {
      text = readFileSync(options.urlFile, 'utf8');
    } catch (error) {
      throw usageError(
        '--url-file',
        `cannot read ${options.urlFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  } else if (options.urlStdin) {
    if (deps.io.stdin.isTTY)
      throw usageError('--url-stdin', 'pipe the URL on stdin (it is never typed where it shows)');
    text = (await deps.io.stdin.readAll()).toString('utf8');
  }
  if (text === undefined) return undefined;
  const url = text.trim();
  if (!isLedgerUrl(url)) {
    throw usageError(
      flag,
      'not a postgres:// or postgresql:// URL (the value is not shown: it may hold a password)',
    );
  }
  // Read now, so a URL pix cannot read is exit 2 naming the flag before anything is kept or connected.
  try {
    parseLedgerUrl(url);
  } catch (error) {
    if (error instanceof InvalidValue)
      throw usageError(flag, error.message, 'docs/team.md shows the URL pix takes');
    throw error;
  }
  return url;
}

/** Keeps `url` as the profile's `ledger` (config.json is 0600, as a token is kept). */
export async function keepUrl(deps: Deps, url: string): Promise<string> {
  const name = (await deps.settings()).profile.value;
  const store = await deps.config();
  await store.update((document) => {
    const before = document.profiles[name] ?? {};
    document.profiles[name] = { ...before, ledger: url };
  });
  return name;
}

/** The database of the profile's ledger (or `url`), opened; exit 2 when the profile's ledger is the file. */
export async function openLedgerPool(deps: Deps, url?: string, poolSize?: number): Promise<Pool> {
  const settings = await deps.settings();
  const text = url ?? (settings.ledger.kind === 'postgres' ? settings.ledger.url.value : undefined);
  if (text === undefined) {
    throw usageError(
      'ledger',
      `profile "${settings.profile.value}" keeps its ledger in this config directory (file)`,
      'give a database with `pix ledger init --url-stdin` (or --url-file FILE, or PIX_LEDGER_URL): docs/team.md',
    );
  }
  const { openPool } = await import('../../journal/postgres/connect.js');
  const pool = openPool(text, deps.env, poolSize);
  deps.defer(() => pool.sql.end({ timeout: 5 }).catch(() => {}));
  return pool;
}

/**
 * Exit 6 naming the database (never its URL) when it cannot be reached or refuses, told apart (connect.ts
 * unreachable); `hints`: what this command knows better to say of a kind.
 */
export async function onLedger<T>(
  pool: Pool,
  work: () => Promise<T>,
  hints: Partial<Record<LedgerTrouble, string>> = {},
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PixError) throw error;
    const { unreachable } = await import('../../journal/postgres/connect.js');
    throw unreachable(error, pool, hints);
  }
}
