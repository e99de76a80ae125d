/**
 * How `pix schedule create` (create.ts: the flags, the rule, a key's consultation) ends: the schedule shown,
 * confirmed and kept (`confirmAndKeep`), or written as a standing plan (`writeStanding`); and what it does
 * for `--code CODE | --file FILE` (`createOfRows`, docs/schedules.md "A BR Code, a batch file"): the
 * code, or every row of the file, read by the batch reader and consulted now by the batch's own run
 * (commands/shared/pay/batchrun.ts payBatchRows, its `keep` step instead of paying): every check of `pix pay
 * batch` up to the confirmation — the rows' cells as displayed, the consultations, the receivers' document
 * and name columns (or --expect-*), a static code's merchant name, the profile's max-amount. A row that
 * cannot be paid now is exit 8 naming it: nothing is scheduled. What is kept is what was shown: each row's
 * key or code, amount and receiver as consulted (`lines`) and the file's digest — the file changing
 * afterwards changes nothing that is paid. Each occurrence pays each row once (its journal row is the
 * schedule's, the date and the row's id: commands/schedule/payment.ts).
 *
 * A dynamic code (a charge: its own amount, due date, expiry, paid once) is scheduled once, `--at` a day
 * before it expires; a static code (a merchant's, reusable) may recur.
 */
import type { Payee } from '../../approvals/history.js';
import type { Deps } from '../../context.js';
import type { BatchRow } from '../../domain/batch.js';
import { parseBatchFile } from '../../domain/batchtext.js';
import { formatBRL, formatDecimal } from '../../domain/money.js';
import { MAX_LINE_ID, occurrenceRow, occurrences, type Recurrence, windowOf } from '../../domain/schedule.js';
import { formatDateTime } from '../../domain/when.js';
import { counted } from '../../domain/words.js';
import { PixError, usageError } from '../../errors.js';
import type { Schedule, ScheduleLine, ScheduleStore } from '../../journal/schedules.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import { fileName } from '../shared/files.js';
import { readBatchRows } from '../shared/pay/batchread.js';
import { type BatchItem, DEFAULT_CONCURRENCY, payBatchRows } from '../shared/pay/batchrun.js';
import { expectationOf } from '../shared/pay/payeeflags.js';
import { ask, type PayContext, type PlanRequest } from '../shared/pay/shared.js';
import type { ScheduleCreateOptions } from './create.js';
import {
  comingOccurrences,
  dueWords,
  receiverWords,
  rowsReceiver,
  ruleWords,
  scheduleJson,
  windowFor,
} from './shared.js';

/** How many of a file's rows the confirmation names (the rest are counted). */
const SHOWN_ROWS = 20;

/** Whether a code is dynamic, as the batch reader judges it (a charge: paid once). */
export function isDynamicCode(code: string): boolean {
  const parsed = parseBatchFile(`${JSON.stringify({ id: 'code', emv: code, amount: '0.01' })}\n`, 'ndjson');
  const target = parsed.ok ? parsed.rows[0]!.target : undefined;
  return target?.kind === 'emv' && target.dynamic;
}

/** `--code`: one row, read by the batch reader (its checks of a code), with --amount and --expect-*. */
function codeRows(draft: Draft, code: string): BatchRow[] {
  const { options } = draft;
  const parsed = parseBatchFile(
    `${JSON.stringify({ id: 'code', emv: code, ...(options.amount === undefined ? {} : { amount: formatDecimal(options.amount) }) })}\n`,
    'ndjson',
  );
  if (!parsed.ok) {
    const problem = parsed.problems[0]!;
    throw usageError(problem.column === 'amount' ? '--amount' : '--code', safeText(problem.message, 200));
  }
  const row = parsed.rows[0]!;
  const expect = expectationOf(options);
  if (row.target.kind === 'emv' && row.target.dynamic && draft.schedule.recurrence.rule.kind !== 'once') {
    throw usageError(
      '--code',
      'is a dynamic code (a charge, paid once): it is scheduled --at one day, not --every',
      'schedule a static code to pay it again and again',
    );
  }
  return [{ ...row, ...(expect === undefined ? {} : { expect }) }];
}

