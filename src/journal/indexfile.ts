/**
 * The journal's index file, `journal.jsonl.index` beside the journal and its checkpoint: where a reader of
 * the journal stood (its ParserState, parser.ts) at some length of the file, holding only the entries a
 * payment's questions can still find (rules.ts mattersBeyondWindow, and every entry started within
 * INDEX_WINDOW_MS of when it was written). A payment resumes there and reads only the lines after it, so
 * it costs the same with an empty journal or a million lines (resume.ts says when it may).
 *
 * It is a cache, never the record: it is believed only when the journal is the one it was made from.
 * resume.ts checks that the checkpoint vouches for the journal as it is now (its stamp, chain.ts
 * Checkpoint.seen), that the index names this file (device and inode) at a length within it, and that the
 * line ending there is the one the index names (its digest). Its own text carries its digest: an index
 * edited, cut or garbled is not read. Anything that does not hold is read from the journal again, whole.
 */

import { readPrivateFile, readPrivateFrom, writeFileAtomic } from '../storage/files.js';
import { lineDigest } from './chain.js';
import type { ParserState } from './parser.js';

export const INDEX_SUFFIX = '.index';

/**
 * How far back the index holds every entry: the statement guard's default window (24 h) and the hour
 * before it whose payments still explain its debits (commands/shared/pay/shared.ts), which covers the duplicate
 * window of the rules (10 minutes). A question about earlier entries reads the history.
 */
export const INDEX_WINDOW_MS = 25 * 3_600_000;

const VERSION = 1;

export interface IndexFile {
  /** The journal's identity (device and inode) when the index was made. */
  identity: string;
  /** The journal's length the index stands at: whole lines, the last one a line of the chain. */
  bytes: number;
  /** Every entry started at or after this time (ms) is held; before it, those that still matter. */
  since: number;
  state: ParserState;
}

/** Writes the index (replaced atomically; not fsync'd: a lost index is made again from the journal). */
export function writeIndexFile(path: string, index: IndexFile): void {
  const body = JSON.stringify({ v: VERSION, ...index });
  writeFileAtomic(path, `${lineDigest(body)}\n${body}\n`, { durable: false });
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The index in `path`, or undefined when there is none, or it is not whole, or not one this pix writes. */
export function readIndexFile(path: string): IndexFile | undefined {
  let text: string | undefined;
  try {
    text = readPrivateFile(path);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  const cut = text.indexOf('\n');
  const body = text.slice(cut + 1, text.endsWith('\n') ? -1 : undefined);
  if (cut < 0 || text.slice(0, cut) !== lineDigest(body)) return undefined;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const state = value.state as Record<string, unknown> | undefined;
  const chain = state?.chain as Record<string, unknown> | undefined;
  if (
    value.v !== VERSION ||
    typeof value.identity !== 'string' ||
    !isCount(value.bytes) ||
    typeof value.since !== 'number' ||
    !isCount(state?.lines) ||
    !isCount(state?.seq) ||
    !isCount(chain?.chained) ||
    typeof (chain?.last as Record<string, unknown> | undefined)?.digest !== 'string' ||
    !Array.isArray(state?.entries)
  ) {
    return undefined;
  }
  return value as unknown as IndexFile;
}

/** The longest line the check below reads back (a journal line is under 2 KB; a longer one: read whole). */
const LINE_BYTES = 16 * 1024;

/**
 * The digest of the journal's line that ends at `bytes` (its newline the byte before), as the chain
 * takes it (chain.ts lineDigest); undefined when no whole line ends there.
 */
export function digestOfLineEndingAt(journal: string, identity: string, bytes: number): string | undefined {
  const start = Math.max(0, bytes - LINE_BYTES);
  const tail = readPrivateFrom(journal, start, bytes - start);
  if (tail === undefined || tail.identity !== identity || tail.bytes.length !== bytes - start)
    return undefined;
  if (tail.bytes.at(-1) !== 0x0a) return undefined;
  const from = tail.bytes.lastIndexOf(0x0a, tail.bytes.length - 2) + 1;
  if (from === 0 && start > 0) return undefined;
  let text = tail.bytes.toString('utf8', from, tail.bytes.length - 1);
  // A byte-order mark an editor put at the start of the file is not part of the first line (chain.ts).
  if (start + from === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return lineDigest(text);
}
