/**
 * The journal file read as it grows (store.ts openJournal, follow.ts followJournal): the lines appended
 * since the last read, a piece at a time, starting over when the file was replaced or cut.
 */
import { type PrivateTail, readPrivateFrom, stampOf } from '../storage/files.js';
import { HistoryNeeded, type JournalParser } from './parser.js';

/** How many bytes of the journal are read, decoded and parsed at a time. */
const READ_BYTES = 1 << 20;

/** Reads `limit` bytes of the journal from `offset` (the file, or the descriptor an append holds). */
export type PieceSource = (offset: number, limit?: number) => PrivateTail | undefined;

/** What has been read of the journal file: its identity, how far, and the parser that holds it. */
export interface Loaded {
  identity: string;
  offset: number;
  parser: JournalParser;
}

/**
 * The journal file read as it grows: each `load` parses just the whole lines appended since the last one
 * (up to `until`, a line's end, when given), a piece at a time (a journal of 100,000 lines, 40 MB, is never
 * one buffer, one string or one array of all its lines), and starts over with what `fresh` makes when the
 * file was replaced or cut.
 */
export function journalTail<T extends Loaded>(
  path: string,
  fresh: (identity: string, stamp: string | undefined) => T,
  pieceBytes = READ_BYTES,
) {
  let loaded: T | undefined;
  const fromFile: PieceSource = (offset, limit) => readPrivateFrom(path, offset, limit);
  return {
    current: () => loaded,
    /** Starts from `state` (resumed from the journal's index file), or from nothing. */
    set(state: T | undefined) {
      loaded = state;
    },
    load(source: PieceSource = fromFile, until = Number.POSITIVE_INFINITY): T | undefined {
      for (;;) {
        // Read from its start, the file's stamp before the first byte: unchanged after the last, what was
        // read is the journal there (resume.ts keepIndex vouches for it).
        const stamp = loaded === undefined && source === fromFile ? stampOf(path)?.stamp : undefined;
        const limitFrom = (offset: number) => Math.max(0, Math.min(pieceBytes, until - offset));
        let limit = limitFrom(loaded?.offset ?? 0);
        let piece = source(loaded?.offset ?? 0, limit);
        if (piece === undefined) {
          loaded = undefined;
          return undefined;
        }
        if (loaded === undefined || piece.identity !== loaded.identity || piece.size < loaded.offset) {
          if (loaded !== undefined) {
            limit = limitFrom(0);
            piece = source(0, limit) ?? { ...piece, bytes: Buffer.alloc(0) };
          }
          loaded = fresh(piece.identity, stamp);
        }
        let whole = piece.bytes.lastIndexOf(0x0a) + 1;
        const full = limit > 0 && piece.bytes.length === limit;
        if (whole === 0 && full && limit === pieceBytes) {
          // One line longer than a piece (no journal line is): read it whole, so it is seen as damage.
          piece = source(loaded.offset) ?? piece;
          whole = piece.bytes.lastIndexOf(0x0a) + 1;
        }
        try {
          loaded.parser.feed(piece.bytes.toString('utf8', 0, whole));
        } catch (error) {
          // Resumed from the index, a line names an entry it let go of: the history is read after all.
          if (!(error instanceof HistoryNeeded)) throw error;
          loaded = undefined;
          continue;
        }
        loaded.offset += whole;
        if (!full || whole === 0) return loaded;
      }
    },
  };
}

/** What journalTail returns, for the state that holds one (opened.ts). */
export type JournalTail<T extends Loaded> = ReturnType<typeof journalTail<T>>;
