import type { Command } from 'commander';
import { configValues } from '../../config/resolve.js';
import { CONFIG_KEYS, type ConfigKey, type Sourced } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { targetProfile } from '../shared/config.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const listOptionsSchema = z.object({});

export type ConfigListOptions = z.output<typeof listOptionsSchema>;

/** The settings in effect with their source: a table for people, `key<TAB>value<TAB>source` for scripts. */
export async function runConfigList(_options: ConfigListOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { stdout } = deps.io;
  const name = targetProfile(deps, store, false);
  const values = configValues(deps.globals, deps.env, name, store.getProfile(name) ?? {});
  const entries = CONFIG_KEYS.flatMap((key) => {
    const value = values[key];
    return value === undefined ? [] : [[key, value] as [ConfigKey, Sourced<string>]];
  });
  if (deps.globals.json) {
    stdout.write(
      jsonDocument(Object.fromEntries(entries.map(([key, { value }]) => [key, value])), stdout.isTTY),
    );
  } else if (stdout.isTTY) {
    const width = Math.max(...entries.map(([key]) => key.length)) + 2;
    for (const [key, { value, source }] of entries)
      stdout.write(`${key.padEnd(width)}${value} (${source})\n`);
  } else {
    for (const [key, { value, source }] of entries) stdout.write(`${key}\t${value}\t${source}\n`);
  }
}

export const verb = describeVerb({
  summary: 'the settings in effect, with their source: `key<TAB>value<TAB>source` per line',
  examples: ['pix config list', 'pix config list --profile prod'],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async () => {
    await runConfigList(parseOptions(listOptionsSchema, {}), deps);
  });
}
