/**
 * `pix close --day D`: closes a Brasília calendar day's books (domain/books.ts). The API gives no balance,
 * so the day's closing balance is the previous day's close (or `--opening-balance`, given once, for the
 * first) plus the day's confirmed entries less their fees. Refused (exit 8, naming them) while a payment
 * of that day is unresolved in the journal: the day's books would hide money that may have left.
 *
 * Writes the day's pack — `D.ofx` (with LEDGERBAL and the entries' ids as FITIDs), `D.xlsx`, the day's
 * reconciliation `D-reconciliation.json`, and `SHA256SUMS` — and remembers the close (books/store.ts):
 * its balance, each entry's fingerprint and the pack's digest (SHA-256 of SHA256SUMS; signed when
 * signing is available, books/signing.ts). Today's close is provisional (up to now), replaced by the
 * next close of the day; a past day's close is final. A closed day the statement now shows otherwise is
 * reported (books/closed.ts), never absorbed. `pix close --list`: the closed days (closedlist.ts). The
 * pack's files are made in pack.ts.
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { ApiClient } from '../../api/client.js';
import type { StatementEntry } from '../../api/resources/statement.js';
import type { Deps } from '../../context.js';
import {
  type BookEntry,
  type ClosedDay,
  closingOf,
  type DayTotals,
  entriesOfDay,
  fingerprint,
} from '../../domain/books.js';
import { BRASILIA_TIME_ZONE, loadBusinessDayTest } from '../../domain/duedate.js';
import { InvalidValue } from '../../domain/invalid.js';
import { type Centavos, formatBRL, parseAmount } from '../../domain/money.js';
import { reconcile } from '../../domain/reconcile.js';
import { publicKeyLine } from '../../domain/sshkeys.js';
import { parseArmoredSignature } from '../../domain/sshsig.js';
import { BOOKS, Tally } from '../../domain/sums.js';
import { addDays, calendarDay, endOfDay, formatDateTime, startOfDay, todayIn } from '../../domain/when.js';
import { counted } from '../../domain/words.js';
import { PixError, usageError } from '../../errors.js';
import { type JournalEntry, shortId } from '../../journal/entries.js';
import { isUnresolved, ofAccount } from '../../journal/rules.js';
import { jsonDocument, type OutputMode, outputMode } from '../../output/format.js';
import { safeText } from '../../output/sanitize.js';
import { ensurePrivateDir } from '../../storage/dirs.js';
import { writeFileAtomic } from '../../storage/files.js';
import * as z from '../../zod.js';
import { checkClosedDays } from '../shared/books/closed.js';
import { publicResult } from '../shared/books/report.js';
import { signDigest } from '../shared/books/signing.js';
import { chargeExpectations, paymentExpectations, readRange } from '../shared/books/sources.js';
import { type Books, openBooks } from '../shared/books/store.js';
import { closesRefusal, verifiedCloses } from '../shared/books/verify.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { publicClose, runClosedList } from './closedlist.js';
import { ofx, sums, workbook } from './pack.js';

const ZONE = BRASILIA_TIME_ZONE;

/** `1.234,56`, `-10,50`, `0`: an opening balance may be zero or negative (an overdrawn account). */
export function parseBalance(text: string): Centavos {
  const trimmed = text.trim().replace(/^[−]/, '-');
  const negative = trimmed.startsWith('-');
  const rest = negative ? trimmed.slice(1).trim() : trimmed;
  if (/^(?:R\$\s*)?0+(?:[.,]0{1,2})?$/i.test(rest)) return 0;
  const value = parseAmount(rest);
  return negative ? -value : value;
}

const closeOptionsSchema = z.object({
  day: z.optional(z.string()),
  openingBalance: z.optional(fromDomain(parseBalance)),
  list: z._default(z.boolean(), false),
  dir: z.optional(z.string().check(z.minLength(1))),
  key: z.optional(z.string().check(z.minLength(1, 'a key file is required'))),
});

