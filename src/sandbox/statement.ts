/**
 * The statement and the keys of the sandbox account, as the API's pages (amounts in decimal reais on the
 * wire, centavos inside).
 */
import { BRASILIA_TIME_ZONE } from '../domain/duedate.js';
import { centavosToApi } from '../domain/money.js';
import { addDays, startOfDay } from '../domain/when.js';
import { isRealDate } from './body.js';
import { ApiFailure } from './failure.js';
import type { Party, SandboxState, StoredEntry } from './model.js';
import { maskDocument } from './people.js';
import type { StatementView } from './seed.js';
import { DEFAULT_SERVER, type ServerSettings } from './serversettings.js';

/** A counterparty as the server chosen writes it (serversettings.ts names, documents). */
function wireParty(party: Party, server: ServerSettings): Partial<Party> {
  const name =
    server.names === 'upper-ascii'
      ? party.name.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase()
      : party.name;
  if (server.documents === 'none') return { name, bank: party.bank };
  const documentNumber =
    server.documents === 'masked' ? maskDocument(party.documentNumber) : party.documentNumber;
  return { name, bank: party.bank, documentNumber };
}

export function entryView(
  entry: StoredEntry,
  server: ServerSettings = DEFAULT_SERVER,
): Record<string, unknown> {
  return {
    id: entry.id,
    type: entry.type,
    amount: centavosToApi(entry.amount),
    fee: centavosToApi(entry.fee),
    status: entry.status,
    method: entry.method,
    confirmedAt: entry.confirmedAt,
    ...(entry.creditor ? { creditor: wireParty(entry.creditor, server) } : {}),
    ...(entry.debtor ? { debtor: wireParty(entry.debtor, server) } : {}),
  };
}

/**
 * The records of a page as the server chosen hands them out: from `offset`, `limit` of them, fewer when it
 * clamps pages, none or one fewer from where it loses records (serversettings.ts).
 */
function pageSpan(offset: number, limit: number, server: ServerSettings): number {
  if (server.emptyAfter !== undefined && offset >= server.emptyAfter) return 0;
  const count = Math.min(limit, server.clampPage ?? limit);
  return server.shortAfter !== undefined && offset >= server.shortAfter ? Math.max(0, count - 1) : count;
}

export function pageParams(
  query: URLSearchParams,
  server: ServerSettings = DEFAULT_SERVER,
): { limit: number; offset: number } {
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
  return { limit: read('limit', 10, 1, server.maxPage), offset: read('offset', 0, 0, 999_999_999) };
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
export function statementPage(
  view: StatementView,
  query: URLSearchParams,
  now: Date,
  server: ServerSettings = DEFAULT_SERVER,
) {
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
  const { limit, offset } = pageParams(query, server);
  const nowMs = now.getTime();
  const upper = toIso === undefined ? nowMs : Math.min(Date.parse(toIso), nowMs);
  const start = view.firstAtOrBefore(upper);
  const end = fromIso === undefined ? view.length : Math.max(view.firstBefore(Date.parse(fromIso)), start);
  const total = end - start;
  const results: Array<Record<string, unknown>> = [];
  const span = pageSpan(offset, limit, server);
  for (let n = offset; n < Math.min(offset + span, total); n++) {
    // Newest first is the view's own order; oldest first counts from its other end.
    results.push(entryView(view.at(server.order === 'newest' ? start + n : end - 1 - n), server));
  }
  return { total, [server.listField === 'result' ? 'result' : 'results']: results };
}

export function keysPage(
  state: SandboxState,
  query: URLSearchParams,
  server: ServerSettings = DEFAULT_SERVER,
) {
  const { limit, offset } = pageParams(query, server);
  const keys = server.order === 'newest' ? state.keys : [...state.keys].reverse();
  return {
    total: state.keys.length,
    [server.listField === 'results' ? 'results' : 'result']: keys
      .slice(offset, offset + pageSpan(offset, limit, server))
      .map((key) => ({
        id: key.id,
        key: key.key,
        keyType: key.keyType,
        createdAt: key.createdAt,
      })),
  };
}
