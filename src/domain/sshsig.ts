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
 */
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { InvalidValue } from './invalid.js';

export const SSHSIG_MAGIC = 'SSHSIG';
const ARMOR_BEGIN = '-----BEGIN SSH SIGNATURE-----';
const ARMOR_END = '-----END SSH SIGNATURE-----';
/** The hash algorithms sshsig allows for the message. */
const MESSAGE_HASHES = new Set(['sha256', 'sha512']);
/** RSA keys shorter than this are refused (OpenSSH itself accepts 1024; a payment approval is worth more). */
export const MIN_RSA_BITS = 2048;

/** PROTOCOL.u2f: the flag an authenticator sets when it was touched. */
const SK_USER_PRESENT = 0x01;

// ---------------------------------------------------------------------------------------------
// The SSH wire format (RFC 4251 §5)

class WireReader {
  private offset = 0;
  constructor(
    private readonly bytes: Buffer,
    private readonly what: string,
  ) {}
  private need(length: number): void {
    if (this.offset + length > this.bytes.length) throw new InvalidValue(`${this.what} is cut short`);
  }
  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }
  u32(): number {
    this.need(4);
    const value = this.bytes.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }
  bytesOf(length: number): Buffer {
    this.need(length);
    const value = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }
  string(): Buffer {
    return this.bytesOf(this.u32());
  }
  text(): string {
    const raw = this.string();
    const text = raw.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(raw))
      throw new InvalidValue(`${this.what} holds a name that is not text`);
    return text;
  }
  /** An mpint as an unsigned big-endian number without leading zero bytes. */
  mpint(): Buffer {
    const raw = this.string();
    if (raw.length > 0 && (raw[0]! & 0x80) !== 0)
      throw new InvalidValue(`${this.what} holds a negative number`);
    let start = 0;
    while (start < raw.length && raw[start] === 0) start++;
    return raw.subarray(start);
  }
  end(): void {
    if (this.offset !== this.bytes.length) throw new InvalidValue(`${this.what} has bytes after its end`);
  }
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

/** An SSH `string`: its length, then its bytes. */
export function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([u32(bytes.length), bytes]);
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

function leftPad(bytes: Buffer, length: number, what: string): Buffer {
  if (bytes.length > length) throw new InvalidValue(`${what} is too long`);
  return bytes.length === length ? bytes : Buffer.concat([Buffer.alloc(length - bytes.length), bytes]);
}

// ---------------------------------------------------------------------------------------------
// Public keys

const CURVES = {
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

function decodeBase64(text: string, what: string): Buffer {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0)
    throw new InvalidValue(`${what} is not base64`);
  return Buffer.from(text, 'base64');
}

/** The line of a public key as a `.pub` file holds it. */
export function publicKeyLine(key: Pick<SshPublicKey, 'type' | 'blob'>): string {
  return `${key.type} ${key.blob.toString('base64')}`;
}

// ---------------------------------------------------------------------------------------------
// allowed_signers lines (ssh-keygen(1), ALLOWED SIGNERS)

/** What an allowed_signers line says of its key, besides the key. */
export interface SignerOptions {
  /** The principals (e-mail addresses, names) the line names. */
  principals: string[];
  /** `namespaces="…"`: the namespaces the key may sign in (patterns); absent: any. */
  namespaces?: string[];
  /** `valid-after` / `valid-before`, as instants (ms). */
  validAfter?: number;
  validBefore?: number;
  /** Security keys: a signature without user presence is accepted (not from the line: pix's own option). */
  noTouchRequired?: boolean;
}

export interface AllowedSigner extends SignerOptions {
  key: SshPublicKey;
}

/** Splits at `separator` outside double quotes. */
function splitOutsideQuotes(text: string, separator: RegExp): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (!quoted && separator.test(char)) {
      if (current !== '') out.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  if (quoted) throw new InvalidValue('a quote is not closed');
  if (current !== '') out.push(current);
  return out;
}

const unquote = (text: string) => (text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text);

/** `YYYYMMDD[HHMM[SS]]Z`, in UTC: the time form ssh-keygen reads (pix takes only the UTC one). */
function parseSignerTime(text: string, option: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?Z$/.exec(text);
  if (!match) {
    throw new InvalidValue(
      `${option}="${text}" is not YYYYMMDD[HHMM[SS]]Z (pix reads only UTC times, ending in Z)`,
    );
  }
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = match;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (new Date(ms).toISOString().slice(0, 10) !== `${y}-${mo}-${d}`)
    throw new InvalidValue(`${option}="${text}" is not a date`);
  return ms;
}

/**
 * An allowed_signers line: `principals [options] keytype base64 [comment]` (a `.pub` line, with no
 * principals, is accepted too: `principals` is then empty). The options are ssh-keygen's: `namespaces`,
 * `valid-after`, `valid-before`; `cert-authority` is refused.
 */
export function parseAllowedSigner(line: string, what = 'the key'): AllowedSigner {
  const words = splitOutsideQuotes(line.trim(), /\s/);
  const typeAt = words.findIndex(isKeyType);
  if (typeAt < 0 || typeAt > 2) {
    throw new InvalidValue(
      `${what} is not an allowed_signers line ("principals [options] keytype base64") or a public key`,
    );
  }
  const key = parsePublicKeyLine(words.slice(typeAt).join(' '), what);
  const options: SignerOptions = {
    principals:
      typeAt === 0
        ? []
        : unquote(words[0]!)
            .split(',')
            .filter((p) => p !== ''),
  };
  if (typeAt === 2) {
    for (const option of splitOutsideQuotes(words[1]!, /,/)) {
      const eq = option.indexOf('=');
      const name = (eq < 0 ? option : option.slice(0, eq)).toLowerCase();
      const value = eq < 0 ? undefined : unquote(option.slice(eq + 1));
      if (name === 'cert-authority') throw new InvalidValue(`${what}: cert-authority lines are not accepted`);
      else if (name === 'namespaces' && value !== undefined) options.namespaces = value.split(',');
      else if (name === 'valid-after' && value !== undefined)
        options.validAfter = parseSignerTime(value, name);
      else if (name === 'valid-before' && value !== undefined)
        options.validBefore = parseSignerTime(value, name);
      else throw new InvalidValue(`${what}: unknown option "${option}"`);
    }
  }
  return { key, ...options };
}

/** OpenSSH's pattern lists: `*` and `?` wildcards, `!` negates (a negated match refuses). */
export function matchPatternList(value: string, patterns: readonly string[]): boolean {
  let matched = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = negated ? raw.slice(1) : raw;
    const regex = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    if (regex.test(value)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

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
