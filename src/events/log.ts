/**
 * One account's event files (domain/event-log.ts says what is in them), read and written here alone
 * (found by commands/shared/events.ts eventFiles):
 *
 *   <config dir>/events/<account id>.jsonl        the log (append-only; each line with its checksum)
 *   <config dir>/events/<account id>.checkpoint   where the listener had got to, and how long the log was
 *   <config dir>/events/<account id>.secret       the signing secret (whsec_…, 0600)
 *   <config dir>/events/<account id>.lock         the running listener: its pid and destination
 *
 * Keyed by the account as the API identifies it (commands/shared/account.ts): a renamed profile, a second
 * profile or another spelling of the URL keeps the same log, secret and owed deliveries. The files of
 * earlier versions, named after a profile and a base URL, become the account's the first time it is used
 * through that profile.
 */
import { randomBytes } from 'node:crypto';
import type { Deps } from '../context.js';
import {
  type Checkpoint,
  createLogReader,
  createReplay,
  type EventState,
  encodeLine,
  type LogDamage,
  type LogLine,
  lineDigest,
  parseCheckpoint,
  TORN_MARK,
} from '../domain/event-log.js';
import type { PixEvent } from '../domain/events.js';
import { PixError } from '../errors.js';
import type { Account } from '../journal/rules.js';
import { appendPrivateLine } from '../storage/append.js';
import { readLines, readPrivateFile, writeFileAtomic } from '../storage/files.js';
import { type HeldLock, holdLock, type LockHolder } from '../storage/locks.js';

export interface EventFiles {
  log: string;
  checkpoint: string;
  secret: string;
  lock: string;
  profile: string;
  account: Account;
  /** Every base URL the account was reached by: the scopes of the ids earlier versions made. */
  baseUrls: string[];
}

/** The account's signing secret (`whsec_…`, made on first use, 0600), or a new one with `rotate`. */
export function signingSecret(path: string, rotate = false): string {
  const existing = rotate ? undefined : readPrivateFile(path)?.trim();
  if (existing) return existing;
  const secret = newSecret();
  writeFileAtomic(path, `${secret}\n`);
  return secret;
}

/** A new signing secret. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}

/** Appends lines to the log in one write (each with its checksum), after a torn line's mark if need be. */
export function appendLog(files: Pick<EventFiles, 'log'>, lines: readonly LogLine[]): void {
  if (lines.length === 0) return;
  appendPrivateLine(files.log, lines.map(encodeLine).join('\n'), { tornMark: TORN_MARK });
}

/** What the log and its checkpoint add up to, and every problem found in them. */
export interface EventLog {
  /** Every event's delivery state, in the order made (bodies as `readEventLog` was asked to keep them). */
  states: Map<string, EventState>;
  /** The damaged lines, by number. */
  damage: LogDamage[];
  /** A problem of the log as a whole (cut, emptied, missing, replaced, its checkpoint damaged). */
  problem?: string;
  /** Torn writes (a writer killed mid-line): skipped, and harmless. */
  torn: number[];
  /** The checkpoint, when there is a sound one. */
  checkpoint?: Checkpoint;
  /** No checkpoint and a log an earlier version wrote: the listener adopts it. */
  legacy: boolean;
  /** Earlier versions' `seen` ids (statement entries and facts there before their first listen). */
  seen: Set<string>;
  /** Lines, bytes (to the last whole line) and that line's digest, as a checkpoint keeps them. */
  size: { lines: number; bytes: number; last: string };
}

/**
 * Reads the log whole, strictly, a piece at a time, and checks it against its checkpoint
 * (domain/event-log.ts): nothing it cannot take is skipped without a word. `bodies`: which events keep
 * their body in memory.
 */
export function readEventLog(
  files: Pick<EventFiles, 'log' | 'checkpoint'>,
  bodies: 'all' | 'owed',
): EventLog {
  const checkpointText = readPrivateFile(files.checkpoint);
  const parsed = checkpointText === undefined ? undefined : parseCheckpoint(checkpointText);
  const checkpoint = typeof parsed === 'object' ? parsed : undefined;
  const reader = createLogReader((line, number, offset) => replay.apply(line, number, offset), {
    checkedFrom: checkpoint ? checkpoint.log.legacyLines + 1 : Number.POSITIVE_INFINITY,
  });
  const replay = createReplay(bodies, (problem) => reader.report(problem));
  let last = '';
  let previous = '';
  let boundary: { lines: number; digest: string } | undefined;
  const expect = checkpoint?.log.bytes ?? -1;
  const read = readLines(files.log, 0, (text, start) => {
    if (start === expect) boundary = { lines: reader.lines(), digest: lineDigest(previous) };
    reader.feed(text, start);
    previous = text;
  });
  if (read !== undefined) {
    if (read.end === expect) boundary = { lines: reader.lines(), digest: lineDigest(previous) };
    last = read.end === 0 ? '' : lineDigest(previous);
    reader.tail(read.tail);
  }
  const log: EventLog = {
    states: replay.states,
    damage: [],
    torn: reader.torn(),
    legacy: false,
    seen: replay.seen,
    size: { lines: reader.lines() - (read?.tail ? 1 : 0), bytes: read?.end ?? 0, last },
    ...(checkpoint ? { checkpoint } : {}),
  };
  log.damage = reader.damage();
  const problem = wholeLogProblem(files, log, parsed, read === undefined, boundary, reader.summed());
  if (problem !== undefined) log.problem = problem;
  log.legacy = checkpointText === undefined && read !== undefined && problem === undefined;
  return log;
}

