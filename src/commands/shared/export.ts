import type { Page, PaginateSummary } from '../../api/paginate.js';
import { paginate, shortfall } from '../../api/paginate.js';
import type { Deps } from '../../context.js';
import { counted } from '../../domain/words.js';
import { incompleteList, interruptedError, stopSignalOf } from '../../errors.js';
import { createProgress } from '../../output/progress.js';
import { createListWriter, type ListWriterOptions } from '../../output/records.js';

/** The API's own default page (API §4.1, §4.7). */
export const DEFAULT_PAGE = 10;
/**
 * Page size of `--all` when --limit is not given. 100 is the cap most payment APIs apply to a page, so
 * it is safe against an unknown server (the sandbox allows up to 1000); paginate() adapts when a
 * server hands out fewer, and concurrency hides the extra round trips.
 */
export const ALL_PAGE_SIZE = 100;
export const ALL_CONCURRENCY = 4;

export interface ExportOptions<T> {
  /** What is exported, for progress and warnings: "statement", "key list". */
  subject: string;
  fetchPage(offset: number, limit: number): Promise<Page<T>>;
  pageSize: number;
  concurrency: number;
  startOffset: number;
  idOf(record: T): string;
  /** Which records are written (a client-side filter); every one when absent. Duplicates are dropped first. */
  keep?: ((record: T) => boolean) | undefined;
  /** How records are written (OutputMode plus columns and the raw API object); the list is `results`. */
  writer: Omit<ListWriterOptions<T>, 'listField'>;
  /** Sees each record as it is written (the statement's totals). */
  onRecord?(record: T): void;
  /** Said on stderr when the list moved during the export, after the counts. */
  movedHint?: string;
}

/**
 * `--all` for every list command: every page, `concurrency` at a time, written in API order as records
 * arrive, a page at a time (the writer gathers them into 64 KB writes and waits when its destination is
 * full, so memory stays flat), progress on stderr when it is a terminal and stdout is not. Each record is
 * counted with the writer (deps.output.records), so a failure, a full disk or Ctrl-C says how many were
 * written of how many; a signal stops the export between two pages even when every page has already
 * arrived.
 */
export async function exportAll<T>(deps: Deps, options: ExportOptions<T>): Promise<PaginateSummary> {
  const progress = createProgress(deps.io, options.subject);
  try {
    const { total, pages } = await paginate(options.fetchPage, {
      pageSize: options.pageSize,
      concurrency: options.concurrency,
      startOffset: options.startOffset,
      idOf: options.idOf,
      onProgress: (done, of) => progress.update(done, of),
    });
    const tally = deps.output.records(total);
    const writer = createListWriter(deps.io.stdout, { ...options.writer, listField: 'results', tally });
    await writer.begin(total);
    let next = await pages.next();
    for (; !next.done; next = await pages.next()) {
      if (deps.signal.aborted) throw interruptedError(stopSignalOf(deps.signal), options.subject);
      const records = options.keep ? next.value.filter(options.keep) : next.value;
      if (options.onRecord) for (const record of records) options.onRecord(record);
      await writer.writeMany(records);
    }
    progress.done();
    await writer.end();
    return next.value;
  } finally {
    progress.done();
  }
}

/**
 * How an export ends, after whatever the command says of its own: warnings for repeated ids and a total
 * that moved, then exit 6 when fewer records arrived than the server announced (paginate.ts shortfall).
 * The records that did arrive are written by then (on stdout; an --output-file stays untouched, as it
 * does for every failed command: it is the whole output or nothing).
 */
export function finishExport(deps: Deps, summary: PaginateSummary, subject: string, movedHint = ''): void {
  const { stderr } = deps.io;
  if (summary.duplicatesDropped > 0) {
    stderr.write(
      `warning: ${counted(summary.duplicatesDropped, 'duplicate entry', 'duplicate entries')} (same id) ${summary.duplicatesDropped === 1 ? 'was' : 'were'} left out\n`,
    );
  }
  if (summary.finalTotal !== summary.total) {
    stderr.write(
      `warning: the ${subject} changed during the export (total ${summary.total} → ${summary.finalTotal})${movedHint}\n`,
    );
  }
  const short = shortfall(summary);
  if (short === undefined) return;
  throw incompleteList(
    `the ${subject} export`,
    short,
    summary.finalTotal === summary.total
      ? 'the server stopped handing out records before its own total; the ones received were written; run it again later'
      : 'the list changed while it was read, so records were skipped; the ones received were written; run it again',
  );
}
