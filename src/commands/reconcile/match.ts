/**
 * `pix reconcile match EXPECTATION ENTRY` and `pix reconcile unmatch EXPECTATION ENTRY`: a person's decision,
 * appended to the account's books (books/store.ts decisions.jsonl) and kept: the matcher never overrides
 * it (domain/reconcile.ts). A match settles the expectation with that entry (with others matched to it
 * too); an unmatch forbids the pair to the matcher and undoes an earlier match of it.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { openBooks } from '../shared/books/store.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

/** An expectation's id (an invoice's, `charge:…`, `payment:…`) or an entry's: printable, at most 128. */
const ID = /^[^\u0000-\u001f\u007f-\u009f]{1,128}$/u;
const idArgument = (what: string) =>
  z.string().check(z.refine((text) => ID.test(text.trim()), `${what} must be 1 to 128 printable characters`));

const decisionSchema = z.object({
  expectation: idArgument('the expectation'),
  entry: idArgument('the entry'),
});

export type DecisionOptions = z.output<typeof decisionSchema>;

export async function runDecision(
  decision: 'match' | 'unmatch',
  options: DecisionOptions,
  deps: Deps,
): Promise<void> {
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  const books = await openBooks(deps);
  const recorded = {
    expectation: options.expectation.trim(),
    entry: options.entry.trim(),
    decision,
    at: deps.clock.now().toISOString(),
  };
  books.addDecision(recorded);
  const what =
    decision === 'match'
      ? 'matched by hand: kept on every reconcile'
      : 'never matched to each other by pix again';
  deps.io.stderr.write(
    `${safeText(recorded.expectation, 64)} and entry ${safeText(recorded.entry, 40)}: ${what} (pix reconcile shows it)\n`,
  );
  if (mode.format === 'json') deps.io.stdout.write(jsonDocument(recorded, mode.pretty));
}

export function registerDecision(decision: 'match' | 'unmatch', command: Command, deps: Deps): void {
  command
    .argument('<expectation>', "an invoice's id, charge:ID or payment:ID, as pix reconcile shows it")
    .argument('<entry>', "the statement entry's id")
    .action(async (expectation: string, entry: string) => {
      await runDecision(
        decision,
        parseOptions(decisionSchema, { expectation, entry }, { expectation: 'EXPECTATION', entry: 'ENTRY' }),
        deps,
      );
    });
}

/** The examples of `pix reconcile match|unmatch`. */
export function decisionExamples(decision: 'match' | 'unmatch'): string[] {
  return [
    `pix reconcile ${decision} NF-1042 "$ENTRY"`,
    `pix reconcile ${decision} "charge:$CHARGE_ID" "$ENTRY" --json`,
  ];
}

export const verb = describeVerb({
  summary: 'record that an entry settles an expectation (kept on every reconcile)',
  examples: decisionExamples('match'),
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  registerDecision('match', command, deps);
}