/** What is wrong with the log as a whole, judged by its checkpoint, if anything. */
function wholeLogProblem(
  files: Pick<EventFiles, 'log' | 'checkpoint'>,
  log: EventLog,
  parsed: Checkpoint | string | undefined,
  missing: boolean,
  boundary: { lines: number; digest: string } | undefined,
  checked: number,
): string | undefined {
  if (typeof parsed === 'string') return `its checkpoint ${files.checkpoint} is damaged (${parsed})`;
  const { size } = log;
  if (parsed === undefined) {
    if (missing) return undefined;
    if (checked > 0) return `its checkpoint ${files.checkpoint} is missing (this version always writes one)`;
    if (size.lines === 0) return 'it is empty and has no checkpoint: it was emptied';
    return undefined;
  }
  const { lines, bytes, last } = parsed.log;
  const recorded = `its checkpoint records ${lines} line${lines === 1 ? '' : 's'} (${bytes} bytes)`;
  if (missing) return bytes === 0 ? undefined : `it is missing; ${recorded}`;
  if (size.bytes < bytes) return `it was cut or emptied: it has ${size.bytes} bytes; ${recorded}`;
  if (bytes > 0 && (boundary === undefined || boundary.lines !== lines || boundary.digest !== last)) {
    return `it does not match its checkpoint (${recorded}, ending with another line): it was replaced or edited`;
  }
  return undefined;
}

/** The damage of a log as one line: `<file> line 12: not JSON (and 2 more damaged lines)`. */
export function describeLogDamage(files: Pick<EventFiles, 'log'>, log: EventLog): string | undefined {
  if (log.problem !== undefined) return `${files.log}: ${log.problem}`;
  const [first] = log.damage;
  if (first === undefined) return undefined;
  const more = log.damage.length - 1;
  return `${files.log} line ${first.line}: ${first.reason}${more > 0 ? ` (and ${more} more damaged line${more > 1 ? 's' : ''})` : ''}`;
}

/** What an operator does about a damaged log (README, Events; docs/cli-contract.md §8). */
export function recoveryHint(files: Pick<EventFiles, 'log' | 'checkpoint'>): string {
  return `\`pix events verify\` names every damaged line. To start again on purpose: move ${files.log} and ${files.checkpoint} away (keep them), then \`pix listen --backfill DUR\` with DUR reaching back to the last delivery (receivers drop repeats by event id)`;
}

/** Exit 8 when the log is damaged: never a fresh start that would deliver history again. */
export function checkSound(files: Pick<EventFiles, 'log' | 'checkpoint'>, log: EventLog): void {
  const damage = describeLogDamage(files, log);
  if (damage === undefined) return;
  throw new PixError('declined', `the event log is damaged: ${damage}`, { hint: recoveryHint(files) });
}

/**
 * The body of the event whose line starts at `offset` (pix listen keeps only the owed events' bodies:
 * an event a resend made owed again is read back), or undefined when that line is not its event.
 */
export function eventAt(files: Pick<EventFiles, 'log'>, offset: number, id: string): PixEvent | undefined {
  let found: PixEvent | undefined;
  let done = false;
  readLines(
    files.log,
    offset,
    (text) => {
      if (done) return;
      done = true;
      createLogReader(
        (line) => {
          if (line.t === 'event' && line.event.id === id) found = line.event;
        },
        { checkedFrom: Number.POSITIVE_INFINITY },
      ).feed(text, offset);
    },
    // One line: no event line is longer than the piece this reads.
    offset + (1 << 20),
  );
  return found;
}

/**
 * The log's size from a known point to its end (lines appended since by anyone, `pix events resend`
 * included): what the next checkpoint records.
 */
export function measureLog(
  files: Pick<EventFiles, 'log'>,
  from: { lines: number; bytes: number; last: string },
): { lines: number; bytes: number; last: string } {
  let { lines, last } = from;
  const read = readLines(files.log, from.bytes, (text) => {
    lines++;
    last = lineDigest(text);
  });
  return { lines, bytes: read?.end ?? from.bytes, last };
}

export function writeCheckpoint(files: Pick<EventFiles, 'checkpoint'>, checkpoint: Checkpoint): void {
  writeFileAtomic(files.checkpoint, `${JSON.stringify(checkpoint)}\n`);
}

/**
 * The account's listener lock (storage/locks.ts holdLock: taken over when its process is dead), holding
 * the pid, the profile and where it delivers, so a second listener can name the first.
 */
export function takeListenerLock(
  files: Pick<EventFiles, 'lock' | 'profile'>,
  destination: string,
  deps: Deps,
): HeldLock {
  const holder: LockHolder = {
    pid: deps.processes.pid,
    at: deps.clock.now().toISOString(),
    profile: files.profile,
    destination,
  };
  return holdLock(files.lock, holder, deps);
}