/** `--file`: every row as `pix pay batch` reads it; each row's id names its journal row after the date. */
async function fileRows(
  deps: Deps,
  file: string,
  options: Pick<ScheduleCreateOptions, 'format' | 'map'>,
): Promise<{ rows: BatchRow[]; digest: string }> {
  const read = await readBatchRows(deps, { file, format: options.format, map: options.map });
  const long = read.rows.find((row) => row.id.length > MAX_LINE_ID);
  if (long !== undefined) {
    throw usageError(
      file,
      `line ${long.line}: the id ${safeText(long.id, 64)} is longer than ${MAX_LINE_ID} characters: a schedule's journal row is its id, the date and the row's`,
      'shorten the ids in the id column',
    );
  }
  return read;
}

/** A consulted row as kept: what it pays and to whom, as shown now. */
function lineOf(item: BatchItem, file: boolean): ScheduleLine {
  const { row } = item;
  const { target } = row;
  return {
    ...(file ? { id: row.id } : {}),
    target:
      target.kind === 'key'
        ? { key: target.key, keyType: target.keyType.toLowerCase() }
        : { code: target.emv, dynamic: target.dynamic },
    amountCentavos: item.amount!,
    ...(row.description === undefined ? {} : { description: row.description }),
    receiver: { name: item.receiver ?? '', document: item.document, institution: item.institution },
    ...(row.expect === undefined ? {} : { expect: row.expect }),
  };
}

/** Exit 8 naming the rows the consultations or the guards left out: a schedule pays all of them or none. */
function refuseLeftOut(items: readonly BatchItem[], what: string): void {
  const out = items.filter((item) => item.state !== 'planned');
  if (out.length === 0) return;
  const named = out
    .slice(0, 3)
    .map(
      (item) =>
        `${item.row.id === 'code' ? 'the code' : `row ${item.row.id}`}: ${item.state}${item.error ? ` (${safeText(item.error, 200)})` : ''}`,
    );
  throw new PixError(
    'declined',
    `${what} cannot be paid as written — ${named.join('; ')}${out.length > 3 ? `; and ${out.length - 3} more` : ''}; nothing was scheduled`,
    {
      hint: 'fix what is named (a code: --expect-name or --expect-document say who it pays; a file: its columns) and make it again',
    },
  );
}

/** A dynamic code is paid before it expires: its one occurrence's window must start before then (exit 2). */
function checkExpiry(schedule: Schedule, item: BatchItem): void {
  const at = item.expiresAt === undefined ? Number.NaN : Date.parse(item.expiresAt);
  if (Number.isNaN(at)) return;
  const [first] = occurrences(schedule.recurrence, 1);
  if (first === undefined || windowFor(schedule, first).start < at) return;
  throw usageError(
    '--at',
    `the code expires at ${formatDateTime(new Date(at).toISOString(), schedule.timeZone)}, before its occurrence is due (${first.payOn} ${schedule.time})`,
    'schedule it --at an earlier day, or --time earlier',
  );
}

/** The file's rows, each with its amount and receiver, for the confirmation (stderr). */
function showRows(deps: Deps, lines: readonly ScheduleLine[]): void {
  for (const line of lines.slice(0, SHOWN_ROWS)) {
    deps.io.stderr.write(`  ${line.id}  ${formatBRL(line.amountCentavos)}  ${receiverWords(line)}\n`);
  }
  if (lines.length > SHOWN_ROWS) deps.io.stderr.write(`  … and ${lines.length - SHOWN_ROWS} more rows\n`);
}

/** A standing plan lists every occurrence: at most this many (a year of business days fits). */
export const MAX_STANDING_OCCURRENCES = 400;

