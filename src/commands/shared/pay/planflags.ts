/**
 * `--plan FILE`, `--signing-key`, `--by` and `--expires-in` of pay key, pay qr and pay batch: the flags only (what
 * the plan is, how its maker signs it and how it is written is plan.ts beside it, loaded only when
 * `--plan` is given: rule 8).
 */
import type { Command } from 'commander';
import { usageError } from '../../../errors.js';
import * as z from '../../../zod.js';
import { durationFlag } from '../flags.js';
import type { PlanRequest } from './shared.js';

/** How long a plan stays valid by default. */
export const DEFAULT_PLAN_LIFETIME_MS = 24 * 3_600_000;

export const planFlags = {
  plan: z.optional(z.string().check(z.minLength(1, 'a file path is required'))),
  by: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  signingKey: z.optional(z.string().check(z.minLength(1, 'a key file is required'))),
  expiresIn: z.optional(durationFlag),
};

interface PlanFlagValues {
  plan?: string | undefined;
  by?: string | undefined;
  signingKey?: string | undefined;
  expiresIn?: { milliseconds: number } | undefined;
  dryRun?: boolean;
}

/** Declares the four flags on a pay verb. */
export function planOptions(command: Command): Command {
  return command
    .option('--plan <file>', 'write an approval plan to FILE instead of paying (see `pix plan`)')
    .option(
      '--signing-key <path>',
      'with --plan: the SSH key the maker signs it with, as `pix plan approve --key` (default: git user.signingkey, else ssh-agent)',
    )
    .option(
      '--by <who>',
      'with --plan: a label for the maker, "Name <e-mail>" (default: git user.name/user.email)',
    )
    .option('--expires-in <dur>', 'with --plan: how long it may be paid (default 24h)');
}

/** The plan `--plan` asks for, or undefined; `--by`/`--expires-in` without `--plan` are exit 2. */
export function planRequestOf(
  options: PlanFlagValues,
  target?: PlanRequest['target'],
): PlanRequest | undefined {
  if (options.plan === undefined) {
    if (options.by !== undefined) throw usageError('--by', 'goes with --plan FILE');
    if (options.signingKey !== undefined)
      throw usageError('--signing-key', 'goes with --plan FILE (the maker signs the plan)');
    if (options.expiresIn !== undefined) throw usageError('--expires-in', 'goes with --plan FILE');
    return undefined;
  }
  if (options.dryRun) throw usageError('--plan', 'a plan is not a dry run: pass one of --plan and --dry-run');
  return {
    file: options.plan,
    by: options.by,
    signingKey: options.signingKey,
    expiresInMs: options.expiresIn?.milliseconds ?? DEFAULT_PLAN_LIFETIME_MS,
    ...(target === undefined ? {} : { target }),
  };
}
