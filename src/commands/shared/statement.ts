/**
 * What the statement's verbs share (`pix statement`, `statement follow`, `statement summary`): the date range
 * their flags name, and the columns an entry is shown in.
 */
import { type Command, Option } from 'commander';
import type { Party, StatementEntry } from '../../api/resources/statement.js';
import { maskDocument } from '../../domain/documents.js';
import {
  checkBounds,
  ENTRY_TYPES,
  entryPredicate,
  parseCounterparty,
  parseEntryType,
} from '../../domain/entryfilter.js';
import { centavosFromApi } from '../../domain/money.js';
import { formatDateTime, parseMonth, parseWhen } from '../../domain/when.js';
import { usageError } from '../../errors.js';
import { money, type OutputMode } from '../../output/format.js';
import type { Column, ListWriterOptions } from '../../output/records.js';
import { asUsage } from '../../usage.js';
import * as z from '../../zod.js';
import { amountFlag, fromDomain, parseOptions } from './flags.js';
import { completionValues } from './help.js';

/** The range flags, as typed. */
export interface RangeFlags {
  from?: string | undefined;
  to?: string | undefined;
  month?: string | undefined;
}

/** The instants sent to the API, or none (the whole statement). */
export interface DateRange {
  dateFrom: string;
  dateTo: string;
}

/**
 * `--from`/`--to`/`--month` → the API's dateFrom/dateTo (contract §2); `--from` alone runs until `now`.
 * Every refusal is a usage error naming its flag, raised before any request is made.
 */
export function resolveRange(options: RangeFlags, timeZone: string, now: Date): DateRange | undefined {
  const { from, to, month } = options;
  if (month !== undefined) {
    if (from !== undefined || to !== undefined) {
      throw usageError('--month', `cannot be combined with ${from !== undefined ? '--from' : '--to'}`);
    }
    const range = asUsage('--month', () => parseMonth(month, timeZone));
    return { dateFrom: range.from, dateTo: range.to };
  }
  if (from === undefined && to === undefined) return undefined;
  if (from === undefined)
    throw usageError('--from', 'is required with --to (the API takes both dates or neither)');
  const dateFrom = asUsage('--from', () => parseWhen(from, 'from', timeZone, now));
  if (to === undefined) {
    // `--from D` alone: from D until now.
    const dateTo = now.toISOString();
    if (Date.parse(dateFrom) > Date.parse(dateTo)) {
      throw usageError('--from', `${from} (${dateFrom}) is in the future: it is ${dateTo} now`);
    }
    return { dateFrom, dateTo };
  }
  const dateTo = asUsage('--to', () => parseWhen(to, 'to', timeZone, now));
  if (Date.parse(dateFrom) > Date.parse(dateTo)) {
    throw usageError('--from', `${from} (${dateFrom}) is later than --to ${to} (${dateTo})`);
  }
  return { dateFrom, dateTo };
}

/** The party on the other side: the creditor of an INCOME, the debtor of an OUTCOME (whichever is there). */
export function counterpartyOf(entry: StatementEntry): Party | undefined {
  const preferred = entry.type === 'OUTCOME' ? entry.debtor : entry.creditor;
  return preferred ?? entry.creditor ?? entry.debtor ?? undefined;
}

export function humanColumns(mode: OutputMode): Column<StatementEntry>[] {
  const { colors, timeZone } = mode;
  const none = () => undefined;
  const paint = (entry: StatementEntry, text: string) => ({
    text,
    paint: entry.type === 'INCOME' ? colors.green : entry.type === 'OUTCOME' ? colors.red : undefined,
  });
  // On a narrow terminal Method goes first, then Fee and Type (the amount's sign and colour say it).
  return [
    { header: 'Date', kind: 'date', human: (e) => formatDateTime(e.confirmedAt, timeZone), machine: none },
    { header: 'Type', kind: 'enum', priority: 3, human: (e) => e.type, machine: none },
    {
      header: 'Amount',
      kind: 'money',
      human: (e) => paint(e, money(centavosFromApi(e.amount), true)),
      machine: none,
    },
    {
      header: 'Fee',
      kind: 'money',
      priority: 3,
      human: (e) => money(centavosFromApi(e.fee ?? 0), true),
      machine: none,
    },
    { header: 'Method', kind: 'enum', priority: 4, human: (e) => e.method ?? '', machine: none },
    {
      header: 'Counterparty',
      human: (e) => {
        const party = counterpartyOf(e);
        if (!party) return '';
        const document = party.documentNumber ? maskDocument(party.documentNumber) : '';
        return [party.name, document].filter(Boolean).join(' ');
      },
      machine: none,
    },
    { header: 'Status', kind: 'enum', priority: 2, human: (e) => e.status, machine: none },
    { header: 'Id', kind: 'id', priority: 2, human: (e) => e.id, machine: none },
  ];
}

