/**
 * The journal's chain and checkpoint (docs/reliability.md, "The journal's chain"), pure: no I/O.
 *
 * Every line pix appends names the line before it: `"prev"` is the digest of the previous line's text
 * (the first line of a journal names the empty text). A line removed, edited or moved then breaks the
 * chain at the line after it. The END of the journal has no line after it, so a checkpoint file beside
 * it (`journal.jsonl.checkpoint`, replaced after every append) records where the journal ended: its
 * last line's number and digest, and its length. A journal shorter than its checkpoint was cut.
 *
 * What is a member of the chain: every whole line except blank lines, the torn mark and a torn line
 * (parser.ts TORN_MARK) — a write cut short never counted. Lines written by a pix without the chain
 * (no `prev`) are accepted as they are until the first line that has one; from there on, every line
 * must. The digest is SHA-256 of the line's text (its UTF-8 bytes, without the newline and without a
 * byte-order mark an editor put at the start of the file), the first 96 bits in base64url: enough to
 * tell an edited line from the one written, and short on every line.
 */
import { hash } from 'node:crypto';

/** The file beside the journal that records where it ended. */
export const CHECKPOINT_SUFFIX = '.checkpoint';

/** A line's digest as `prev` and the checkpoint name it. */
export function lineDigest(text: string): string {
  return hash('sha256', text, 'base64url').slice(0, 16);
}

/** What the first line of a journal names as its previous line: the empty text. */
export const GENESIS = lineDigest('');

/** What the checkpoint records: the number and digest of the journal's last line, and its length. */
export interface Checkpoint {
  /** The last line's number, as an editor numbers lines (blank and torn lines included). */
  lines: number;
  /** The journal's length in bytes up to and including that line's newline. */
  bytes: number;
  /** The last line's digest. */
  last: string;
  /**
   * The journal's file stamp (storage/files.ts fileStamp) after that line, when its writer vouches that
   * the journal was sound and untouched by anyone but pix up to it: the journal found with that stamp is
   * that journal, and a payment may consult its index instead of reading the history (resume.ts). Kept
   * as a digest (stampDigest), so the record stays within CHECKPOINT_BYTES whatever the file's numbers.
   */
  seen?: string;
}

/** A file stamp as the checkpoint keeps it. */
export function stampDigest(stamp: string): string {
  return lineDigest(stamp);
}

/**
 * The checkpoint file's length: every checkpoint is padded to it, so each replaces the last in place
 * with one small write (storage/files.ts overwritePrivateFile), inside the first sector of the file.
 */
export const CHECKPOINT_BYTES = 128;

export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { lines, bytes, last, seen } = checkpoint;
  const text = JSON.stringify({ lines, bytes, last, ...(seen === undefined ? {} : { seen }) });
  return `${text.padEnd(CHECKPOINT_BYTES - 1)}\n`;
}

/** The checkpoint in `text`; undefined when it is not one (an empty or garbled file reads as none). */
export function parseCheckpoint(text: string): Checkpoint | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { lines, bytes, last } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(lines) || (lines as number) < 1) return undefined;
  if (!Number.isSafeInteger(bytes) || (bytes as number) < 1) return undefined;
  if (typeof last !== 'string') return undefined;
  const { seen } = value as Record<string, unknown>;
  return {
    lines: lines as number,
    bytes: bytes as number,
    last,
    ...(typeof seen === 'string' ? { seen } : {}),
  };
}

/** A line of the chain: its number and digest. */
export interface Member {
  line: number;
  digest: string;
}

/** The end of the journal as the reader left it (parser.ts JournalParser.tail). */
export interface ChainTail {
  /** Whole lines read (blank and torn lines included). */
  lines: number;
  /** Bytes read: the whole lines'. */
  bytes: number;
  /** The last member of the chain, and the one before it. */
  last?: Member;
  before?: Member;
  /** How many lines carry a `prev` (counted up to 2: only "none, one, more" matters). */
  chained: number;
  /** The first line that carries a `prev`: where the chain starts. */
  start?: number;
}

/**
 * What the checkpoint says of the journal's end:
 * - `ok`: it names the last line, or the one before it (`lag` 1: a writer killed between its line and
 *   the checkpoint), or there is none and at most one line is chained (a first chained line whose
 *   writer was killed before its checkpoint, or a journal pix never chained);
 * - `ahead`: it names a line past the end: lines were cut, or appended since the end was read (the
 *   caller reads on and asks again: opened.ts judgeEnd);
 * - `damaged`: the reason, and the line it is said of.
 */
export type Judgement =
  | { kind: 'ok'; lag: number }
  | { kind: 'ahead'; checkpoint: Checkpoint }
  | { kind: 'damaged'; line: number; reason: string };

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

