import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { counted } from '../../domain/words.js';
import * as z from '../../zod.js';
import { integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { openStore, stateFlag, stateOption, translate, writeJson } from './shared.js';

export const seedSchema = z.object({
  transactions: integerFlag(0).check(z.refine((n) => n <= 1_000_000, 'at most 1000000')),
  state: stateFlag,
});
export type SeedOptions = z.output<typeof seedSchema>;

export async function runSeed(opts: SeedOptions, deps: Deps): Promise<void> {
  const store = await openStore(deps, opts.state);
  const generated = await translate(() =>
    store.update((state, now) => {
      state.generated = { ...state.generated, count: opts.transactions, anchor: now.toISOString() };
      return state.generated;
    }),
  );
  if (deps.globals.json) writeJson(deps, { transactions: generated.count, stateFile: store.file });
  deps.io.stderr.write(
    `sandbox: ${counted(generated.count, 'generated transaction')} over the 60 days up to ${generated.anchor} (plus your own activity)\n`,
  );
}

export const verb = describeVerb({
  summary: 'Replace the generated statement with N transactions over the last 60 days',
  examples: [
    'pix sandbox seed --transactions 100000',
    'pix sandbox seed --transactions 500 && pix statement --all -o csv > statement.csv',
  ],
  exits: ['usage', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .requiredOption('--transactions <n>', 'how many generated transactions')
    .option(...stateOption)
    .action(async (raw) => runSeed(parseOptions(seedSchema, raw), deps));
}
