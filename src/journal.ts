/**
 * The local journal of transfers (contract §7.6): `<config dir>/journal.jsonl`, one JSON object per line.
 *
 * - A `sending` entry is appended before a transfer is sent, and a second line with the same id and
 *   the outcome (`done`, `failed`, `unknown`) after. No secrets: no token, no EMV code (its SHA-256 only).
 * - Every line is appended with ONE write(2) on a descriptor opened O_APPEND, so concurrent writers
 *   interleave whole lines; a writer killed mid-write leaves at most a torn last line, which the reader
 *   skips (and the next writer starts on a fresh line).
 * - The duplicate guard reads it: the same dynamic code paid before (done, unknown, or sent and never
 *   completed), or the same key or static code with the same amount within 10 minutes.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Clock } from './deps.js';
import type { Centavos } from './domain/money.js';

export const JOURNAL_FILE = 'journal.jsonl';
/** Same key (or static code) and amount within this window is a duplicate (contract §7.6). */
export const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;

export type PaymentKind = 'qr' | 'key';
export type FinalState = 'done' | 'failed' | 'unknown';
export type PaymentState = 'sending' | FinalState;

/** The line written before the transfer is sent. */
export interface StartEntry {
  id: string;
  /** ISO 8601 instant. */
  at: string;
  profile: string;
  /** API host the transfer goes to. */
  host: string;
  kind: PaymentKind;
  /** SHA-256 (hex) of the BR Code, for `qr`. */
  emvHash?: string;
  /** True for a dynamic code (meant to be paid once). */
  dynamic?: boolean;
  /** The normalised PIX key, for `key`. */
  key?: string;
  /** Integer centavos. */
  amountCentavos: Centavos;
  endToEndId: string;
  receiver?: string;
  state: 'sending';
}

/** The line written after: the outcome of the entry with the same id. */
export interface FinishEntry {
  id: string;
  at: string;
  state: FinalState;
  transferId?: string;
  status?: string;
  /** Why it failed, in a few words (never a secret). */
  reason?: string;
}

/** A start entry with the latest state recorded for it. */
export interface Payment extends Omit<StartEntry, 'state'> {
  state: PaymentState;
  transferId?: string;
  status?: string;
  finishedAt?: string;
}

export interface DuplicateQuery {
  kind: PaymentKind;
  emvHash?: string;
  dynamic?: boolean;
  key?: string;
  amountCentavos: Centavos;
}

export interface Journal {
  readonly path: string;
  /** Every payment in file order, each with its latest state. Unreadable lines are skipped. */
  read(): Payment[];
  /** Appends the `sending` line (flushed to disk before returning) and returns its id. */
  begin(entry: Omit<StartEntry, 'id' | 'at' | 'state'>): StartEntry;
  finish(id: string, outcome: Omit<FinishEntry, 'id' | 'at'>): void;
  /**
   * The earlier payment this one would duplicate, if any. With `before`, only entries written before
   * that id count (used after appending our own line, to close the race between two processes).
   */
  findDuplicate(query: DuplicateQuery, before?: string): Payment | undefined;
}

export function hashEmv(emv: string): string {
  return createHash('sha256').update(emv.trim(), 'utf8').digest('hex');
}

/** Parses the journal text: whole lines only; a torn or foreign line is skipped, never fatal. */
export function parseJournal(text: string): Payment[] {
  const byId = new Map<string, Payment>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const record = value as Record<string, unknown>;
    if (typeof record.id !== 'string' || typeof record.state !== 'string') continue;
    if (record.state === 'sending') {
      if (typeof record.amountCentavos !== 'number' || typeof record.at !== 'string') continue;
      if (!byId.has(record.id)) byId.set(record.id, { ...(record as unknown as StartEntry) });
      continue;
    }
    const payment = byId.get(record.id);
    if (!payment) continue;
    const finish = record as unknown as FinishEntry;
    payment.state = finish.state;
    if (finish.transferId !== undefined) payment.transferId = finish.transferId;
    if (finish.status !== undefined) payment.status = finish.status;
    payment.finishedAt = finish.at;
  }
  return [...byId.values()];
}

/**
 * The duplicate rule, pure. `failed` payments never count (nothing was applied); `done`, `unknown`
 * and `sending` (a process that died after sending) do.
 * - a dynamic code: any earlier payment of the same code, however long ago;
 * - a key, or a static code: the same key/code and amount within 10 minutes of `now`.
 */
export function findDuplicate(payments: Payment[], query: DuplicateQuery, now: Date): Payment | undefined {
  const matches = payments.filter((payment) => {
    if (payment.state === 'failed' || payment.kind !== query.kind) return false;
    if (query.kind === 'qr') {
      if (payment.emvHash !== query.emvHash) return false;
      if (query.dynamic) return true;
    } else if (payment.key !== query.key) {
      return false;
    }
    if (payment.amountCentavos !== query.amountCentavos) return false;
    const age = now.getTime() - Date.parse(payment.at);
    return age < DUPLICATE_WINDOW_MS;
  });
  return matches[matches.length - 1];
}

function appendLine(path: string, record: object): void {
  // O_APPEND (and read, to look at the last byte); created 0600.
  const fd = openSync(path, 'a+', 0o600);
  try {
    let line = `${JSON.stringify(record)}\n`;
    // A writer killed mid-line leaves no newline at the end: start ours on a fresh line.
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) line = `\n${line}`;
    }
    const bytes = Buffer.from(line, 'utf8');
    const written = writeSync(fd, bytes);
    if (written !== bytes.length) throw new Error(`journal: short write to ${path}`);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** The journal in `dir` (created 0700 when missing; the file is created 0600). */
export function openJournal(dir: string, clock: Clock): Journal {
  const path = join(dir, JOURNAL_FILE);
  const ensureDir = () => mkdirSync(dir, { recursive: true, mode: 0o700 });
  const journal: Journal = {
    path,
    read: () => parseJournal(readText(path)),
    begin(entry) {
      ensureDir();
      const start: StartEntry = {
        id: randomUUID(),
        at: clock.now().toISOString(),
        ...entry,
        state: 'sending',
      };
      appendLine(path, start);
      return start;
    },
    finish(id, outcome) {
      ensureDir();
      appendLine(path, { id, at: clock.now().toISOString(), ...outcome });
    },
    findDuplicate(query, before) {
      let payments = journal.read();
      if (before !== undefined) {
        const index = payments.findIndex((payment) => payment.id === before);
        if (index !== -1) payments = payments.slice(0, index);
      }
      return findDuplicate(payments, query, clock.now());
    },
  };
  return journal;
}