export type CloseOptions = z.output<typeof closeOptionsSchema>;

/** How many days back a close looks for closed days the statement now shows otherwise. */
export const RECHECK_DAYS = 31;

/** Closing earlier than a closed day, explained: why pix does not, and what can be done instead. */
function outOfOrder(day: string, later: ClosedDay, closes: readonly ClosedDay[]): never {
  const last = closes.at(-1)!;
  const next = last.kind === 'final' ? addDays(last.day, 1) : last.day;
  throw usageError(
    '--day',
    `${day} is before ${later.day}, which is closed: days are closed in order, oldest first, each opening with the closing of the day before, so a day before a closed one cannot be closed now (what it would change is in the closes after it)`,
    `the next day to close is ${next} (pix close --day ${next}); a change to ${day} is booked on a day still open. Reopening means removing the closes from ${day} on where the books are kept (pix close --list) and closing each day again: for whoever keeps the books and signed them, never pix`,
  );
}

/** The previous close, and the opening balance it gives D; exit 2 when the days are not closed in order. */
function openingOf(closes: readonly ClosedDay[], day: string, given: Centavos | undefined): Centavos {
  const later = closes.find((close) => close.day > day);
  if (later) outOfOrder(day, later, closes);
  const before = closes.filter((close) => close.day < day).at(-1);
  const again = closes.find((close) => close.day === day);
  if (before === undefined) {
    if (given !== undefined) {
      if (again)
        throw usageError(
          '--opening-balance',
          `${day} was closed with an opening balance already: give it once`,
        );
      return given;
    }
    if (again) return again.opening;
    throw usageError(
      '--opening-balance',
      `${day} would be the first closed day: give the balance the account had when it began (the API gives none)`,
      `pix close --day ${day} --opening-balance 1.234,56`,
    );
  }
  if (given !== undefined) {
    throw usageError(
      '--opening-balance',
      `the opening balance is the previous close's (${before.day}: ${formatBRL(before.closing)})`,
    );
  }
  const yesterday = addDays(day, -1);
  if (before.day !== yesterday) {
    throw usageError(
      '--day',
      `${yesterday} is not closed (the last closed day is ${before.day}): days are closed in order, each opening with the closing of the day before`,
      `close ${addDays(before.day, 1)} first: pix close --day ${addDays(before.day, 1)}`,
    );
  }
  if (before.kind === 'provisional') {
    throw usageError(
      '--day',
      `${yesterday} was closed before it ended (provisional): close it again now, then ${day}`,
      `pix close --day ${yesterday}`,
    );
  }
  return before.closing;
}

/** A signed day closed again must be signed again: its signature is never dropped silently (exit 2). */
function keepSignature(already: ClosedDay | undefined, key: string | undefined): void {
  if (already?.signature === undefined || key !== undefined) return;
  let by = 'a key';
  try {
    by = parseArmoredSignature(already.signature).publicKey.fingerprint;
  } catch {
    // The check of the day says what is wrong with it.
  }
  throw usageError(
    '--key',
    `${already.day} was closed signed (by ${by}): closing it again without --key would drop its signature`,
    `pix close --day ${already.day} --key PATH (the key that signed it, or another the books accept)`,
  );
}

/** `--day` as a calendar day (Brasília), refused when it is not one or its close is final. */
function dayToClose(options: CloseOptions, closes: readonly ClosedDay[], localToday: string): string {
  let parsed: string | undefined;
  try {
    parsed = calendarDay(options.day!, localToday);
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError('--day', error.message);
    throw error;
  }
  if (parsed === undefined)
    throw usageError(
      '--day',
      `"${safeText(options.day, 40)}" is not a day: YYYY-MM-DD, DD/MM/YYYY, today, yesterday, -2d`,
    );
  const day = parsed;
  const already = closes.find((close) => close.day === day);
  if (already?.kind === 'final') {
    throw usageError(
      '--day',
      `${day} is closed (final, at ${formatDateTime(already.closedAt, ZONE)}): a past day's close is final`,
      'pix close --list',
    );
  }
  return day;
}

