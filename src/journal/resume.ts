/**
 * A payment's journal resumed from the index file (indexfile.ts) when the checkpoint vouches that the
 * journal is as pix left it, and the index file kept up to date after a payment found the journal sound.
 */
import { rmSync } from 'node:fs';
import { overwritePrivateFile, stampOf } from '../storage/files.js';
import { formatCheckpoint, stampDigest } from './chain.js';
import { createJournalIndex } from './indexes.js';
import { digestOfLineEndingAt, INDEX_WINDOW_MS, readIndexFile, writeIndexFile } from './indexfile.js';
import type { End } from './opened.js';
import { load, locked, type OpenedJournal, type Parsed, readCheckpoint } from './opened.js';
import { createJournalParser } from './parser.js';
import { mattersBeyondWindow } from './rules.js';

/** A payment that read this many bytes past the index file writes it anew. */
const INDEX_LAG_BYTES = 256 * 1024;

/**
 * Resumes from the index file when the journal is the one it was made from: the checkpoint vouches for
 * the journal as it is (its stamp: untouched by anyone but pix since a pix found it sound), the index
 * names this file at a length within it, and the line ending there is the one it names. Else undefined
 * (the journal is read from its start).
 */
function resume(journal: OpenedJournal): Parsed | undefined {
  const { path } = journal;
  const now = stampOf(path);
  const checkpoint = readCheckpoint(journal);
  if (now === undefined || checkpoint?.seen !== stampDigest(now.stamp) || checkpoint.bytes !== now.size)
    return undefined;
  const found = readIndexFile(journal.indexPath);
  if (found === undefined || found.identity !== now.identity || found.bytes > now.size) return undefined;
  if (digestOfLineEndingAt(path, now.identity, found.bytes) !== found.state.chain.last?.digest)
    return undefined;
  const index = createJournalIndex();
  return {
    identity: now.identity,
    offset: found.bytes,
    parser: createJournalParser((entry) => index.add(entry), undefined, undefined, found.state),
    index,
    since: found.since,
    resumedAt: found.bytes,
  };
}

/**
 * The journal loaded for a payment's questions: resumed from the index file when it holds, as long as
 * what is held covers entries started since `from` (ms); else (and for any other question) read whole.
 */
export function loadFor(journal: OpenedJournal, from: number | 'all'): Parsed | undefined {
  const { tail } = journal;
  const current = tail.current();
  if (current?.since !== undefined && (from === 'all' || from < current.since)) tail.set(undefined);
  if (tail.current() === undefined && from !== 'all' && journal.only === undefined) {
    const resumed = resume(journal);
    tail.set(resumed?.since !== undefined && from < resumed.since ? undefined : resumed);
  }
  return load(journal);
}

/**
 * After a payment found the journal sound: a journal read from its start, unchanged since (its stamp),
 * is vouched for in the checkpoint (under the lock), and the index file is written anew when there was
 * none to resume from or the lines read past it are many. Nothing here is needed for the payment:
 * whatever fails, the next one reads the history.
 */
export function keepIndex(journal: OpenedJournal, end: End): void {
  const { path, indexPath, checkpointPath } = journal;
  const loaded = journal.tail.current();
  if (loaded === undefined || end.kind !== 'ok' || end.lag !== 0) return;
  if (loaded.since !== undefined && loaded.offset - (loaded.resumedAt ?? 0) < INDEX_LAG_BYTES) return;
  try {
    if (loaded.since === undefined) {
      const { stamp } = loaded;
      const checkpoint = end.checkpoint;
      if (stamp === undefined || checkpoint === undefined || checkpoint.bytes !== loaded.offset) return;
      const vouched = locked(journal, () => {
        if (stampOf(path)?.stamp !== stamp) return false;
        if (checkpoint.seen === stampDigest(stamp)) return true;
        // Vouched for anew (it was not, or was changed by someone else): an index made before is of the
        // journal as it was then, and is dropped whatever comes next.
        rmSync(indexPath, { force: true });
        overwritePrivateFile(checkpointPath, formatCheckpoint({ ...checkpoint, seen: stampDigest(stamp) }));
        // The checkpoint as judged is no longer the one on disk: the next append reads it again.
        journal.sound = undefined;
        return true;
      });
      // A reader holding some entries (a batch) makes no index.
      if (!vouched || journal.only !== undefined) return;
    }
    const since = Math.max(
      loaded.since ?? Number.NEGATIVE_INFINITY,
      journal.clock.now().getTime() - INDEX_WINDOW_MS,
    );
    const state = loaded.parser.state((entry) => Date.parse(entry.at) >= since || mattersBeyondWindow(entry));
    if (state === undefined) return;
    locked(journal, () => {
      // Written only of the journal as it is now, vouched for.
      const now = stampOf(path);
      if (
        now === undefined ||
        now.size !== loaded.offset ||
        readCheckpoint(journal)?.seen !== stampDigest(now.stamp)
      )
        return;
      writeIndexFile(indexPath, { identity: loaded.identity, bytes: loaded.offset, since, state });
    });
  } catch {
    // A cache: a read-only directory or a full disk leaves the payments reading the history.
  }
}
