import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { describeVerb } from '../shared/help.js';
import { decisionExamples, registerDecision } from './match.js';

/** This verb as its noun's list, completion, the man page and `--fields` show it (cli/verbs.ts is made from it). */
export const verb = describeVerb({
  summary: 'record that an entry does not settle an expectation',
  examples: decisionExamples('unmatch'),
  exits: ['usage'],
});

/** `pix reconcile unmatch EXPECTATION ENTRY` (match.ts says what a decision is). */
export function register(command: Command, deps: Deps): void {
  registerDecision('unmatch', command, deps);
}
