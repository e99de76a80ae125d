import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidValue } from '../../src/domain/invalid.js';
import { fingerprintOf, parsePublicKeyLine } from '../../src/domain/sshkeys.js';
import { parseArmoredSignature, verifySshSig } from '../../src/domain/sshsig.js';
import { matchPatternList, parseAllowedSigner } from '../../src/domain/sshsigners.js';
import { reasonOf } from '../helpers/domain.js';
import {
  keyDir,
  makeKey,
  makeSecurityKey,
  opensshVerifies,
  sshKeygen,
  type TestKey,
} from '../helpers/ssh.js';

/**
 * pix's verifier against OpenSSH's: the same signatures, made by `ssh-keygen -Y sign` (or by hand for
 * security keys, as an authenticator makes them), must be accepted or refused by both alike.
 */
const scratch = keyDir();
afterAll(() => scratch.cleanup());

const NS = 'pix-plan';
const PRINCIPAL = 'ana@example.com';
const NOW = Date.parse('2026-03-10T12:00:00Z');

const keys: TestKey[] = [
  makeKey(scratch.dir, 'ed25519'),
  makeKey(scratch.dir, 'ecdsa'),
  makeKey(scratch.dir, 'ecdsa-384'),
  makeKey(scratch.dir, 'ecdsa-521'),
  makeKey(scratch.dir, 'rsa'),
  makeSecurityKey('sk-ed25519'),
  makeSecurityKey('sk-ecdsa'),
];
const other = makeKey(scratch.dir, 'ed25519', 'bruno@test');

/** pix's answer: the signature read, checked against the allowed_signers line given. */
function pixVerifies(line: string, namespace: string, message: string, signature: string): boolean {
  return verifySshSig(
    parseArmoredSignature(signature),
    Buffer.from(message),
    namespace,
    parseAllowedSigner(line),
    NOW,
  ).ok;
}

describe.each(keys.map((key) => [key.kind, key] as const))(
  '%s: pix agrees with ssh-keygen -Y verify',
  (_, key) => {
    const message = 'approve sha256:0123abcd\n';
    const signature = key.sign(message, NS);
    const line = `${PRINCIPAL} ${key.publicLine}`;

    it('a valid signature: both accept', () => {
      expect(opensshVerifies(scratch.dir, [line], PRINCIPAL, NS, message, signature)).toBe(true);
      expect(pixVerifies(line, NS, message, signature)).toBe(true);
    });

    it('a tampered message: both refuse', () => {
      const tampered = message.replace('abcd', 'abce');
      expect(opensshVerifies(scratch.dir, [line], PRINCIPAL, NS, tampered, signature)).toBe(false);
      expect(pixVerifies(line, NS, tampered, signature)).toBe(false);
    });

    it('the wrong namespace: both refuse', () => {
      const git = key.sign(message, 'git');
      expect(opensshVerifies(scratch.dir, [line], PRINCIPAL, NS, message, git)).toBe(false);
      expect(pixVerifies(line, NS, message, git)).toBe(false);
    });

    it('the wrong key: both refuse', () => {
      const wrong = `${PRINCIPAL} ${other.publicLine}`;
      expect(opensshVerifies(scratch.dir, [wrong], PRINCIPAL, NS, message, signature)).toBe(false);
      expect(pixVerifies(wrong, NS, message, signature)).toBe(false);
    });

    it('a signature blob with one bit flipped: both refuse', () => {
      const blob = Buffer.from(signature.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
      blob[blob.length - 10]! ^= 0x01;
      const flipped = `-----BEGIN SSH SIGNATURE-----\n${blob.toString('base64')}\n-----END SSH SIGNATURE-----\n`;
      expect(opensshVerifies(scratch.dir, [line], PRINCIPAL, NS, message, flipped)).toBe(false);
      let pix: boolean;
      try {
        pix = pixVerifies(line, NS, message, flipped);
      } catch (error) {
        // A flipped bit in an ECDSA mpint may make it unreadable (exit 2), which refuses it too.
        expect(error).toBeInstanceOf(InvalidValue);
        pix = false;
      }
      expect(pix).toBe(false);
    });

    it('the fingerprint is the one ssh-keygen -l prints', () => {
      const file = join(scratch.dir, `fp-${key.kind}.pub`);
      writeFileSync(file, `${key.publicLine}\n`);
      const printed = sshKeygen(['-l', '-f', file]);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout).toContain(parsePublicKeyLine(key.publicLine).fingerprint);
    });
  },
);

