/**
 * SSH public keys (`domain/sshsig.ts` verifies with them): read from their blob or a `.pub` line as Node
 * crypto keys (ssh-ed25519, ECDSA on the NIST curves, RSA of at least 2048 bits, and the security-key
 * variants), their fingerprint as `ssh-keygen -l` prints it, and their line written back.
 */

import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { InvalidValue } from './invalid.js';
import { b64url, WireReader } from './sshwire.js';

/** RSA keys shorter than this are refused (OpenSSH itself accepts 1024; a payment approval is worth more). */
export const MIN_RSA_BITS = 2048;

// ---------------------------------------------------------------------------------------------
// Public keys

export const CURVES = {
  nistp256: { jwk: 'P-256', size: 32, hash: 'sha256' },
  nistp384: { jwk: 'P-384', size: 48, hash: 'sha384' },
  nistp521: { jwk: 'P-521', size: 66, hash: 'sha512' },
} as const;
type CurveName = keyof typeof CURVES;

export const SK_ED25519 = 'sk-ssh-ed25519@openssh.com';
export const SK_ECDSA = 'sk-ecdsa-sha2-nistp256@openssh.com';

/** A public key read from its SSH blob. */
export interface SshPublicKey {
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`, `sk-ssh-ed25519@openssh.com`, … */
  type: string;
  /** The blob, as keys and signatures carry it: what two keys are compared by. */
  blob: Buffer;
  /** `SHA256:…` as `ssh-keygen -l` prints it. */
  fingerprint: string;
  /** The security key's application (`ssh:` by default), for the sk- types. */
  application?: string;
  /** The key for Node's crypto. */
  key: KeyObject;
  /** ECDSA keys: the curve. */
  curve?: CurveName;
}

/** `SHA256:` and the unpadded base64 of the blob's SHA-256, as `ssh-keygen -l` prints it. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

function ecKey(curveName: string, point: Buffer, what: string): { key: KeyObject; curve: CurveName } {
  if (!Object.hasOwn(CURVES, curveName)) throw new InvalidValue(`${what}: unknown curve "${curveName}"`);
  const curve = curveName as CurveName;
  const { size, jwk } = CURVES[curve];
  if (point.length !== 1 + 2 * size || point[0] !== 0x04)
    throw new InvalidValue(`${what}: the point is not an uncompressed ${curve} point`);
  const x = point.subarray(1, 1 + size);
  const y = point.subarray(1 + size);
  try {
    return {
      key: createPublicKey({ key: { kty: 'EC', crv: jwk, x: b64url(x), y: b64url(y) }, format: 'jwk' }),
      curve,
    };
  } catch {
    throw new InvalidValue(`${what}: the point is not on the ${curve} curve`);
  }
}

function ed25519Key(raw: Buffer, what: string): KeyObject {
  if (raw.length !== 32) throw new InvalidValue(`${what}: an ed25519 key is 32 bytes, not ${raw.length}`);
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(raw) }, format: 'jwk' });
}

/** Reads a public key blob (the base64 of an authorized_keys line, decoded). */
export function parsePublicKeyBlob(blob: Buffer, what = 'the key'): SshPublicKey {
  const reader = new WireReader(blob, what);
  const type = reader.text();
  const base = { type, blob: Buffer.from(blob), fingerprint: fingerprintOf(blob) };
  let result: SshPublicKey;
  if (type === 'ssh-ed25519') {
    result = { ...base, key: ed25519Key(reader.string(), what) };
  } else if (type === SK_ED25519) {
    const key = ed25519Key(reader.string(), what);
    result = { ...base, key, application: reader.text() };
  } else if (type.startsWith('ecdsa-sha2-')) {
    const curveName = reader.text();
    if (`ecdsa-sha2-${curveName}` !== type)
      throw new InvalidValue(`${what}: ${type} names curve ${curveName}`);
    result = { ...base, ...ecKey(curveName, reader.string(), what) };
  } else if (type === SK_ECDSA) {
    const curveName = reader.text();
    if (curveName !== 'nistp256') throw new InvalidValue(`${what}: ${type} names curve ${curveName}`);
    const ec = ecKey(curveName, reader.string(), what);
    result = { ...base, ...ec, application: reader.text() };
  } else if (type === 'ssh-rsa') {
    const e = reader.mpint();
    const n = reader.mpint();
    const bits = n.length === 0 ? 0 : (n.length - 1) * 8 + (32 - Math.clz32(n[0]!));
    if (bits < MIN_RSA_BITS)
      throw new InvalidValue(`${what}: an RSA key of ${bits} bits is too short (at least ${MIN_RSA_BITS})`);
    const key = createPublicKey({ key: { kty: 'RSA', n: b64url(n), e: b64url(e) }, format: 'jwk' });
    result = { ...base, key };
  } else if (type.includes('-cert-v01@openssh.com')) {
    throw new InvalidValue(`${what}: certificates (${type}) are not accepted; give the key itself`);
  } else {
    throw new InvalidValue(
      `${what}: key type "${type}" is not accepted (ed25519, ecdsa, rsa and their sk- variants are)`,
    );
  }
  reader.end();
  return result;
}

const KEY_TYPE =
  /^(?:ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com|ssh-dss|[a-z0-9-]+-cert-v01@openssh\.com)$/;

/** Whether a word of a key line is a key type (what follows the options of an allowed_signers line). */
export function isKeyType(word: string): boolean {
  return KEY_TYPE.test(word);
}

/** `ssh-ed25519 AAAA… comment` (a `.pub` file, an authorized_keys line without options). */
export function parsePublicKeyLine(line: string, what = 'the key'): SshPublicKey & { comment: string } {
  const words = line.trim().split(/\s+/);
  const [type = '', data = '', ...comment] = words;
  if (!isKeyType(type) || data === '') {
    throw new InvalidValue(`${what} is not an OpenSSH public key ("type base64 [comment]")`);
  }
  const blob = decodeBase64(data, what);
  const key = parsePublicKeyBlob(blob, what);
  if (key.type !== type) throw new InvalidValue(`${what}: the line says ${type}, its key is ${key.type}`);
  return { ...key, comment: comment.join(' ') };
}

export function decodeBase64(text: string, what: string): Buffer {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0)
    throw new InvalidValue(`${what} is not base64`);
  return Buffer.from(text, 'base64');
}

/** The line of a public key as a `.pub` file holds it. */
export function publicKeyLine(key: Pick<SshPublicKey, 'type' | 'blob'>): string {
  return `${key.type} ${key.blob.toString('base64')}`;
}
