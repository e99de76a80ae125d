/**
 * `--expect-document` and `--expect-name` of pay key and pay qr (contract §7.8): who the operator expects
 * the consultation to name. Checked against it before the confirmation; a plan keeps them, and `plan
 * execute` checks them again (commands/plan/execute.ts, through the batch's consultation).
 */
import type { Command } from 'commander';
import {
  type ConsultedOwner,
  type PayeeExpectation,
  parseExpectedDocument,
  parseExpectedName,
  payeeMismatch,
} from '../../../domain/payee.js';
import { PixError } from '../../../errors.js';
import { safeText } from '../../../output/sanitize.js';
import * as z from '../../../zod.js';
import { fromDomain } from '../flags.js';

export const payeeFlags = {
  expectDocument: z.optional(fromDomain(parseExpectedDocument)),
  expectName: z.optional(fromDomain(parseExpectedName)),
};

/** Declares the two flags on a pay verb. */
export function payeeOptions(command: Command): Command {
  return command
    .option('--expect-document <CPF|CNPJ>', 'pay only if the receiver has this document (else exit 8)')
    .option(
      '--expect-name <NAME>',
      "pay only if the receiver's name or trade name is this (any case, accents)",
    );
}

/** The expectation the flags give, or undefined. */
export function expectationOf(options: {
  expectDocument?: string | undefined;
  expectName?: string | undefined;
}): PayeeExpectation | undefined {
  const { expectDocument: document, expectName: name } = options;
  if (document === undefined && name === undefined) return undefined;
  return { ...(document === undefined ? {} : { document }), ...(name === undefined ? {} : { name }) };
}

/** Exit 8 naming both when the consulted owner is not the one expected: nothing is sent. */
export function checkPayee(expected: PayeeExpectation | undefined, owner: ConsultedOwner): void {
  if (expected === undefined) return;
  const mismatch = payeeMismatch(expected, owner);
  if (mismatch === undefined) return;
  throw new PixError('declined', `${safeText(mismatch, 400)}; nothing was sent`, {
    hint: 'check the key or code with the receiver; --expect-document/--expect-name say who you mean to pay',
  });
}
