import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { registerDecision } from './match.js';

/** `pix reconcile unmatch EXPECTATION ENTRY` (match.ts says what a decision is). */
export function register(command: Command, deps: Deps): void {
  registerDecision('unmatch', command, deps);
}