/** A day's Brasília bounds, ms. */
interface DayBounds {
  day: string;
  start: number;
  end: number;
}

/**
 * The journal's entries, once it is whole and no payment of the day is unresolved: a payment whose outcome
 * is unknown may have moved money the day's books would not show.
 */
async function journalOfDay(
  deps: Deps,
  books: Books,
  { day, start, end }: DayBounds,
): Promise<JournalEntry[]> {
  const journal = await deps.stores.journal();
  const { damage } = await journal.verify();
  if (damage.length > 0) {
    throw new PixError(
      'declined',
      `the journal is damaged (line ${damage[0]!.line}): a damaged line may be a payment of ${day}; nothing was closed`,
      { hint: 'pix journal verify lists the damaged lines' },
    );
  }
  const journalEntries = await journal.read();
  const unresolved = journalEntries.filter((entry) => {
    const at = Date.parse(entry.at);
    return (
      entry.kind === 'payment' &&
      isUnresolved(entry) &&
      ofAccount(entry, books.account) &&
      at >= start &&
      at <= end
    );
  });
  if (unresolved.length === 0) return journalEntries;
  const names = unresolved
    .slice(0, 5)
    .map(
      (entry) =>
        `${shortId(entry.id)} (${formatBRL(entry.amountCentavos)}${entry.receiver ? ` to ${safeText(entry.receiver, 60)}` : ''})`,
    )
    .join(', ');
  throw new PixError(
    'declined',
    `${day} has ${counted(unresolved.length, 'unresolved payment')}: ${names}${unresolved.length > 5 ? ', …' : ''}; nothing was closed`,
    {
      hint: `resolve each with pix journal resolve ID --paid|--not-paid (pix journal --unresolved lists them), then close ${day}`,
    },
  );
}

/**
 * The statement of the day, and of the closed days of the month before it (checked for changes, each
 * change a warning); the account's time once the API has answered, and so the close's kind and end.
 */
async function readDay(
  deps: Deps,
  client: ApiClient,
  closes: readonly ClosedDay[],
  { day, start, end }: DayBounds,
  nowLocal: Date,
) {
  const recheckFrom = Date.parse(startOfDay(addDays(day, -RECHECK_DAYS), ZONE));
  const oldest = closes.find((close) => Date.parse(startOfDay(close.day, ZONE)) >= recheckFrom);
  const readFrom = Math.min(start, oldest ? Date.parse(startOfDay(oldest.day, ZONE)) : start);
  const probeNow = nowLocal.getTime();
  if (start > probeNow + 86_400_000) throw usageError('--day', `${day} has not begun`);
  const readTo = probeNow <= end ? new Date(probeNow + 60_000).toISOString() : new Date(end).toISOString();
  const entries = await readRange(deps, client, new Date(readFrom).toISOString(), readTo);
  const now = client.clock.now();
  if (todayIn(ZONE, now) < day)
    throw usageError('--day', `${day} has not begun (it is ${todayIn(ZONE, now)} in Brasília)`);
  const kind: ClosedDay['kind'] = now.getTime() <= end ? 'provisional' : 'final';
  const through = kind === 'final' ? new Date(end).toISOString() : now.toISOString();
  const others = closes.filter((close) => close.day !== day);
  for (const changed of checkClosedDays(others, entries, readFrom, Date.parse(readTo))) {
    deps.io.stderr.write(`warning: ${changed.message}\n`);
  }
  const ofDay = entriesOfDay(entries, day, ZONE).filter(
    (entry) => Date.parse(entry.confirmedAt) <= Date.parse(through),
  );
  return { ofDay, now, kind, through };
}

