import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { openStore, stateFlag, stateOption, translate, writeJson } from './shared.js';

export const stateSchema = z.object({ state: stateFlag });
export type StateOptions = z.output<typeof stateSchema>;

export async function runReset(opts: StateOptions, deps: Deps): Promise<void> {
  const store = await openStore(deps, opts.state);
  await translate(() => store.reset());
  if (deps.globals.json) writeJson(deps, { stateFile: store.file, reset: true });
  deps.io.stderr.write(`sandbox: fresh account in ${store.file}\n`);
}

export const verb = describeVerb({
  summary: 'Start the sandbox account afresh (keys, statement, no charges, real time)',
  examples: ['pix sandbox reset', 'pix sandbox reset --state ./ci-sandbox.json'],
  exits: ['usage', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command.option(...stateOption).action(async (raw) => runReset(parseOptions(stateSchema, raw), deps));
}
