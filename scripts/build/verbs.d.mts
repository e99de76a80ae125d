/** The types of scripts/build/verbs.mjs, for test/cli/verbs.test.ts. */
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
export function describeVerbs(): Promise<Array<{ file: string; verb: ResolvedVerb }>>;
export function writeVerbs(): Promise<boolean>;
