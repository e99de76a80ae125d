/**
 * `pix account bind --participant ISPB --branch BRANCH --number ACCOUNT`: names, once, the bank account
 * of credentials whose account lists no PIX key (the DICT answers a bank account only for a key:
 * commands/shared/account.ts). Kept where the journal is, so every machine on a shared ledger with these
 * credentials knows it; an account that lists keys needs none (exit 2).
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { describeBank } from '../../journal/accounts.js';
import { jsonDocument } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import { bankWords } from '../shared/account.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { bindAccount } from './shared.js';

const part = (what: string) =>
  z
    .string()
    .check(
      z.regex(
        /^[0-9A-Za-z][0-9A-Za-z .\-/]{0,31}$/,
        `${what}: digits and letters (dots, dashes and spaces allowed)`,
      ),
    );

const bindOptionsSchema = z.object({
  participant: part('the institution (ISPB or bank code)'),
  branch: part('the branch'),
  number: part('the account number'),
  name: z.optional(z.string().check(z.minLength(1), z.maxLength(140))),
});

export type AccountBindOptions = z.output<typeof bindOptionsSchema>;

export async function runAccountBind(options: AccountBindOptions, deps: Deps): Promise<void> {
  const bank = {
    participant: options.participant.trim(),
    branch: options.branch.trim(),
    number: options.number.trim(),
  };
  const { account, before } = await bindAccount(
    deps,
    bank,
    options.name === undefined ? undefined : { name: options.name },
  );
  if (deps.globals.json) {
    deps.io.stdout.write(
      jsonDocument({ id: account.id, bank: account.bank, basis: account.basis }, deps.io.stdout.isTTY),
    );
    return;
  }
  deps.io.stderr.write(
    `${before === undefined ? 'bound' : 'still bound'}: profile "${(await deps.settings()).profile.value}" is ${bankWords(account)}\n`,
  );
  deps.io.stdout.write(`${account.id}\t${safeText(describeBank(account.bank), 160)}\n`);
}

export const verb = describeVerb({
  summary: 'name the bank account of credentials whose account lists no PIX key',
  examples: [
    'pix account bind --participant 12345678 --branch 0001 --number 123456-7',
    'pix account bind --participant 12345678 --branch 0001 --number 123456-7 --name "Empresa Ltda" --json',
  ],
  exits: ['usage', 'auth', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .requiredOption('--participant <ISPB>', "the bank's ISPB (or code), as the DICT names it")
    .requiredOption('--branch <BRANCH>', 'the branch (agência)')
    .requiredOption('--number <ACCOUNT>', 'the account number (conta), check digit included')
    .option('--name <NAME>', "the account holder's name, for people")
    .action(async (_options, self: Command) => {
      await runAccountBind(parseOptions(bindOptionsSchema, self.opts()), deps);
    });
}
