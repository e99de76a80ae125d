import type { Page, PaginateSummary } from '../../api/paginate.js';
import { paginate } from '../../api/paginate.js';
import type { Deps } from '../../deps.js';
import { counted } from '../../domain/words.js';
import { bufferedOut } from '../../output/buffered.js';
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
  /** How records are written (OutputMode plus columns and the raw API object); the list is `results`. */
  writer: Omit<ListWriterOptions<T>, 'listField'>;
  /** Sees each record as it is written (the statement's totals). */
  onRecord?(record: T): void;
  /** Said on stderr when the list moved during the export, after the counts. */
  movedHint?: string;
}

/**
 * `--all` for every list command: every page, `concurrency` at a time, written in API order as records
 * arrive (gathered into 64 KB writes, so 100,000 ndjson lines are ~1,500 writes and memory stays flat),
 * progress on a terminal's stderr, and a warning when duplicates were dropped or the total moved.
 */
export async function exportAll<T>(deps: Deps, options: ExportOptions<T>): Promise<PaginateSummary> {
  const { stdout, stderr } = deps.io;
  const progress = createProgress(stderr, options.subject);
  const out = bufferedOut(stdout);
  try {
    const writer = createListWriter(out, { ...options.writer, listField: 'results' });
    const { total, records } = await paginate(options.fetchPage, {
      pageSize: options.pageSize,
      concurrency: options.concurrency,
      startOffset: options.startOffset,
      idOf: options.idOf,
      onProgress: (done, of) => progress.update(done, of),
    });
    await writer.begin(total);
    let next = await records.next();
    for (; !next.done; next = await records.next()) {
      options.onRecord?.(next.value);
      await writer.write(next.value);
    }
    progress.done();
    await writer.end();
    await out.flush();
    return next.value;
  } finally {
    await out.flush().catch(() => {});
  }
}

/** The warnings an export ends with, after whatever the command says of its own. */
export function reportExportDrift(
  deps: Deps,
  summary: PaginateSummary,
  subject: string,
  movedHint = '',
): void {
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
}
