/**
 * SSH signatures as `ssh-keygen -Y sign` makes them (OpenSSH's PROTOCOL.sshsig, the format git uses for
 * signed commits), read and verified here with Node's crypto alone, so the machine that checks approvals
 * needs no OpenSSH. Pure: no I/O, no clock (the caller gives the time a key's validity is judged at).
 *
 * Keys: ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa (signatures rsa-sha2-256 or rsa-sha2-512 only:
 * SHA-1 is refused, as sshsig refuses it), and the security-key variants sk-ssh-ed25519@openssh.com and
 * sk-ecdsa-sha2-nistp256@openssh.com (PROTOCOL.u2f: the authenticator signs the SHA-256 of its application,
 * its flags, its counter and the SHA-256 of the data). One difference with `ssh-keygen -Y verify`, on
 * purpose: a security-key signature made without a touch (user presence flag clear: a key made with
 * `-O no-touch-required`) is refused unless the signer is marked `noTouchRequired` (the policy says so
 * per approver); ssh-keygen does not look at the flag. Certificates, DSA and webauthn signatures are not
 * accepted.
 *
 * Malformed input (a signature or key line that cannot be read) throws InvalidValue: the caller makes it
 * exit 2. A well-formed signature that does not verify is an answer, not an error (`verifySshSig`).
 *
 * The signatures are here; the wire format is in `sshwire.ts`, public keys in `sshkeys.ts` and
 * allowed_signers lines in `sshsigners.ts`.
 */
import { createHash, verify } from 'node:crypto';
import { InvalidValue } from './invalid.js';
import { CURVES, decodeBase64, parsePublicKeyBlob, SK_ED25519, type SshPublicKey } from './sshkeys.js';
import { type AllowedSigner, matchPatternList, type SignerOptions } from './sshsigners.js';
import { leftPad, sshString, u32, WireReader } from './sshwire.js';

export const SSHSIG_MAGIC = 'SSHSIG';
const ARMOR_BEGIN = '-----BEGIN SSH SIGNATURE-----';
const ARMOR_END = '-----END SSH SIGNATURE-----';
/** The hash algorithms sshsig allows for the message. */
const MESSAGE_HASHES = new Set(['sha256', 'sha512']);

/** PROTOCOL.u2f: the flag an authenticator sets when it was touched. */
const SK_USER_PRESENT = 0x01;

// ---------------------------------------------------------------------------------------------
// Signatures

/** An armored signature, read. */
export interface SshSignature {
  /** The key that made it (as the signature names it: check it is one you trust). */
  publicKey: SshPublicKey;
  namespace: string;
  hashAlgorithm: 'sha256' | 'sha512';
  /** The signature blob: `string type, string signature[, byte flags, uint32 counter]`. */
  signature: Buffer;
}

/** Reads `-----BEGIN SSH SIGNATURE-----` … `-----END SSH SIGNATURE-----`. */
export function parseArmoredSignature(text: string, what = 'the signature'): SshSignature {
  const trimmed = text.trim();
  if (!trimmed.startsWith(ARMOR_BEGIN) || !trimmed.endsWith(ARMOR_END)) {
    throw new InvalidValue(`${what} is not an SSH signature (${ARMOR_BEGIN} … ${ARMOR_END})`);
  }
  const body = trimmed.slice(ARMOR_BEGIN.length, -ARMOR_END.length).replace(/\s+/g, '');
  const bytes = decodeBase64(body, what);
  const reader = new WireReader(bytes, what);
  if (reader.bytesOf(6).toString('latin1') !== SSHSIG_MAGIC)
    throw new InvalidValue(`${what} does not start with SSHSIG`);
  const version = reader.u32();
  if (version !== 1) throw new InvalidValue(`${what} is of version ${version}; pix reads version 1`);
  const publicKey = parsePublicKeyBlob(reader.string(), `${what}'s key`);
  const namespace = reader.text();
  reader.string(); // reserved
  const hashAlgorithm = reader.text();
  if (!MESSAGE_HASHES.has(hashAlgorithm))
    throw new InvalidValue(`${what} hashes with "${hashAlgorithm}" (sha256 or sha512)`);
  const signature = Buffer.from(reader.string());
  reader.end();
  return { publicKey, namespace, hashAlgorithm: hashAlgorithm as 'sha256' | 'sha512', signature };
}

/** Wraps a signature's bytes as ssh-keygen writes them: base64 in lines of 70. */
export function armor(bytes: Buffer): string {
  const lines = bytes.toString('base64').match(/.{1,70}/g) ?? [];
  return `${ARMOR_BEGIN}\n${lines.join('\n')}\n${ARMOR_END}\n`;
}

/** The bytes a key signs for a message (PROTOCOL.sshsig: the magic, namespace, reserved, hash, H(message)). */
export function signedData(namespace: string, hashAlgorithm: 'sha256' | 'sha512', message: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(SSHSIG_MAGIC, 'latin1'),
    sshString(namespace),
    sshString(''),
    sshString(hashAlgorithm),
    sshString(createHash(hashAlgorithm).update(message).digest()),
  ]);
}