export function judgeCheckpoint(
  checkpoint: Checkpoint | undefined,
  tail: ChainTail,
  file: string,
): Judgement {
  const { last, before } = tail;
  if (checkpoint === undefined) {
    if (tail.chained <= 1) return { kind: 'ok', lag: 0 };
    return {
      kind: 'damaged',
      line: last?.line ?? tail.lines,
      reason: `its checkpoint ${file} is missing or unreadable, so the end of the journal cannot be vouched for (restored or copied without it?)`,
    };
  }
  // The line the checkpoint names, found under another number: lines were removed or added before it.
  for (const member of [last, before]) {
    if (member === undefined || member.digest !== checkpoint.last || member.line === checkpoint.lines)
      continue;
    const moved = checkpoint.lines - member.line;
    return {
      kind: 'damaged',
      line: member.line,
      reason: `its checkpoint recorded this line as line ${checkpoint.lines}: ${plural(Math.abs(moved), 'line')} ${moved > 0 ? 'removed' : 'added'} before it`,
    };
  }
  if (checkpoint.lines > tail.lines) return { kind: 'ahead', checkpoint };
  if (last !== undefined && checkpoint.lines === last.line) {
    if (checkpoint.last === last.digest) return { kind: 'ok', lag: 0 };
    return {
      kind: 'damaged',
      line: last.line,
      reason: 'the last line is not the one its checkpoint recorded: edited, or the journal was replaced',
    };
  }
  if (before !== undefined && checkpoint.lines === before.line) {
    if (checkpoint.last === before.digest) return { kind: 'ok', lag: 1 };
    return {
      kind: 'damaged',
      line: before.line,
      reason: 'not the line its checkpoint recorded: edited, or the journal was replaced',
    };
  }
  const after = tail.lines - checkpoint.lines;
  return {
    kind: 'damaged',
    line: checkpoint.lines,
    reason: `its checkpoint says the journal ended at this line, but ${plural(after, 'line follows', 'lines follow')} it: the checkpoint is older than the journal (restored from a copy?), or the journal was edited or replaced`,
  };
}

/** The damage of a journal shorter than its checkpoint. */
export function cutDamage(checkpoint: Checkpoint, tail: ChainTail): { line: number; reason: string } {
  const missing = checkpoint.lines - tail.lines;
  const ends =
    tail.lines === 0 ? 'the journal is empty or missing' : `the journal ends at line ${tail.lines}`;
  return {
    line: tail.lines + 1,
    reason: `${ends} (${tail.bytes.toLocaleString('en')} bytes), but its checkpoint says ${plural(checkpoint.lines, 'line')} (${checkpoint.bytes.toLocaleString('en')} bytes): ${missing === 1 ? 'its last line was' : `its last ${missing} lines were`} cut`,
  };
}

/**
 * Follows the chain line by line for the reader (parser.ts): says what breaks it, and keeps the two
 * last members for the checkpoint. A line's digest is computed only when asked for (the next line
 * names one, or the end is judged): a journal without `prev` costs no hashing.
 */
export interface ChainFollower {
  /**
   * Member line `line` with text `text` and its `prev` (undefined: none; null: not a journal line at
   * all). `damaged`: the line itself is damage (already said), so a break right after it is its doing and
   * not said again. Returns what breaks the chain at this line, if anything.
   */
  follow(line: number, text: string, prev: unknown, damaged: boolean): string | undefined;
  /** The digest the next line must name. */
  head(): string;
  /** The two last members, with a line not yet followed (an unreadable line, maybe torn) as the last. */
  tail(lines: number, bytes: number, pending?: { line: number; text: string }): ChainTail;
}

interface Held {
  line: number;
  text: string;
  digest?: string;
}

const digestOf = (held: Held): string => {
  held.digest ??= lineDigest(held.text);
  return held.digest;
};

/** `from`: the tail of the lines already followed (a journal's index resumes there: resume.ts). */
export function createChainFollower(from?: ChainTail): ChainFollower {
  const held = (member: Member | undefined): Held | undefined =>
    member === undefined ? undefined : { line: member.line, text: '', digest: member.digest };
  let last = held(from?.last);
  let before = held(from?.before);
  /** The first line with a `prev`: from there on every line has one. */
  let start = from?.start;
  let chained = from?.chained ?? 0;
  let lastDamaged = false;
  const head = () => (last === undefined ? GENESIS : digestOf(last));
  return {
    follow(line, text, prev, damaged) {
      let problem: string | undefined;
      if (prev !== undefined && prev !== null) {
        start ??= line;
        if (chained < 2) chained++;
        if (typeof prev !== 'string') problem = 'its prev is not a digest: edited';
        else if (prev !== head() && !lastDamaged) {
          problem =
            last === undefined
              ? 'it names a previous line, and there is none: lines were removed before it'
              : `it does not follow line ${last.line} (its prev names another line): line ${last.line} was edited, or lines between them were removed or moved`;
        }
      } else if (start !== undefined && prev !== null && !damaged) {
        problem = `it has no prev, and the chain starts at line ${start}: added by hand or by an older pix, or edited`;
      }
      before = last;
      last = { line, text };
      // A line whose own text is damaged was edited: that the next line does not follow it is its doing.
      // A line out of place is whole, and the next line is checked against it.
      lastDamaged = damaged;
      return problem;
    },
    head: () => head(),
    tail(lines, bytes, pending) {
      const newest = pending === undefined ? last : pending;
      const previous = pending === undefined ? before : last;
      return {
        lines,
        bytes,
        ...(newest === undefined ? {} : { last: { line: newest.line, digest: digestOf(newest) } }),
        ...(previous === undefined ? {} : { before: { line: previous.line, digest: digestOf(previous) } }),
        chained,
        ...(start === undefined ? {} : { start }),
      };
    },
  };
}