describe('security keys: user presence', () => {
  const sk = makeSecurityKey('sk-ed25519');
  const message = 'approve sha256:ff\n';
  const untouched = sk.sign(message, NS, { flags: 0x00 });
  const line = `${PRINCIPAL} ${sk.publicLine}`;

  it('a signature made without a touch: ssh-keygen accepts it, pix refuses it unless the signer is marked', () => {
    // The one difference, on purpose (src/domain/sshsig.ts): ssh-keygen -Y verify ignores the flag.
    expect(opensshVerifies(scratch.dir, [line], PRINCIPAL, NS, message, untouched)).toBe(true);
    const signer = parseAllowedSigner(line);
    const sig = parseArmoredSignature(untouched);
    expect(verifySshSig(sig, Buffer.from(message), NS, signer, NOW)).toEqual({
      ok: false,
      reason: 'the security key was not touched (no user presence)',
    });
    expect(verifySshSig(sig, Buffer.from(message), NS, { ...signer, noTouchRequired: true }, NOW).ok).toBe(
      true,
    );
  });
});

describe('allowed_signers options', () => {
  const key = keys[0]!;
  const message = 'approve sha256:aa\n';
  const signature = key.sign(message, NS);

  it('namespaces="…": a key limited to git signs no plan, for both', () => {
    const gitOnly = `${PRINCIPAL} namespaces="git" ${key.publicLine}`;
    expect(opensshVerifies(scratch.dir, [gitOnly], PRINCIPAL, NS, message, signature)).toBe(false);
    expect(pixVerifies(gitOnly, NS, message, signature)).toBe(false);
    const both = `${PRINCIPAL} namespaces="git,pix-*" ${key.publicLine}`;
    expect(opensshVerifies(scratch.dir, [both], PRINCIPAL, NS, message, signature)).toBe(true);
    expect(pixVerifies(both, NS, message, signature)).toBe(true);
  });

  it('valid-before in the past refuses; valid-after in the past accepts', () => {
    const expired = parseAllowedSigner(`${PRINCIPAL} valid-before="20200101Z" ${key.publicLine}`);
    const sig = parseArmoredSignature(signature);
    expect(verifySshSig(sig, Buffer.from(message), NS, expired, NOW)).toEqual({
      ok: false,
      reason: 'the key is no longer valid (valid-before)',
    });
    const started = parseAllowedSigner(`${PRINCIPAL} valid-after="20200101Z" ${key.publicLine}`);
    expect(verifySshSig(sig, Buffer.from(message), NS, started, NOW).ok).toBe(true);
  });

  it('reads principals, and a bare .pub line', () => {
    expect(parseAllowedSigner(`a@x,b@y ${key.publicLine}`).principals).toEqual(['a@x', 'b@y']);
    expect(parseAllowedSigner(key.publicLine).principals).toEqual([]);
  });

  it('refuses what it cannot honour, naming it', () => {
    expect(reasonOf(() => parseAllowedSigner(`a@x cert-authority ${key.publicLine}`))).toBe(
      'the key: cert-authority lines are not accepted',
    );
    expect(reasonOf(() => parseAllowedSigner(`a@x valid-after="20200101" ${key.publicLine}`))).toContain(
      'pix reads only UTC times',
    );
    expect(reasonOf(() => parseAllowedSigner('a@x ssh-ed25519 !!!'))).toBe('the key is not base64');
    expect(reasonOf(() => parseAllowedSigner('just words'))).toContain('is not an allowed_signers line');
  });

  it('pattern lists: wildcards and negation', () => {
    expect(matchPatternList('pix-plan', ['pix-*'])).toBe(true);
    expect(matchPatternList('pix-plan', ['pix-*', '!pix-plan'])).toBe(false);
    expect(matchPatternList('git', ['pix-?lan'])).toBe(false);
  });
});

describe('malformed input is InvalidValue (exit 2), not a refusal', () => {
  it('not armored, cut short, another magic, an unknown hash', () => {
    expect(reasonOf(() => parseArmoredSignature('hello'))).toContain('is not an SSH signature');
    const good = keys[0]!.sign('m', NS);
    const body = Buffer.from(good.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
    const wrap = (bytes: Buffer) =>
      `-----BEGIN SSH SIGNATURE-----\n${bytes.toString('base64')}\n-----END SSH SIGNATURE-----`;
    expect(reasonOf(() => parseArmoredSignature(wrap(body.subarray(0, 40))))).toBe(
      'the signature is cut short',
    );
    const magic = Buffer.from(body);
    magic.write('XXHSIG', 0, 'latin1');
    expect(reasonOf(() => parseArmoredSignature(wrap(magic)))).toBe(
      'the signature does not start with SSHSIG',
    );
  });

  it('an RSA key under 2048 bits is refused', () => {
    const dir = keyDir();
    try {
      const path = `${dir.dir}/small`;
      sshKeygen(['-q', '-t', 'rsa', '-b', '1024', '-N', '', '-f', path]);
      expect(reasonOf(() => parsePublicKeyLine(readFileSync(`${path}.pub`, 'utf8')))).toBe(
        'the key: an RSA key of 1024 bits is too short (at least 2048)',
      );
    } finally {
      dir.cleanup();
    }
  });

  it('fingerprints are SHA256: unpadded base64', () => {
    expect(fingerprintOf(Buffer.from('x'))).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });
});
