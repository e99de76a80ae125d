/**
 * `pix ledger use --url-stdin | --url-file FILE`: keeps a shared ledger's URL in the profile (config.json,
 * 0600, as a token is kept) without creating or changing anything in the database — what every machine but
 * the schema owner's runs (docs/team.md: least privilege). It checks first that the URL reads, that the
 * role can log in, that pix's schema is there at a version this pix knows, and that the role can read the
 * tables of that version: a URL that would only fail at the first payment is refused now, told apart
 * (login, grant, schema, database, server: journal/postgres/connect.ts unreachable).
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { PixError, usageError } from '../../errors.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { givenUrl, keepUrl, onLedger, openLedgerPool, URL_FILE_OPTION, URL_STDIN_OPTION } from './shared.js';

const useOptionsSchema = z.object({
  urlFile: z.optional(z.string().check(z.minLength(1))),
  urlStdin: z._default(z.boolean(), false),
});

export type LedgerUseOptions = z.output<typeof useOptionsSchema>;

/** The tables a schema version has, which a role pix runs as must be able to read. */
const TABLES: ReadonlyArray<[version: number, table: string]> = [
  [1, 'pix_journal'],
  [2, 'pix_events'],
  [2, 'pix_event_attempts'],
  [2, 'pix_listen'],
  [3, 'pix_accounts'],
  [3, 'pix_account_names'],
  [3, 'pix_account_credentials'],
  [3, 'pix_closes'],
  [4, 'pix_verdicts'],
  [4, 'pix_policies'],
  [5, 'pix_schedules'],
];

export async function runLedgerUse(options: LedgerUseOptions, deps: Deps): Promise<void> {
  const url = await givenUrl(deps, options);
  if (url === undefined)
    throw usageError(undefined, 'give the URL on stdin (--url-stdin) or in a file (--url-file FILE)');
  const pool = await openLedgerPool(deps, url, 1);
  const { schemaVersion } = await import('../../journal/postgres/store.js');
  const { SCHEMA_VERSION, NewerSchema } = await import('../../journal/postgres/schema.js');
  const version = await onLedger(pool, async () => {
    const found = await schemaVersion(pool.sql);
    for (const [since, table] of TABLES) {
      // Reads nothing (LIMIT 0): whether the role may, as a payment will.
      if (found !== undefined && found >= since) await pool.sql.unsafe(`SELECT 1 FROM ${table} LIMIT 0`);
    }
    return found;
  });
  if (version === undefined || version === 0) {
    throw new PixError('unavailable', `the shared ledger ${pool.where} has no pix schema; nothing was kept`, {
      hint: "the schema's owner runs `pix ledger init` once (docs/team.md), then `pix ledger use` here again",
    });
  }
  if (version > SCHEMA_VERSION) throw new NewerSchema(version, `the shared ledger ${pool.where}`);
  const profile = await keepUrl(deps, url);
  const { stderr, stdout } = deps.io;
  const behind =
    version < SCHEMA_VERSION
      ? `; its schema is ${version} and this pix needs ${SCHEMA_VERSION}: payments wait until the schema's owner runs \`pix ledger init\``
      : '';
  stderr.write(`ledger ${pool.where}: schema ${version}; profile "${profile}" uses it${behind}\n`);
  if (deps.globals.json)
    stdout.write(jsonDocument({ ledger: pool.where, schema: version, profile }, stdout.isTTY));
}

export const verb = describeVerb({
  summary:
    "keep a ledger's URL in the profile, creating nothing: the schema must be there (--url-stdin or --url-file)",
  examples: ['printf %s "$LEDGER_URL" | pix ledger use --url-stdin', 'pix ledger use --url-file ledger-url'],
  exits: ['usage', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option(...URL_STDIN_OPTION)
    .option(...URL_FILE_OPTION)
    .action(async (_options, self: Command) => {
      await runLedgerUse(parseOptions(useOptionsSchema, self.opts()), deps);
    });
}
