/**
 * `pix close --list` (commands/close/day.ts): the closed days, as a table or `--json` (money in reais, as
 * the API writes it, and in centavos).
 */

import type { Deps } from '../../context.js';
import type { ClosedDay } from '../../domain/books.js';
import { BRASILIA_TIME_ZONE } from '../../domain/duedate.js';
import { formatDecimal } from '../../domain/money.js';
import { formatDateTime } from '../../domain/when.js';
import { jsonDocument, money, outputMode } from '../../output/format.js';
import { createListWriter } from '../../output/records.js';
import { safeText } from '../../output/sanitize.js';
import type { Books } from '../shared/books/store.js';
import { closesRefusal, verifiedCloses } from '../shared/books/verify.js';

/** The books' days are Brasília's calendar days. */
const ZONE = BRASILIA_TIME_ZONE;

/**
 * The closed days, each checked (books/verify.ts): listed as kept, then exit 8 naming every day that does
 * not check (`--json`: each close's `problems`).
 */
export async function runClosedList(books: Books, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  const { closes, problems, notes } = await verifiedCloses(books);
  for (const note of notes) deps.io.stderr.write(`note: ${safeText(note, 300)}\n`);
  const refuse = () => {
    if (problems.length > 0) throw closesRefusal(books, problems, 'the list shows them as kept, unchecked');
  };
  if (mode.format === 'json') {
    const results = closes.map((close) => ({
      ...publicClose(close),
      problems: problems.filter((problem) => problem.day === close.day).map((problem) => problem.reason),
    }));
    deps.io.stdout.write(jsonDocument({ total: closes.length, results }, mode.pretty));
    return refuse();
  }
  if (closes.length === 0) {
    deps.io.stderr.write('no closed days (pix close --day D closes one)\n');
    return refuse();
  }
  const writer = createListWriter(deps.io.stdout, {
    ...mode,
    listField: 'results',
    raw: publicClose,
    columns: [
      { header: 'Day', kind: 'date', human: (c) => c.day, machine: (c) => c.day },
      { header: 'Close', kind: 'enum', human: (c) => c.kind, machine: (c) => c.kind },
      {
        header: 'Opening',
        kind: 'money',
        human: (c) => money(c.opening, mode.human),
        machine: (c) => formatDecimal(c.opening),
      },
      {
        header: 'Closing',
        kind: 'money',
        human: (c) => money(c.closing, mode.human),
        machine: (c) => formatDecimal(c.closing),
      },
      {
        header: 'Entries',
        kind: 'number',
        human: (c) => String(c.totals.count),
        machine: (c) => c.totals.count,
      },
      {
        header: 'Closed at',
        kind: 'date',
        priority: 2,
        human: (c) => formatDateTime(c.closedAt, ZONE),
        machine: (c) => c.closedAt,
      },
      {
        header: 'Digest',
        kind: 'id',
        priority: 3,
        human: (c) => c.digest.slice(0, 16),
        machine: (c) => c.digest,
      },
    ],
  });
  await writer.begin(closes.length);
  await writer.writeMany(closes);
  await writer.end();
  refuse();
}

/** A close as `--json` shows it: money in reais (as the API writes it) and in centavos. */
export function publicClose(close: ClosedDay): Record<string, unknown> {
  const { entries, sums: _sums, ...rest } = close;
  return {
    ...rest,
    openingBalance: Number(formatDecimal(close.opening)),
    closingBalance: Number(formatDecimal(close.closing)),
    entries: Object.keys(entries).length,
  };
}
