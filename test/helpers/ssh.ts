/**
 * Real SSH keys and signatures for tests: keys made by `ssh-keygen` in a temporary directory, signatures
 * made and checked by `ssh-keygen -Y sign|verify` (the oracle pix's own verifier is compared with), and
 * security-key (sk-) signatures built by hand from PROTOCOL.u2f with a software key, as an authenticator
 * would make them (no hardware key is needed, and ssh-keygen checks them too).
 */
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SK_ECDSA, SK_ED25519 } from '../../src/domain/sshkeys.js';
import { armor, signatureBlob, signedData } from '../../src/domain/sshsig.js';
import { sshString } from '../../src/domain/sshwire.js';

/** ssh-keygen with nothing of the developer's: no agent, no config. */
const SSH_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() };

export function sshKeygen(
  args: string[],
  input?: string | Buffer,
): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync('ssh-keygen', args, {
    env: SSH_ENV,
    ...(input === undefined ? {} : { input }),
    encoding: 'utf8',
  });
  if (result.error) throw new Error(`ssh-keygen is needed by this test: ${result.error.message}`);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export type KeyKind = 'ed25519' | 'ecdsa' | 'ecdsa-384' | 'ecdsa-521' | 'rsa';

export interface TestKey {
  kind: KeyKind | 'sk-ed25519' | 'sk-ecdsa';
  /** The private key file (for ssh-keygen -Y sign); absent for a hand-built security key. */
  privatePath?: string;
  /** The `.pub` line: `type base64 comment`. */
  publicLine: string;
  /** Signs a message in a namespace, as `ssh-keygen -Y sign` (or an authenticator) does: the armored text. */
  sign(message: string | Buffer, namespace: string, options?: { flags?: number }): string;
}

/** A temporary directory for keys, removed by `cleanup()`. */
export function keyDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'pix-ssh-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

let counter = 0;

/** A key made by ssh-keygen in `dir`. */
export function makeKey(dir: string, kind: KeyKind, comment = `${kind}@test`): TestKey {
  const path = join(dir, `key-${kind}-${++counter}`);
  const [type, bits] =
    kind === 'rsa'
      ? ['rsa', '3072']
      : kind === 'ecdsa'
        ? ['ecdsa', '256']
        : kind === 'ecdsa-384'
          ? ['ecdsa', '384']
          : kind === 'ecdsa-521'
            ? ['ecdsa', '521']
            : ['ed25519', undefined];
  const made = sshKeygen([
    '-q',
    '-t',
    type!,
    ...(bits ? ['-b', bits] : []),
    '-N',
    '',
    '-C',
    comment,
    '-f',
    path,
  ]);
  if (made.code !== 0) throw new Error(`ssh-keygen -t ${type}: ${made.stderr}`);
  return {
    kind,
    privatePath: path,
    publicLine: readFileSync(`${path}.pub`, 'utf8').trim(),
    sign(message, namespace) {
      const result = sshKeygen(['-Y', 'sign', '-n', namespace, '-f', path], message);
      if (result.code !== 0) throw new Error(`ssh-keygen -Y sign: ${result.stderr}`);
      return result.stdout;
    },
  };
}

function mpint(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return sshString((trimmed[0]! & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

/**
 * A security key (PROTOCOL.u2f) built by hand with a software key pair: its public line has the sk- type
 * and an application (`ssh:` as ssh-keygen -t ed25519-sk makes); `sign` makes what an authenticator
 * returns — an ed25519 or ECDSA P-256 signature over SHA-256(application) ‖ flags ‖ counter ‖
 * SHA-256(signed data) — wrapped as sshsig. `flags` defaults to 0x01 (user present).
 */
export function makeSecurityKey(kind: 'sk-ed25519' | 'sk-ecdsa', application = 'ssh:'): TestKey {
  let publicBlob: Buffer;
  let privateKey: KeyObject;
  if (kind === 'sk-ed25519') {
    const pair = generateKeyPairSync('ed25519');
    privateKey = pair.privateKey;
    const raw = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x!, 'base64url');
    publicBlob = Buffer.concat([sshString(SK_ED25519), sshString(raw), sshString(application)]);
  } else {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    privateKey = pair.privateKey;
    const jwk = pair.publicKey.export({ format: 'jwk' });
    const point = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(jwk.x!, 'base64url'),
      Buffer.from(jwk.y!, 'base64url'),
    ]);
    publicBlob = Buffer.concat([
      sshString(SK_ECDSA),
      sshString('nistp256'),
      sshString(point),
      sshString(application),
    ]);
  }
  const type = kind === 'sk-ed25519' ? SK_ED25519 : SK_ECDSA;
  let count = 0;
  return {
    kind,
    publicLine: `${type} ${publicBlob.toString('base64')} ${kind}@test`,
    sign(message, namespace, options = {}) {
      const flags = options.flags ?? 0x01;
      const data = signedData(namespace, 'sha512', Buffer.from(message));
      const signed = Buffer.concat([
        createHash('sha256').update(application).digest(),
        Buffer.from([flags]),
        u32(++count),
        createHash('sha256').update(data).digest(),
      ]);
      let raw: Buffer;
      if (kind === 'sk-ed25519') {
        raw = sshString(sign(null, signed, privateKey));
      } else {
        const rs = sign('sha256', signed, { key: privateKey, dsaEncoding: 'ieee-p1363' });
        raw = sshString(Buffer.concat([mpint(rs.subarray(0, 32)), mpint(rs.subarray(32))]));
      }
      const blob = Buffer.concat([sshString(type), raw, Buffer.from([flags]), u32(count)]);
      return armor(signatureBlob(publicBlob, namespace, 'sha512', blob));
    },
  };
}

/**
 * `ssh-keygen -Y verify`: whether OpenSSH accepts `signature` of `message` by `principal` in `namespace`,
 * given an allowed_signers file made of `lines`.
 */
export function opensshVerifies(
  dir: string,
  lines: string[],
  principal: string,
  namespace: string,
  message: string | Buffer,
  signature: string,
): boolean {
  const signers = join(dir, `allowed-${++counter}`);
  const sigFile = join(dir, `sig-${counter}`);
  writeFileSync(signers, `${lines.join('\n')}\n`);
  writeFileSync(sigFile, signature);
  const result = sshKeygen(
    ['-Y', 'verify', '-f', signers, '-I', principal, '-n', namespace, '-s', sigFile],
    message,
  );
  return result.code === 0;
}

/** An ed25519 key made in-process (no ssh-keygen), as a `.pub` line, for tests that only read keys. */
export function softwareKeyLine(comment = 'test'): string {
  const pair = generateKeyPairSync('ed25519');
  const raw = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return `ssh-ed25519 ${Buffer.concat([sshString('ssh-ed25519'), sshString(raw)]).toString('base64')} ${comment}`;
}
