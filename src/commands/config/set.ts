import type { Command } from 'commander';
import { SANDBOX_PROFILE } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';
import { asUsage } from '../../usage.js';
import type * as z from '../../zod.js';
import {
  changeSetting,
  keyArgument,
  SANDBOX_KEYS,
  setOptionsSchema,
  targetProfile,
  VALIDATORS,
} from '../shared/config.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

export type ConfigSetOptions = z.output<typeof setOptionsSchema>;

/** Checks the value, then changes the key (creating the profile if it does not exist yet). */
export async function runConfigSet(options: ConfigSetOptions, deps: Deps): Promise<void> {
  const store = await deps.config();
  const { stderr } = deps.io;
  const name = targetProfile(deps, store, true);
  const { key } = options;
  if (name === SANDBOX_PROFILE && !SANDBOX_KEYS.includes(key)) {
    throw usageError(
      key,
      'the built-in sandbox profile cannot set it',
      `keys it can set: ${SANDBOX_KEYS.join(', ')}`,
    );
  }
  const value = asUsage(key, () => VALIDATORS[key](options.value));
  const before = await changeSetting(store, name, key, value);
  if (key === 'base-url' && before?.tokenBaseUrl !== undefined && before.tokenBaseUrl !== value) {
    stderr.write(
      `warning: the credentials stored in profile ${name} are for ${before.tokenBaseUrl} and will not be sent to ${value}; run \`pix login\` again\n`,
    );
  }
  if ((key === 'require-plan' && value !== 'true') || key === 'policy') {
    // The profile can add to what binds the account, never lift it (docs/approvals.md).
    stderr.write(
      `note: ${key} is profile ${name}'s own setting: it can only add to a policy enforced on the account (\`pix policy show\`), never loosen it\n`,
    );
  }
  if (key === 'client-key' && before?.clientSecret !== undefined && before['client-key'] !== value) {
    stderr.write(
      `warning: the client secret stored for the old key is removed; run \`pix login --client-key ${value}\`\n`,
    );
  }
}

export const verb = describeVerb({
  summary: 'change a setting (checked first)',
  examples: ['pix config set time-zone America/Manaus', 'pix config set max-amount 500 --profile prod'],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .addArgument(keyArgument())
    .argument('<value>')
    .action(async (key: string, value: string) => {
      await runConfigSet(
        parseOptions(setOptionsSchema, { key, value }, { key: 'KEY', value: 'VALUE' }),
        deps,
      );
    });
}