/**
 * The day's entries as the books count them (domain/sums.ts BOOKS, the same rule as the statement's totals
 * and its summary): one not CONFIRMED is named and left out; one pix cannot add exactly refuses the close.
 */
function countDay(ofDay: readonly StatementEntry[], day: string, deps: Deps) {
  const tally = new Tally(BOOKS);
  const counted_ = ofDay.filter((entry) => {
    const what = tally.add(entry);
    if (what === 'uncounted') {
      deps.io.stderr.write(
        `note: entry ${safeText(entry.id, 40)} is ${safeText(entry.status, 20)}: not counted in the balance\n`,
      );
    } else if (what === 'unreadable') {
      throw new PixError(
        'declined',
        `entry ${safeText(entry.id, 40)} of ${day} has an amount or fee pix cannot add exactly; nothing was closed`,
      );
    }
    return what === 'added';
  });
  const { income, outcome, fees, count } = tally.sums();
  const totals: DayTotals = { income, outcome, fees, count };
  return { counted_, totals };
}

/** The pack's files written to `dir` (SHA256SUMS last, then its signature when there is a key). */
async function writePack(deps: Deps, options: CloseOptions, dir: string, files: Array<[string, Uint8Array]>) {
  const { text, digest } = sums(files);
  ensurePrivateDir(dir, { own: options.dir === undefined });
  for (const [name, bytes] of files) writeFileAtomic(join(dir, name), bytes);
  writeFileAtomic(join(dir, 'SHA256SUMS'), text);
  const signature = await signDigest(deps, text, options.key);
  if (signature !== undefined) writeFileAtomic(join(dir, 'SHA256SUMS.sig'), signature);
  return { text, digest, signature };
}

/** The close as a person reads it, or its `--json`. */
function sayClosed(close: ClosedDay, mode: OutputMode, deps: Deps): void {
  const { stdout } = deps.io;
  if (mode.format === 'json') {
    stdout.write(jsonDocument(publicClose(close), mode.pretty));
    return;
  }
  const { day, kind, through, opening, closing, totals, signature } = close;
  const lines = [
    `${day} closed (${kind === 'final' ? 'final' : `provisional, up to ${formatDateTime(through, ZONE)}: the next close of ${day} replaces it`})`,
    `opening ${formatBRL(opening)}, in ${formatBRL(totals.income)}, out ${formatBRL(totals.outcome)}, fees ${formatBRL(totals.fees)}`,
    `closing ${formatBRL(closing)} (${counted(totals.count, 'entry', 'entries')})`,
    `pack: ${close.dir}`,
    `digest: sha256:${close.digest}${signature === undefined ? ' (not signed)' : ' (signed)'}`,
  ];
  stdout.write(`${lines.map((line) => safeText(line, 400)).join('\n')}\n`);
}

/** What runClose read before the lock: the API, the profile, the output's mode. */
interface CloseRun {
  client: ApiClient;
  profile: string;
  mode: OutputMode;
}

