/**
 * A closed day's pack signed with the operator's SSH key (`pix close --key PATH`), as approvals are
 * signed (approvals/operator.ts: ssh-keygen signs, so agents, passphrases and security keys work), in the
 * namespace `pix-close`, over the pack's SHA256SUMS: an accountant checks it with
 * `ssh-keygen -Y verify -f allowed_signers -I NAME -n pix-close -s SHA256SUMS.sig < SHA256SUMS`.
 * Without a key the pack is digested (SHA256SUMS and its SHA-256, remembered by the close), not signed,
 * and `pix close` says so.
 */
import type { Deps } from '../../../context.js';

export const CLOSE_NAMESPACE = 'pix-close';

/** The armored SSH signature of `sums` (the SHA256SUMS text) with the key at `key`, or undefined without one. */
export async function signDigest(
  deps: Deps,
  sums: string,
  key: string | undefined,
): Promise<string | undefined> {
  if (key === undefined) return undefined;
  const { keyAtPath, signWith } = await import('../../../approvals/operator.js');
  const signing = await keyAtPath(deps, key);
  try {
    return await signWith(deps, signing, CLOSE_NAMESPACE, Buffer.from(sums, 'utf8'));
  } finally {
    signing.cleanup();
  }
}
