import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type PagesOptions } from '../../api/pager.js';
import { type PaginateSummary, type Pagination, shortfall } from '../../api/paginate.js';
import type { Deps } from '../../context.js';
import { counted } from '../../domain/words.js';
import { incompleteList, interruptedError, stopSignalOf } from '../../errors.js';
import { createProgress } from '../../output/progress.js';
import { createListWriter, type ListWriterOptions } from '../../output/records.js';

/** The API's own default page (API §4.1, §4.7). */
export const DEFAULT_PAGE = DEFAULT_PAGE_SIZE;
/**
 * Records asked per request by `--all` when --limit is not given: the most the pager asks of any server
 * (api/pager.ts: a server that takes fewer teaches it so); concurrency hides the extra round trips.
 */
export const ALL_PAGE_SIZE = MAX_PAGE_SIZE;
export const ALL_CONCURRENCY = 4;

export interface ExportOptions<T> {
  /** What is exported, for progress and warnings: "statement", "key list". */
  subject: string;
  /** The list's pages, through the pager of the API client (api/pager.ts). */
  read(options: PagesOptions): Promise<Pagination<T>>;
  pageSize: number;
  concurrency: number;
  startOffset: number;
  /** Which records are written (a client-side filter); every one when absent. Duplicates are dropped first. */
  keep?: ((record: T) => boolean) | undefined;
  /** How records are written (OutputMode plus columns and the raw API object); the list is `results`. */
  writer: Omit<ListWriterOptions<T>, 'listField'>;
  /** Sees each record as it is written (the statement's totals). */
  onRecord?(record: T): void;
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
    const { total, pages } = await options.read({
      pageSize: options.pageSize,
      concurrency: options.concurrency,
      startOffset: options.startOffset,
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
 * How an export ends, after whatever the command says of its own: a warning for repeated ids, then exit 6
 * when the read was not whole (paginate.ts shortfall: fewer records than the server announced, or a total
 * that moved while it was read).
 * The records that did arrive are written by then (on stdout; an --output-file stays untouched, as it
 * does for every failed command: it is the whole output or nothing).
 */
export function finishExport(deps: Deps, summary: PaginateSummary, subject: string): void {
  const { stderr } = deps.io;
  if (summary.duplicatesDropped > 0) {
    stderr.write(
      `warning: ${counted(summary.duplicatesDropped, 'duplicate entry', 'duplicate entries')} (same id) ${summary.duplicatesDropped === 1 ? 'was' : 'were'} left out\n`,
    );
  }
  const short = shortfall(summary);
  if (short === undefined) return;
  throw incompleteList(
    `the ${subject} export`,
    short,
    short.moved === undefined
      ? 'the server stopped handing out records before its own total; the ones received were written; run it again later'
      : `the list changed while it was read, so records may have been skipped; the ones received were written; run it again`,
  );
}
