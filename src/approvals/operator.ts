/**
 * What this machine says about the person at it: how to name them (git's user.name and user.email, else
 * the login name: a label) and the SSH key they sign with (who they are, as a policy knows people) (`--key`, else the user.signingkey git would use for an
 * SSH-signed commit, else the first of ssh-agent's keys the policy knows).
 *
 * Signing shells out to `ssh-keygen -Y sign` rather than speaking the agent protocol: ssh-keygen already
 * handles private key files, passphrases, ssh-agent and hardware keys (the touch, the PIN), which is the
 * point of using the keys operators already have. ssh-keygen, ssh-add and git get the environment every
 * child of pix gets (context.ts childEnv: the user's, without pix's secrets; architecture rule 10), which
 * keeps SSH_AUTH_SOCK, the askpass and security-key provider variables and git's config. Verification
 * never shells out (domain/sshsig.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { childEnv, type Deps } from '../context.js';
import { InvalidValue } from '../domain/invalid.js';
import type { PlanMaker } from '../domain/plan.js';
import type { Approver, Policy } from '../domain/policy.js';
import { parsePublicKeyLine, type SshPublicKey } from '../domain/sshkeys.js';
import { PixError, usageError } from '../errors.js';
import { safeText } from '../output/sanitize.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  missing: boolean;
}

/** Runs a program to its end with `input` on stdin; `missing` when it is not installed. */
function runProgram(deps: Deps, file: string, args: string[], input = ''): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(file, args, { env: childEnv(deps.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      done({ code: null, stdout, stderr: error.message, missing: error.code === 'ENOENT' }),
    );
    child.on('close', (code) => done({ code, stdout, stderr, missing: false }));
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** `git config --get NAME`, or undefined (no git, no value). */
async function gitConfig(deps: Deps, name: string): Promise<string | undefined> {
  const ran = await runProgram(deps, 'git', ['config', '--get', name]);
  const value = ran.stdout.trim();
  return ran.code === 0 && value !== '' ? value : undefined;
}

// ---------------------------------------------------------------------------------------------
// Who

/** `Ana Souza <ana@example.com>` → name and e-mail; a bare name has no e-mail. */
export function parseMaker(text: string): { name: string; email?: string } {
  const trimmed = text.trim();
  const match = /^(.*?)\s*<([^<>\s]+@[^<>\s]+)>$/.exec(trimmed);
  if (match) {
    const name = match[1]!.trim() || match[2]!;
    return { name, email: match[2]! };
  }
  if (trimmed === '' || trimmed.length > 200 || /[\x00-\x1f\x7f]/.test(trimmed))
    throw new InvalidValue('a name, or "Name <e-mail>", at most 200 characters');
  return trimmed.includes('@') && !/\s/.test(trimmed) ? { name: trimmed, email: trimmed } : { name: trimmed };
}

/**
 * How the maker of a plan is named for people: `--by`, else git's user.name and user.email, else the login
 * name, else `policyName` (the policy's name for the key that signs). A label: the maker is the person whose
 * key signs the plan.
 */
export async function whoMakes(
  deps: Deps,
  by: string | undefined,
  policyName?: string,
): Promise<Omit<PlanMaker, 'key'>> {
  if (by !== undefined) return { ...parseMaker(by), from: 'flag' };
  const [name, email] = await Promise.all([gitConfig(deps, 'user.name'), gitConfig(deps, 'user.email')]);
  if (name !== undefined || email !== undefined) {
    return { name: name ?? email!, ...(email === undefined ? {} : { email }), from: 'git' };
  }
  const login = deps.env.USER ?? deps.env.LOGNAME;
  if ((login === undefined || login === '') && policyName !== undefined)
    return { name: policyName, from: 'policy' };
  if (login === undefined || login === '') {
    throw usageError(
      '--by',
      'cannot tell who makes this plan (no git user.name, no login name)',
      'pass --by "Name <e-mail>"',
    );
  }
  return { name: login, from: 'login' };
}

// ---------------------------------------------------------------------------------------------
// Which key

export interface SigningKey {
  /** What ssh-keygen -f is given: a private key, or a public key whose private half is in ssh-agent. */
  path: string;
  publicKey: SshPublicKey;
  /** Where it was found, for messages. */
  from: string;
  /** The approver the policy says holds it. */
  approver: Approver;
  cleanup(): void;
}

function expandHome(deps: Deps, path: string): string {
  return path.startsWith('~/') && deps.env.HOME ? join(deps.env.HOME, path.slice(2)) : path;
}

function holderOf(policy: Policy, key: SshPublicKey): Approver | undefined {
  return policy.approvers.find((approver) => approver.keys.some((k) => k.key.blob.equals(key.blob)));
}

/** A public key line written to a private temporary file, for ssh-keygen -f (the agent holds its private half). */
function tempPublicKey(line: string): { path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'pix-key-'));
  const path = join(dir, 'key.pub');
  writeFileSync(path, `${line.trim()}\n`, { mode: 0o600 });
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The public half of a key file: `FILE.pub`, the file itself when it is one, or `ssh-keygen -y -f FILE`. */
async function publicHalf(deps: Deps, path: string, where: string): Promise<SshPublicKey> {
  if (!existsSync(path)) throw usageError(where, `no such file: ${path}`);
  const read = (file: string) =>
    parsePublicKeyLine(readFileSync(file, 'utf8').split('\n')[0] ?? '', `${file}`);
  try {
    if (path.endsWith('.pub')) return read(path);
    if (existsSync(`${path}.pub`)) return read(`${path}.pub`);
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError(where, error.message);
    throw error;
  }
  const ran = await runProgram(deps, 'ssh-keygen', ['-y', '-f', path]);
  if (ran.missing) throw usageError(where, 'ssh-keygen is not installed (OpenSSH 8.2 or later signs)');
  if (ran.code !== 0)
    throw usageError(where, `not a key ssh-keygen can read: ${safeText(ran.stderr.trim(), 200)}`);
  try {
    return parsePublicKeyLine(ran.stdout, path);
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError(where, error.message);
    throw error;
  }
}

/**
 * The key of `--key PATH` alone, for a signature no policy counts (a closed day's pack: commands/close):
 * its private file (or a public one whose private half is in ssh-agent) and its public half.
 */
export async function keyAtPath(deps: Deps, flag: string): Promise<Omit<SigningKey, 'approver'>> {
  const path = resolve(expandHome(deps, flag));
  return { path, publicKey: await publicHalf(deps, path, '--key'), from: '--key', cleanup: () => {} };
}

/**
 * The key to sign with, and the approver the policy says holds it: `--key PATH`, else git's
 * user.signingkey (when gpg.format is ssh: a path, or a literal `key::ssh-…` / `ssh-…` key held by
 * ssh-agent), else the first ssh-agent key the policy knows. A key that is nobody's in the policy is
 * exit 2: signing with it would count for nothing.
 */
export async function findSigningKey(
  deps: Deps,
  policy: Policy,
  policyFile: string,
  flag: string | undefined,
  flagName = '--key',
): Promise<SigningKey> {
  const known = (key: SshPublicKey, where: string): Approver => {
    const approver = holderOf(policy, key);
    if (approver === undefined) {
      throw usageError(
        where,
        `key ${key.fingerprint} is no approver's in ${policyFile}`,
        'sign with a key the policy lists, or ask an admin to add yours',
      );
    }
    return approver;
  };
  const none = () => {};
  if (flag !== undefined) {
    const path = resolve(expandHome(deps, flag));
    const publicKey = await publicHalf(deps, path, flagName);
    return { path, publicKey, from: flagName, approver: known(publicKey, flagName), cleanup: none };
  }
  if ((await gitConfig(deps, 'gpg.format')) === 'ssh') {
    const configured = await gitConfig(deps, 'user.signingkey');
    if (configured !== undefined) {
      const where = 'git config user.signingkey';
      const literal = configured.startsWith('key::')
        ? configured.slice(5)
        : /^(ssh-|ecdsa-|sk-)/.test(configured)
          ? configured
          : undefined;
      if (literal !== undefined) {
        let publicKey: SshPublicKey;
        try {
          publicKey = parsePublicKeyLine(literal, where);
        } catch (error) {
          if (error instanceof InvalidValue) throw usageError(where, error.message);
          throw error;
        }
        const approver = known(publicKey, where);
        const temp = tempPublicKey(literal);
        return {
          path: temp.path,
          publicKey,
          from: `${where} (in ssh-agent)`,
          approver,
          cleanup: temp.cleanup,
        };
      }
      const path = resolve(expandHome(deps, configured));
      const publicKey = await publicHalf(deps, path, where);
      return { path, publicKey, from: where, approver: known(publicKey, where), cleanup: none };
    }
  }
  if (deps.env.SSH_AUTH_SOCK) {
    const ran = await runProgram(deps, 'ssh-add', ['-L']);
    if (ran.code === 0) {
      for (const line of ran.stdout.split('\n')) {
        let publicKey: SshPublicKey;
        try {
          publicKey = parsePublicKeyLine(line, 'an agent key');
        } catch {
          continue; // a key type pix does not take
        }
        const approver = holderOf(policy, publicKey);
        if (approver === undefined) continue;
        const temp = tempPublicKey(line);
        return { path: temp.path, publicKey, from: 'ssh-agent', approver, cleanup: temp.cleanup };
      }
      throw usageError(
        flagName,
        `none of ssh-agent's keys is an approver's in ${policyFile}`,
        'pass --key PATH',
      );
    }
  }
  throw usageError(
    flagName,
    'no key to sign with',
    'pass --key PATH, set git config user.signingkey (with gpg.format ssh), or add your key to ssh-agent',
  );
}

/**
 * `ssh-keygen -Y sign -n NAMESPACE -f KEY` over `message` (on its stdin): the armored signature. What
 * ssh-keygen says on stderr (a passphrase prompt goes to the terminal itself; "Confirm user presence"
 * for a hardware key) is passed on; a failure is exit 2 with its words.
 */
export async function signWith(
  deps: Deps,
  key: Pick<SigningKey, 'path' | 'publicKey' | 'from'>,
  namespace: string,
  message: Buffer,
): Promise<string> {
  const ran = await runProgram(
    deps,
    'ssh-keygen',
    ['-Y', 'sign', '-n', namespace, '-f', key.path],
    message.toString('utf8'),
  );
  if (ran.missing) throw usageError('--key', 'ssh-keygen is not installed (OpenSSH 8.2 or later signs)');
  const said = ran.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('Signing data on standard input'));
  if (ran.code !== 0) {
    throw new PixError(
      'usage',
      `ssh-keygen could not sign with ${key.from} (${key.publicKey.fingerprint}): ${safeText(said.join('; '), 300)}`,
      {
        hint: 'is the key in ssh-agent (ssh-add), or its private file readable?',
      },
    );
  }
  for (const line of said) deps.io.stderr.write(`ssh-keygen: ${safeText(line, 200)}\n`);
  return ran.stdout;
}
