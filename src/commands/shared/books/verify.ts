/**
 * A closed day is believed only once it checks (`pix close` and `pix close --list` read every one through
 * here): its arithmetic (its opening plus its entries is its closing, its opening the closing of the day
 * before: domain/books.ts closeProblems), its pack's digests (SHA256SUMS is the one it was closed with and
 * has its digest, each file of the pack is the one SHA256SUMS names, the OFX's ledger balance is its
 * closing), and its SSH signature over SHA256SUMS, in the `pix-close` namespace, by the key that signed it
 * (domain/sshsig.ts: what `ssh-keygen -Y verify` checks). A pack that is not on this machine (closed on
 * another machine of a shared ledger) is checked by what the close keeps of it: its SHA256SUMS and signature.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type ClosedDay, closeProblems } from '../../../domain/books.js';
import { InvalidValue } from '../../../domain/invalid.js';
import { formatDecimal } from '../../../domain/money.js';
import { parsePublicKeyLine } from '../../../domain/sshkeys.js';
import { parseArmoredSignature, verifySshSig } from '../../../domain/sshsig.js';
import { PixError } from '../../../errors.js';
import { readPrivateFrom } from '../../../storage/files.js';
import { CLOSE_NAMESPACE } from './signing.js';
import type { Books } from './store.js';

export interface CloseProblem {
  day: string;
  reason: string;
}

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A file of the pack as bytes, or undefined when it is not there (nor readable). */
function packFile(dir: string, name: string): Buffer | undefined {
  try {
    return readPrivateFrom(join(dir, name), 0)?.bytes;
  } catch {
    // A link or anything but a regular file is not the pack pix wrote: as if it were not there.
    return undefined;
  }
}

/** The pack's own text of SHA256SUMS when it is on this machine. */
function packSums(close: ClosedDay): string | undefined {
  return packFile(close.dir, 'SHA256SUMS')?.toString('utf8');
}

function packProblems(close: ClosedDay): string[] {
  const sums = packSums(close);
  if (sums === undefined) return [];
  if (close.sums !== undefined && sums !== close.sums)
    return [`its pack's SHA256SUMS (${close.dir}) is not the one it was closed with`];
  if (sha256(sums) !== close.digest)
    return [`its pack's SHA256SUMS (${close.dir}) does not have the digest it was closed with`];
  const problems: string[] = [];
  for (const line of sums.split('\n').filter(Boolean)) {
    const [digest, name] = [line.slice(0, 64), line.slice(66)];
    const bytes = packFile(close.dir, name);
    if (bytes === undefined) problems.push(`its pack's ${name} is missing`);
    else if (sha256(bytes) !== digest)
      problems.push(`its pack's ${name} is not the one SHA256SUMS names (edited?)`);
  }
  const ofx = packFile(close.dir, `${close.day}.ofx`)?.toString('utf8');
  const balance = ofx === undefined ? undefined : /<LEDGERBAL>\s*<BALAMT>\s*([-\d.]+)/.exec(ofx)?.[1];
  if (balance !== undefined && balance !== formatDecimal(close.closing)) {
    problems.push(
      `its pack's OFX says the balance was ${balance}, its close ${formatDecimal(close.closing)}`,
    );
  }
  return problems;
}

function signatureProblems(close: ClosedDay, notes: string[]): string[] {
  if (close.signature === undefined) return [];
  const message = close.sums ?? packSums(close);
  if (message === undefined) {
    notes.push(
      `closed day ${close.day}: its signature was not checked (its SHA256SUMS is not on this machine: ${close.dir})`,
    );
    return [];
  }
  try {
    const signature = parseArmoredSignature(close.signature, `the signature of ${close.day}`);
    const key =
      close.signer === undefined
        ? signature.publicKey
        : parsePublicKeyLine(close.signer, `the signer of ${close.day}`);
    const checked = verifySshSig(
      signature,
      Buffer.from(message, 'utf8'),
      CLOSE_NAMESPACE,
      { key, principals: [] },
      Date.parse(close.closedAt),
    );
    return checked.ok
      ? []
      : [`its signature does not verify with the key that signed it (${key.fingerprint}): ${checked.reason}`];
  } catch (error) {
    if (error instanceof InvalidValue) return [`its signature cannot be read: ${error.message}`];
    throw error;
  }
}

/**
 * The account's closed days, each checked; `problems` names every day that does not check (and the lines
 * that cannot be read), `notes` what could not be checked here.
 */
export async function verifiedCloses(
  books: Books,
): Promise<{ closes: ClosedDay[]; problems: CloseProblem[]; notes: string[] }> {
  const { closes, unreadable } = await books.closes();
  const notes: string[] = [];
  const problems: CloseProblem[] = unreadable.map((where) => ({
    day: 'a closed day',
    reason: `${where} cannot be read (edited or damaged)`,
  }));
  problems.push(...closeProblems(closes));
  for (const close of closes) {
    for (const reason of [...packProblems(close), ...signatureProblems(close, notes)])
      problems.push({ day: close.day, reason });
  }
  return { closes, problems, notes };
}

/** Exit 8 naming the days that do not check (`what`: what was not done because of them). */
export function closesRefusal(books: Books, problems: readonly CloseProblem[], what: string): PixError {
  const first = problems[0]!;
  const more =
    problems.length > 1
      ? ` (and ${problems.length - 1} more: ${[...new Set(problems.slice(1).map((p) => p.day))].join(', ')})`
      : '';
  return new PixError(
    'declined',
    `closed day ${first.day} does not verify: ${first.reason}${more}; ${what}`,
    {
      hint: `a closed day changed outside pix (${books.where}, or its pack): restore it from a copy, or have whoever keeps the books look at it; \`pix close --list\` checks every day`,
    },
  );
}