/** The whole sshsig blob (before armor), as a signer writes it. */
export function signatureBlob(
  publicKeyBlob: Buffer,
  namespace: string,
  hashAlgorithm: 'sha256' | 'sha512',
  signature: Buffer,
): Buffer {
  return Buffer.concat([
    Buffer.from(SSHSIG_MAGIC, 'latin1'),
    u32(1),
    sshString(publicKeyBlob),
    sshString(namespace),
    sshString(''),
    sshString(hashAlgorithm),
    sshString(signature),
  ]);
}

/** An ECDSA `mpint r, mpint s` as the fixed-width r‖s Node verifies. */
function ecdsaP1363(blob: Buffer, size: number, what: string): Buffer {
  const reader = new WireReader(blob, what);
  const r = reader.mpint();
  const s = reader.mpint();
  reader.end();
  return Buffer.concat([leftPad(r, size, what), leftPad(s, size, what)]);
}

export type Verification = { ok: true; fingerprint: string; flags?: number } | { ok: false; reason: string };

/** Checks the signature blob over `data` with `key`; false when it does not verify. */
function checkBlob(key: SshPublicKey, data: Buffer, blob: Buffer, options: SignerOptions): Verification {
  const what = 'the signature';
  const reader = new WireReader(blob, what);
  const type = reader.text();
  const raw = reader.string();
  const fail = (reason: string): Verification => ({ ok: false, reason });
  const good = (flags?: number): Verification => ({
    ok: true,
    fingerprint: key.fingerprint,
    ...(flags === undefined ? {} : { flags }),
  });
  if (key.type === 'ssh-ed25519') {
    reader.end();
    if (type !== 'ssh-ed25519') return fail(`a ${type} signature from an ed25519 key`);
    return raw.length === 64 && verify(null, data, key.key, raw)
      ? good()
      : fail('the signature does not verify');
  }
  if (key.type.startsWith('ecdsa-sha2-')) {
    reader.end();
    if (type !== key.type) return fail(`a ${type} signature from a ${key.type} key`);
    const { size, hash } = CURVES[key.curve!];
    const sig = ecdsaP1363(raw, size, what);
    return verify(hash, data, { key: key.key, dsaEncoding: 'ieee-p1363' }, sig)
      ? good()
      : fail('the signature does not verify');
  }
  if (key.type === 'ssh-rsa') {
    reader.end();
    const hash = type === 'rsa-sha2-512' ? 'sha512' : type === 'rsa-sha2-256' ? 'sha256' : undefined;
    if (hash === undefined)
      return fail(`an RSA signature of type ${type} (rsa-sha2-256 or rsa-sha2-512 are accepted)`);
    const modulus = Math.ceil((key.key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
    if (raw.length > modulus) return fail('the signature is longer than the key');
    return verify(hash, data, key.key, leftPad(raw, modulus, what))
      ? good()
      : fail('the signature does not verify');
  }
  // Security keys (PROTOCOL.u2f).
  if (type !== key.type) return fail(`a ${type} signature from a ${key.type} key`);
  const flags = reader.u8();
  const counter = reader.u32();
  reader.end();
  const signed = Buffer.concat([
    createHash('sha256')
      .update(key.application ?? '', 'utf8')
      .digest(),
    Buffer.from([flags]),
    u32(counter),
    createHash('sha256').update(data).digest(),
  ]);
  const verified =
    key.type === SK_ED25519
      ? raw.length === 64 && verify(null, signed, key.key, raw)
      : verify('sha256', signed, { key: key.key, dsaEncoding: 'ieee-p1363' }, ecdsaP1363(raw, 32, what));
  if (!verified) return fail('the signature does not verify');
  if ((flags & SK_USER_PRESENT) === 0 && !options.noTouchRequired)
    return fail('the security key was not touched (no user presence)');
  return good(flags);
}

/**
 * Whether `signature` is `signer`'s signature of `message` in `namespace`, valid at `at` (ms): the key it
 * names must be the signer's, the namespace the one asked (and one the signer's line allows), the
 * signature good over the message. A malformed blob throws InvalidValue.
 */
export function verifySshSig(
  signature: SshSignature,
  message: Buffer,
  namespace: string,
  signer: AllowedSigner,
  at: number,
): Verification {
  if (!signature.publicKey.blob.equals(signer.key.blob))
    return { ok: false, reason: 'signed by another key' };
  if (signature.namespace !== namespace)
    return { ok: false, reason: `signed for namespace "${signature.namespace}", not "${namespace}"` };
  if (signer.namespaces !== undefined && !matchPatternList(namespace, signer.namespaces))
    return { ok: false, reason: `the key may not sign in namespace "${namespace}" (its namespaces= option)` };
  if (signer.validAfter !== undefined && at < signer.validAfter)
    return { ok: false, reason: 'the key is not valid yet (valid-after)' };
  if (signer.validBefore !== undefined && at > signer.validBefore)
    return { ok: false, reason: 'the key is no longer valid (valid-before)' };
  const data = signedData(namespace, signature.hashAlgorithm, message);
  return checkBlob(signer.key, data, signature.signature, signer);
}
