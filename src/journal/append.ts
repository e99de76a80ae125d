/**
 * A line appended to an open journal: under the journal's lock, naming the last line as `prev` (what was
 * appended since the last read is read through the descriptor the line goes on), then the checkpoint
 * brought up to it (chain.ts).
 */
import { appendPrivateLine } from '../storage/append.js';
import { overwritePrivateFile } from '../storage/files.js';
import { type Checkpoint, cutDamage, formatCheckpoint, GENESIS, lineDigest, stampDigest } from './chain.js';
import { type End, judgeOnce, load, locked, NO_TAIL, type OpenedJournal, tailOf } from './opened.js';
import { TORN_MARK } from './parser.js';
import { loadFor } from './resume.js';
import { DUPLICATE_WINDOW_MS } from './rules.js';

/** Appends `record` naming the last line as `prev`, then records it in the checkpoint; under the lock. */
export function appendLocked(journal: OpenedJournal, record: object, accepting: boolean): void {
  const { path, checkpointPath } = journal;
  let end: End | undefined;
  let read = NO_TAIL;
  let text = '';
  /** The journal as a vouched-for pix left it (its checkpoint names its stamp): so is it after this line. */
  let vouched = false;
  // What was appended since the last read is read through the descriptor the line is appended on.
  const written = appendPrivateLine(
    path,
    (file) => {
      const loaded = load(journal, (offset, limit) => file.readFrom(offset, limit));
      const { judgement, checkpoint } = judgeOnce(journal, loaded);
      end =
        judgement.kind === 'ahead'
          ? { kind: 'damaged', ...cutDamage(judgement.checkpoint, tailOf(loaded)), checkpoint }
          : { ...judgement, checkpoint };
      read = tailOf(loaded);
      vouched = !accepting && end.kind === 'ok' && checkpoint?.seen === stampDigest(file.stamp);
      const { last } = read;
      if (end.kind === 'ok' && last !== undefined && checkpoint?.last !== last.digest) {
        // A writer was killed between its line and its checkpoint: the checkpoint is brought up to
        // its line first, so that killed here too, this writer leaves it one line behind, never two.
        try {
          overwritePrivateFile(
            checkpointPath,
            formatCheckpoint({ lines: last.line, bytes: read.bytes, last: last.digest }),
          );
        } catch {
          // Said below: the checkpoint after this line is written, or readers find it behind.
        }
      }
      text = JSON.stringify({ ...record, prev: loaded?.parser.head() ?? GENESIS });
      return text;
    },
    { tornMark: TORN_MARK },
  );
  // A damaged end keeps its checkpoint: it is the evidence, until the operator accepts it.
  if (end?.kind === 'damaged' && !accepting) return;
  // The line's number: after the lines read, or after a torn line and its mark (storage/append.ts).
  const line = read.lines + (written.tornBefore ? 3 : 1);
  const checkpoint: Checkpoint = {
    lines: line,
    bytes: written.size,
    last: lineDigest(text),
    ...(vouched ? { seen: stampDigest(written.stamp) } : {}),
  };
  journal.sound = undefined;
  try {
    overwritePrivateFile(checkpointPath, formatCheckpoint(checkpoint));
    journal.sound = { identity: written.identity, offset: written.size, checkpoint, lag: 0 };
  } catch (error) {
    if (accepting) throw error;
    // The line is written and durable; the checkpoint one line behind is not damage, and the next
    // append replaces it. Behind by more (it keeps failing: a full disk), readers say so.
  }
}

/** Appends `record` under the lock, the journal read on first (from its index file, when that holds). */
export function append(journal: OpenedJournal, record: object): void {
  // A payment's lines: the journal read on from its index file, when that holds.
  if (journal.tail.current() === undefined)
    loadFor(journal, journal.clock.now().getTime() - DUPLICATE_WINDOW_MS);
  locked(journal, () => appendLocked(journal, record, false));
}
