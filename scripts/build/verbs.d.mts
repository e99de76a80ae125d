/** The types of scripts/build/verbs.mjs, for test/cli/verbs.test.ts. */
import type { Entry } from '../../src/cli/table.js';
import type { RecordFields, VerbDescription } from '../../src/commands/shared/help.js';

export interface ResolvedVerb extends Omit<VerbDescription, 'fields'> {
  fields?: readonly string[] | true;
  columns?: readonly string[];
}
export const VERBS_FILE: string;
export function commandFiles(): string[];
export function resolveVerb(
  verb: VerbDescription,
  recordFieldNames: (fields: RecordFields) => { paths: string[]; columns: string[] },
): ResolvedVerb;
export function renderVerbs(described: ReadonlyArray<{ file: string; verb: ResolvedVerb }>): string;
export function describeVerbs(): Promise<{
  verbs: Array<{ file: string; verb: ResolvedVerb }>;
  commands: readonly Entry[];
}>;
export function writeVerbs(): Promise<string[]>;
export const MAP_FILE: string;
export function renderCommandMap(
  commands: readonly Entry[],
  described: ReadonlyArray<{ file: string; verb: ResolvedVerb }>,
): string;
export function withCommandMap(text: string, map: string): string;