/** Closes `--day` under the books' lock: the checks, the day's sums, its pack, and the close remembered. */
async function closeDay(books: Books, options: CloseOptions, deps: Deps, run: CloseRun): Promise<void> {
  const { client, profile, mode } = run;
  const { closes, problems, notes } = await verifiedCloses(books);
  for (const note of notes) deps.io.stderr.write(`note: ${safeText(note, 300)}\n`);
  if (problems.length > 0) throw closesRefusal(books, problems, 'nothing was closed');
  // Today by the account's clock (the sandbox's may run ahead): read once the API has answered.
  const nowLocal = deps.clock.now();
  const day = dayToClose(options, closes, todayIn(ZONE, nowLocal));
  const opening = openingOf(closes, day, options.openingBalance);
  keepSignature(
    closes.find((close) => close.day === day),
    options.key,
  );
  const bounds = { day, start: Date.parse(startOfDay(day, ZONE)), end: Date.parse(endOfDay(day, ZONE)) };
  const journalEntries = await journalOfDay(deps, books, bounds);
  const { ofDay, now, kind, through } = await readDay(deps, client, closes, bounds, nowLocal);
  const { counted_, totals } = countDay(ofDay, day, deps);
  const closing = closingOf(opening, totals);
  // The day's reconciliation: pix's own charges and payments against the day's entries.
  const found = reconcile(
    [
      ...chargeExpectations(journalEntries, books.account, bounds.start, bounds.end, now),
      ...paymentExpectations(journalEntries, books.account, bounds.start, bounds.end),
    ],
    ofDay,
    books.decisions(),
    { from: bounds.start, to: bounds.end, now: now.getTime(), isBusinessDay: await loadBusinessDayTest() },
  );
  const reconciliation = `${JSON.stringify({ day, kind, results: found.results.map(publicResult) }, null, 2)}\n`;
  // Kept absolute: a later check (on this machine) finds the pack wherever it is run from.
  const dir = options.dir === undefined ? books.dayDir(day) : resolve(options.dir);
  const { text, digest, signature } = await writePack(deps, options, dir, [
    [`${day}.ofx`, await ofx(profile, new Date(bounds.start).toISOString(), through, now, counted_, closing)],
    [`${day}.xlsx`, await workbook(day, kind, opening, counted_, closing, totals)],
    [`${day}-reconciliation.json`, Buffer.from(reconciliation, 'utf8')],
  ]);
  const close: ClosedDay = {
    day,
    kind,
    closedAt: now.toISOString(),
    through,
    opening,
    closing,
    totals,
    entries: Object.fromEntries(ofDay.map((entry: BookEntry) => [entry.id, fingerprint(entry)])),
    digest,
    dir,
    sums: text,
    ...(signature === undefined
      ? {}
      : { signature, signer: publicKeyLine(parseArmoredSignature(signature).publicKey) }),
  };
  await books.addClose(close);
  sayClosed(close, mode, deps);
}

export async function runClose(options: CloseOptions, deps: Deps): Promise<void> {
  const books = await openBooks(deps);
  if (options.list) {
    if (options.day !== undefined || options.openingBalance !== undefined) {
      throw usageError('--list', 'shows the closed days: it takes no --day or --opening-balance');
    }
    return runClosedList(books, deps);
  }
  if (options.day === undefined)
    throw usageError('--day', 'which day to close: --day yesterday, --day 2026-03-10');
  const settings = await deps.settings();
  const mode = await outputMode(deps, settings.timeZone.value);
  const client = await deps.api();
  await books.locked(() => closeDay(books, options, deps, { client, profile: settings.profile.value, mode }));
}

export const verb = describeVerb({
  summary: "Close a day's books: its balance, OFX, workbook and reconciliation, digested",
  formats: ['table', 'json'],
  examples: [
    'pix close --day yesterday --opening-balance 1.000,00',
    'pix close --day today --opening-balance 0',
    'pix close --list',
    'pix close --day -2d --opening-balance 0 --dir fechamento/ --jq .digest',
  ],
  exits: ['usage', 'auth', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option(
      '--day <day>',
      'the Brasília calendar day: YYYY-MM-DD, DD/MM/YYYY, yesterday, today (provisional)',
    )
    .option(
      '--opening-balance <amount>',
      'the first close only: the balance before that day (1.234,56; may be 0 or negative)',
    )
    .option('--dir <dir>', "where the day's pack goes (default: the books directory of the account)")
    .option('--list', 'the closed days and their balances')
    .option(
      '--key <path>',
      "sign the pack's SHA256SUMS with this SSH key (ssh-keygen -Y sign, namespace pix-close): SHA256SUMS.sig",
    )
    .action(async (_options, self: Command) => {
      await runClose(parseOptions(closeOptionsSchema, self.opts()), deps);
    });
}
