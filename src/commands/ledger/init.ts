/**
 * `pix ledger init [--url-stdin | --url-file FILE]`: creates or migrates the shared ledger's schema
 * (journal/postgres/schema.ts: versioned migrations shipped with pix, idempotent, a schema newer than
 * this pix refused), and with a URL given, keeps it in the profile as its `ledger` (config.json is 0600,
 * as a token is kept). Without one, the profile's ledger or PIX_LEDGER_URL is initialised. The owner's
 * one-off (docs/team.md): everyone else keeps the URL with `pix ledger use`, which creates nothing.
 */

import { hostname } from 'node:os';
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { givenUrl, keepUrl, onLedger, openLedgerPool, URL_FILE_OPTION, URL_STDIN_OPTION } from './shared.js';

const initOptionsSchema = z.object({
  urlFile: z.optional(z.string().check(z.minLength(1))),
  urlStdin: z._default(z.boolean(), false),
});

export type LedgerInitOptions = z.output<typeof initOptionsSchema>;

export async function runLedgerInit(options: LedgerInitOptions, deps: Deps): Promise<void> {
  const url = await givenUrl(deps, options);
  const settings = await deps.settings();
  const pool = await openLedgerPool(deps, url);
  const { migrateSchema } = await import('../../journal/postgres/schema.js');
  const report = await onLedger(pool, () => migrateSchema(pool.sql, `pix on ${hostname()}`, pool.where), {
    permission:
      "init creates and migrates pix's tables: run it as the role that owns the schema (docs/team.md); to keep this URL in the profile without creating anything: `pix ledger use --url-stdin`",
  });
  // pg-boss's schema, the queue of `pix schedule run` (journal/postgres/queue.ts): made here, with the rest.
  const { installQueue } = await import('../../journal/postgres/queue.js');
  await onLedger(pool, () => installQueue(pool));
  if (url !== undefined) await keepUrl(deps, url);
  const { stdout, stderr } = deps.io;
  const what =
    report.applied.length === 0
      ? `schema ${report.to}, up to date`
      : report.from === 0
        ? `schema ${report.to} created`
        : `schema ${report.from} migrated to ${report.to}`;
  stderr.write(
    `ledger ${pool.where}: ${what}${url === undefined ? '' : `; profile "${settings.profile.value}" uses it`}\n`,
  );
  if (deps.globals.json) {
    stdout.write(
      jsonDocument(
        { ledger: pool.where, from: report.from, to: report.to, applied: report.applied },
        stdout.isTTY,
      ),
    );
  }
}

export const verb = describeVerb({
  summary:
    "create or migrate the database's schema, as its owner (--url-stdin or --url-file keeps its URL in the profile)",
  examples: [
    'printf %s "$LEDGER_URL" | pix ledger init --url-stdin',
    'PIX_LEDGER_URL="$LEDGER_URL" pix ledger status',
  ],
  exits: ['usage', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option(...URL_STDIN_OPTION)
    .option(...URL_FILE_OPTION)
    .action(async (_options, self: Command) => {
      await runLedgerInit(parseOptions(initOptionsSchema, self.opts()), deps);
    });
}