/**
 * And every payment it allows, each occurrence's every row of a file: at most this many. A plan of 100,000
 * (400 business days of a 250-row file) was 45 MB, and `pix plan show` took 12.6 s and 1.3 GB, `pix plan
 * approve` 21.6 s and 1.4 GB on a 2-core machine: more than an approver can read, and a file of 1,000 rows
 * would have made 400,000. Half that is still a year of weekly payouts of 960 rows.
 */
export const MAX_STANDING_PAYMENTS = 50_000;

/**
 * A standing plan is bounded (exit 2): a count or an end date, at most MAX_STANDING_OCCURRENCES dates, and
 * at most MAX_STANDING_PAYMENTS payments — its dates × `rows` (a file's, known once it is read; checked
 * then again, before any row is consulted).
 */
export function standingBounds(recurrence: Recurrence, rows = 1): void {
  if (recurrence.rule.kind !== 'once' && recurrence.count === undefined && recurrence.until === undefined) {
    throw usageError(
      '--plan',
      'a standing plan approves a number of occurrences or an end date: give --count N or --until DATE',
    );
  }
  const dates = occurrences(recurrence, MAX_STANDING_OCCURRENCES + 1).length;
  const flag = recurrence.count === undefined ? '--until' : '--count';
  if (dates > MAX_STANDING_OCCURRENCES) {
    throw usageError(
      flag,
      `a standing plan lists its occurrences: at most ${MAX_STANDING_OCCURRENCES}`,
      'approve a shorter run now and make another plan for the next',
    );
  }
  if (dates * rows <= MAX_STANDING_PAYMENTS) return;
  throw usageError(
    dates === 1 ? '--file' : flag,
    `a standing plan lists every payment it allows: ${counted(dates, 'date')} of ${counted(rows, 'row')} make ${dates * rows}, at most ${MAX_STANDING_PAYMENTS}`,
    'approve a shorter run now and make another plan for the next, or split the file',
  );
}

/** What every schedule is made of before its target is consulted: its id, account, rule and zone. */
export interface Draft {
  options: ScheduleCreateOptions;
  request: PlanRequest | undefined;
  schedule: Pick<
    Schedule,
    'id' | 'account' | 'profile' | 'createdAt' | 'recurrence' | 'time' | 'timeZone' | 'description' | 'state'
  >;
}

/** Step 3: the next occurrences shown, one question (or --yes), the schedule kept; stdout its id or JSON. */
export async function confirmAndKeep(deps: Deps, schedule: Schedule, store: ScheduleStore): Promise<void> {
  const coming = comingOccurrences(schedule, new Date(0), 3);
  const { stderr } = deps.io;
  stderr.write(
    `schedule: ${formatBRL(schedule.amountCentavos)} to ${receiverWords(schedule)}, ${ruleWords(schedule)}\n`,
  );
  stderr.write(`first: ${coming.map((occurrence) => dueWords(schedule, occurrence)).join('; ')}\n`);
  if (!deps.globals.yes) {
    const yes = await ask(() =>
      deps.prompter.confirm(
        `Schedule ${formatBRL(schedule.amountCentavos)} to ${safeText(schedule.receiver.name, 80)}, ${describeCount(schedule.recurrence)}?`,
      ),
    );
    if (!yes) throw new PixError('declined', 'nothing was scheduled', { ownChoice: true });
  }
  await store.add(schedule);
  const mode = await outputMode(deps, schedule.timeZone);
  if (mode.format === 'json') deps.io.stdout.write(jsonDocument(scheduleJson(schedule, coming), mode.pretty));
  else deps.io.stdout.write(`${schedule.id}\n`);
  stderr.write(
    `scheduled ${schedule.id}: paid on its day by \`pix schedule run-due\` (a file ledger: cron or a timer) or \`pix schedule run\` (a shared ledger)\n`,
  );
}

/**
 * `--plan FILE`: the schedule written as a standing plan (commands/pay/plan.ts) — one row per occurrence
 * (and per row of a batch file), its journal row, the key or code, the receiver as consulted now and the
 * amount — valid until the last occurrence's window ends. Nothing is scheduled until `pix schedule activate
 * FILE` finds it approved. `payees`: each line's, as consulted.
 */
