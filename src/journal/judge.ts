/**
 * The end of an open journal judged against its checkpoint (chain.ts): read to its end, then the
 * checkpoint; anything but a sound end read without the lock is judged again under it before it is believed.
 */
import { LockTimeoutError } from '../storage/locks.js';
import { type Checkpoint, cutDamage, type Judgement, judgeCheckpoint } from './chain.js';
import { load, locked, type OpenedJournal, readCheckpoint, tailOf } from './opened.js';

/** The end of the journal judged (chain.ts), with the checkpoint it was judged against. */
export type End = Exclude<Judgement, { kind: 'ahead' }> & { checkpoint: Checkpoint | undefined };

/** Reads the journal to its end, then the checkpoint, and judges the one against the other (chain.ts). */
export function judgeOnce(
  journal: OpenedJournal,
  loaded = load(journal),
): { judgement: Judgement; checkpoint: Checkpoint | undefined } {
  const { sound } = journal;
  if (sound !== undefined && loaded?.identity === sound.identity && loaded.offset === sound.offset)
    return { judgement: { kind: 'ok', lag: sound.lag }, checkpoint: sound.checkpoint };
  journal.sound = undefined;
  const checkpoint = readCheckpoint(journal);
  const judgement = judgeCheckpoint(checkpoint, tailOf(loaded), journal.checkpointPath);
  if (judgement.kind === 'ok' && loaded !== undefined)
    journal.sound = { identity: loaded.identity, offset: loaded.offset, checkpoint, lag: judgement.lag };
  return { judgement, checkpoint };
}

/**
 * The end of the journal judged. Under the lock (`quiet`) no writer is at work: a checkpoint past the
 * end is a cut. Without it, a writer may append and replace the checkpoint meanwhile: read after the
 * lines, the checkpoint is then past them, or (once read on) at most one line behind; and it may be
 * read while it is being written. So anything but a sound end is judged again under the lock before it
 * is believed (a read-only config directory, where no lock can be taken, keeps the first judgement).
 */
export function judgeEnd(journal: OpenedJournal, quiet: boolean): End {
  let once = judgeOnce(journal);
  if (once.judgement.kind === 'ahead' && !quiet) once = judgeOnce(journal);
  const { judgement, checkpoint } = once;
  if (judgement.kind !== 'ok' && !quiet) {
    try {
      return locked(journal, () => judgeEnd(journal, true));
    } catch (error) {
      // Only a lock that cannot be made (EACCES, EROFS) leaves the judgement as it is.
      if (error instanceof LockTimeoutError || !(error instanceof Error && 'code' in error)) throw error;
    }
  }
  if (judgement.kind === 'ahead')
    return {
      kind: 'damaged',
      ...cutDamage(judgement.checkpoint, tailOf(journal.tail.current())),
      checkpoint,
    };
  return { ...judgement, checkpoint };
}
