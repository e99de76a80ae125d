/**
 * The shape of a sandbox state file's lines (sandbox/store.ts reads them): a snapshot is a SandboxState
 * of this version, a patch line names its snapshot and place and changes only what an update may. A line
 * of another shape is a damaged file, not a state to use.
 */

import { RECORD_COLLECTIONS } from './changes.js';
import type { SandboxState } from './model.js';
import type { PatchLine } from './store.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isPatchLine(value: unknown): value is PatchLine {
  if (!isRecord(value)) return false;
  const { log, seq, top, activity } = value;
  if (typeof log !== 'string' || !Number.isSafeInteger(seq) || !isRecord(top)) return false;
  if ('activity' in top || RECORD_COLLECTIONS.some((name) => name in top)) return false;
  if (!isState({ ...top, activity: [], charges: {}, consultations: {}, transfers: {} })) return false;
  for (const name of RECORD_COLLECTIONS) {
    const changed = value[name];
    if (changed === undefined) continue;
    if (!isRecord(changed) || !Object.values(changed).every((r) => r === null || isRecord(r))) return false;
  }
  return (
    activity === undefined ||
    (Array.isArray(activity) &&
      activity.every(
        (pair) =>
          Array.isArray(pair) &&
          pair.length === 2 &&
          Number.isSafeInteger(pair[0]) &&
          pair[0] >= 0 &&
          isRecord(pair[1]),
      ))
  );
}

export function isState(value: unknown): value is SandboxState {
  if (typeof value !== 'object' || value === null) return false;
  const state = value as Partial<SandboxState>;
  return (
    state.version === 1 &&
    Array.isArray(state.keys) &&
    Array.isArray(state.activity) &&
    typeof state.generated === 'object' &&
    typeof state.charges === 'object' &&
    typeof state.consultations === 'object' &&
    typeof state.transfers === 'object' &&
    typeof state.clockOffsetMs === 'number'
  );
}
