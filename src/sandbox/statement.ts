/**
 * The statement and the keys of the sandbox account, as the API's pages (amounts in decimal reais on the
 * wire, centavos inside).
 */
import { BRASILIA_TIME_ZONE } from '../domain/duedate.js';
import { centavosToApi } from '../domain/money.js';
import { addDays, startOfDay } from '../domain/when.js';
import { isRealDate } from './body.js';
import { ApiFailure, MAX_PAGE } from './failure.js';
import type { Party, SandboxState, StoredEntry } from './model.js';
import type { StatementView } from './seed.js';

function wireParty(party: Party): Party {
  return { name: party.name, bank: party.bank, documentNumber: party.documentNumber };
}

export function entryView(entry: StoredEntry): Record<string, unknown> {
  return {
    id: entry.id,
    type: entry.type,
    amount: centavosToApi(entry.amount),
    fee: centavosToApi(entry.fee),
    status: entry.status,
    method: entry.method,
    confirmedAt: entry.confirmedAt,
    ...(entry.creditor ? { creditor: wireParty(entry.creditor) } : {}),
    ...(entry.debtor ? { debtor: wireParty(entry.debtor) } : {}),
  };
}

export function pageParams(query: URLSearchParams): { limit: number; offset: number } {
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = query.get(name);
    if (raw === null) return fallback;
    if (!/^\d{1,9}$/.test(raw)) {
      throw new ApiFailure(
        400,
        'INVALID_PARAMETERS',
        `Parâmetros inválidos: ${name} deve ser um número inteiro`,
      );
    }
    const value = Number(raw);
    if (value < min || value > max) {
      throw new ApiFailure(
        400,
        'INVALID_PARAMETERS',
        `Parâmetros inválidos: ${name} deve estar entre ${min} e ${max}`,
      );
    }
    return value;
  };
  return { limit: read('limit', 10, 1, MAX_PAGE), offset: read('offset', 0, 0, 999_999_999) };
}

const ISO = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or date-time; a bare date is the whole Brasília day, no offset means Brasília time. */
export function parseQueryDate(text: string, end: boolean): string | undefined {
  const match = ISO.exec(text.trim());
  if (!match || !isRealDate(match[1]!)) return undefined;
  if (match[2] === undefined) {
    const midnight = Date.parse(startOfDay(end ? addDays(match[1]!, 1) : match[1]!, BRASILIA_TIME_ZONE));
    return new Date(end ? midnight - 1 : midnight).toISOString();
  }
  const [hh, mm, ss] = [Number(match[2]), Number(match[3]), Number(match[4] ?? '0')];
  if (hh > 23 || mm > 59 || ss > 59) return undefined;
  const zone = match[6] ?? '-03:00';
  const ms = Date.parse(
    `${match[1]}T${match[2]}:${match[3]}:${match[4] ?? '00'}.${(match[5] ?? '0').padEnd(3, '0').slice(0, 3)}${zone === 'Z' ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')}`,
  );
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/**
 * One page of the statement, newest first (descending confirmedAt). Entries whose confirmedAt is
 * still ahead of sandbox time (transfers settling) are not shown yet.
 */
export function statementPage(view: StatementView, query: URLSearchParams, now: Date) {
  const from = query.get('dateFrom');
  const to = query.get('dateTo');
  if ((from === null) !== (to === null)) {
    throw new ApiFailure(400, 'INVALID_DATE_RANGE', 'Informe dateFrom e dateTo juntos, ou nenhum dos dois');
  }
  let fromIso: string | undefined;
  let toIso: string | undefined;
  if (from !== null && to !== null) {
    fromIso = parseQueryDate(from, false);
    toIso = parseQueryDate(to, true);
    if (fromIso === undefined)
      throw new ApiFailure(400, 'INVALID_DATE', 'dateFrom não é uma data ISO 8601 válida');
    if (toIso === undefined)
      throw new ApiFailure(400, 'INVALID_DATE', 'dateTo não é uma data ISO 8601 válida');
    if (fromIso > toIso)
      throw new ApiFailure(400, 'INVALID_DATE_RANGE', 'dateFrom não pode ser posterior a dateTo');
  }
  const { limit, offset } = pageParams(query);
  const nowMs = now.getTime();
  const upper = toIso === undefined ? nowMs : Math.min(Date.parse(toIso), nowMs);
  const start = view.firstAtOrBefore(upper);
  const end = fromIso === undefined ? view.length : Math.max(view.firstBefore(Date.parse(fromIso)), start);
  const total = end - start;
  const results: Array<Record<string, unknown>> = [];
  for (let k = start + offset; k < Math.min(start + offset + limit, end); k++)
    results.push(entryView(view.at(k)));
  return { total, results };
}

export function keysPage(state: SandboxState, query: URLSearchParams) {
  const { limit, offset } = pageParams(query);
  return {
    total: state.keys.length,
    result: state.keys.slice(offset, offset + limit).map((key) => ({
      id: key.id,
      key: key.key,
      keyType: key.keyType,
      createdAt: key.createdAt,
    })),
  };
}
