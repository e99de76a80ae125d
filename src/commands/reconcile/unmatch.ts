import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { describeVerb } from '../shared/help.js';
import { decisionExamples, registerDecision } from './match.js';

export const verb = describeVerb({
  summary: 'record that an entry does not settle an expectation',
  examples: decisionExamples('unmatch'),
  exits: ['usage'],
});

/** `pix reconcile unmatch EXPECTATION ENTRY` (match.ts says what a decision is). */
export function register(command: Command, deps: Deps): void {
  registerDecision('unmatch', command, deps);
}