/**
 * The columns of the piped TSV, of CSV and of xlsx (typed by `kind`): ISO times, plain decimals with a
 * dot, the counterparty flattened. Documents are written in full: these are exports for reconciliation (the table masks them).
 */
export function machineColumns(): Column<StatementEntry>[] {
  const party = (e: StatementEntry) => counterpartyOf(e);
  const none = () => '';
  return [
    { header: 'confirmedAt', kind: 'date', human: none, machine: (e) => e.confirmedAt },
    { header: 'type', kind: 'enum', human: none, machine: (e) => e.type },
    { header: 'amount', kind: 'money', human: none, machine: (e) => money(centavosFromApi(e.amount), false) },
    { header: 'fee', kind: 'money', human: none, machine: (e) => money(centavosFromApi(e.fee ?? 0), false) },
    { header: 'method', human: none, machine: (e) => e.method },
    { header: 'counterpartyName', human: none, machine: (e) => party(e)?.name },
    { header: 'counterpartyDocument', kind: 'code', human: none, machine: (e) => party(e)?.documentNumber },
    { header: 'counterpartyBank', kind: 'code', human: none, machine: (e) => party(e)?.bank },
    { header: 'status', kind: 'enum', human: none, machine: (e) => e.status },
    { header: 'id', kind: 'id', human: none, machine: (e) => e.id },
  ];
}

/**
 * `-o ofx`: the list writer's hooks for an OFX document of `period` (output/ofx.ts, loaded only for it),
 * the account named by the profile.
 */
export async function ofxHooks(
  period: { dateFrom: string; dateTo: string },
  account: string,
  timeZone: string,
  now: Date,
): Promise<NonNullable<ListWriterOptions<StatementEntry>['ofx']>> {
  const { ofxBegin, ofxEnd, ofxTransactions } = await import('../../output/ofx.js');
  return {
    begin: () => ofxBegin({ ...period, account, timeZone, now }),
    record: (e) => {
      const party = counterpartyOf(e);
      return ofxTransactions(
        {
          id: e.id,
          type: e.type,
          amountCentavos: centavosFromApi(e.amount),
          feeCentavos: centavosFromApi(e.fee ?? 0),
          confirmedAt: e.confirmedAt,
          status: e.status,
          name: party?.name,
          document: party?.documentNumber,
        },
        timeZone,
      );
    },
    end: ofxEnd,
  };
}

const filterSchema = z.object({
  type: z.optional(fromDomain(parseEntryType)),
  counterparty: z.optional(fromDomain(parseCounterparty)),
  min: z.optional(amountFlag),
  max: z.optional(amountFlag),
});

/** The filter flags as typed, for a next-page hint that repeats them. */
export const FILTER_FLAGS = Object.keys(filterSchema.shape);

/** Which entries are shown: every one (undefined), or those the filter flags keep. */
export type EntryKeep = ((entry: StatementEntry) => boolean) | undefined;

/**
 * The filter flags (`--type`, `--counterparty`, `--min`, `--max`) of Commander's raw options → the
 * predicate, refusing a bad value naming its flag (exit 2, before anything is read).
 */
export function entryFilterOf(raw: Record<string, unknown>): EntryKeep {
  // The schema keeps only its own keys of Commander's options.
  const filter = parseOptions(filterSchema, raw);
  asUsage('--max', () => checkBounds(filter.min, filter.max));
  const matches = entryPredicate(filter);
  if (!matches) return undefined;
  return (entry) => {
    const party = counterpartyOf(entry);
    return matches({
      type: entry.type,
      amount: centavosFromApi(entry.amount),
      name: party?.name,
      document: party?.documentNumber,
    });
  };
}

/** The filter flags, for `pix statement` (pages, `--all`, `--follow`). */
export function addFilterOptions(command: Command): void {
  command
    // Any case is accepted (domain/entryfilter.ts); completion offers the words as typed.
    .addOption(completionValues(new Option('--type <type>', `only ${ENTRY_TYPES}`), ['income', 'outcome']))
    .option('--counterparty <text>', "only entries whose counterparty's name (or document digits) holds TEXT")
    .option('--min <amount>', 'only entries of at least this amount (either sign)')
    .option('--max <amount>', 'only entries of at most this amount (either sign)');
}
