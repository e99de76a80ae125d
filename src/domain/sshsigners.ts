/**
 * `allowed_signers` lines (ssh-keygen(1), ALLOWED SIGNERS), as the payment policy names its approvers'
 * keys: the principals, the options (`namespaces`, `valid-after`, `valid-before`; `cert-authority`
 * refused) and the key, and OpenSSH's pattern lists for principals and namespaces.
 */

import { InvalidValue } from './invalid.js';
import { isKeyType, parsePublicKeyLine, type SshPublicKey } from './sshkeys.js';

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
