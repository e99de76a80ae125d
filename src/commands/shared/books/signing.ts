/**
 * The seam where a closed day's digest is signed with the operator's SSH key, the way approvals are
 * signed once that signing is part of pix: until then a pack is digested (SHA256SUMS and its SHA-256,
 * remembered by the close) and not signed, and `pix close` says so.
 */
import type { Deps } from '../../../context.js';

/** An SSH signature (armored) of `digest`, or undefined when signing is not available. */
export async function signDigest(_deps: Deps, _digest: string): Promise<string | undefined> {
  return undefined;
}