export async function writeStanding(
  ctx: PayContext,
  schedule: Schedule,
  lines: readonly ScheduleLine[],
  payees: readonly Payee[],
  sendAmount: readonly boolean[] = lines.map(() => true),
): Promise<void> {
  const { recurrence } = schedule;
  const all = occurrences(recurrence, MAX_STANDING_OCCURRENCES);
  const last = all.at(-1)!;
  const { writeStandingPlan } = await import('../shared/pay/plan.js');
  const plan = await writeStandingPlan(
    ctx,
    all.flatMap((occurrence) =>
      lines.map((line, index) => ({
        id: occurrenceRow(schedule.id, occurrence.date, line.id),
        ...('key' in line.target ? { key: line.target.key } : { emv: line.target.code }),
        receiver: line.receiver,
        payee: payees[index]!,
        amount: line.amountCentavos,
        sendAmount: sendAmount[index]!,
        description: line.description,
        expect: line.expect,
      })),
    ),
    {
      schedule: schedule.id,
      recurrence,
      time: schedule.time,
      timeZone: schedule.timeZone,
    },
    new Date(windowOf(last.payOn, schedule.time, schedule.timeZone).end).toISOString(),
    'file' in schedule.target ? schedule.target.file : undefined,
  );
  if (ctx.mode.format === 'json') ctx.deps.io.stdout.write(jsonDocument(plan, ctx.mode.pretty));
}

function describeCount(recurrence: Recurrence): string {
  if (recurrence.rule.kind === 'once') return `on ${recurrence.rule.date}`;
  if (recurrence.count !== undefined) return `${recurrence.count} times`;
  return recurrence.until === undefined ? 'until cancelled' : `until ${recurrence.until}`;
}

export async function createOfRows(deps: Deps, draft: Draft, store: ScheduleStore): Promise<void> {
  const { options } = draft;
  const file = options.file;
  const read =
    file === undefined
      ? { rows: codeRows(draft, options.code!), digest: '' }
      : await fileRows(deps, file, options);
  if (draft.request !== undefined) standingBounds(draft.schedule.recurrence, read.rows.length);
  const keep = async (ctx: PayContext, items: BatchItem[]) => {
    refuseLeftOut(items, file === undefined ? 'the code' : `${fileName(file)}`);
    const lines = items.map((item) => lineOf(item, file !== undefined));
    const first = lines[0]!;
    const schedule: Schedule = {
      ...draft.schedule,
      target:
        file === undefined
          ? (first.target as { code: string; dynamic: boolean })
          : { file: fileName(file), digest: read.digest },
      amountCentavos: lines.reduce((sum, line) => sum + line.amountCentavos, 0),
      ...(file === undefined ? {} : { lines }),
      receiver: file === undefined ? first.receiver : rowsReceiver(lines.length, fileName(file)),
      ...(file === undefined && first.expect !== undefined ? { expect: first.expect } : {}),
    };
    // A static code's consultation may give an expiry too (the day's, where the server chose one): judged on the day.
    if (file === undefined && 'code' in first.target && first.target.dynamic)
      checkExpiry(schedule, items[0]!);
    if (draft.request !== undefined) {
      await writeStanding(
        ctx,
        schedule,
        lines,
        items.map((item) => ({
          ...item.payee,
          ...(item.row.target.kind === 'key' ? { key: item.row.target.key } : {}),
        })),
        items.map((item) => item.sendAmount ?? true),
      );
      deps.io.stdout.write(`${schedule.id}\n`);
      return;
    }
    if (file !== undefined) showRows(deps, lines);
    await confirmAndKeep(deps, schedule, store);
  };
  await payBatchRows(
    deps,
    // The duplicate guards are the day's (payment.ts): now nothing is paid.
    { concurrency: DEFAULT_CONCURRENCY, dryRun: false, allowDuplicate: true },
    { file: file ?? '--code', batch: draft.schedule.id, rows: read.rows },
    { flags: draft.request === undefined ? {} : { plan: draft.request }, keep },
  );
}
