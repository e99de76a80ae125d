/**
 * The sandbox's account, persisted as one file through storage/files.ts like every file of pix's.
 *
 * - The file is a log: line 1 is a snapshot (the SandboxState JSON, plus the `log` token that names it);
 *   every later line is the patch one `update` made (changes.ts: the small top-level fields, the records it
 *   made or changed, the activity entries it inserted). The state is the snapshot with the patches replayed
 *   in order. An update of a 1,000-payment account appends a line of a few kB instead of rewriting 1 MB.
 * - Writers take the lock of files.ts (`<file>.lock`; a lock whose process is dead, or older than 30 s,
 *   is stale and taken over), catch up with the file, mutate, and append one line (not fsync'd: a
 *   simulated account), so several CLI processes on the same file lose nothing. When the patches outgrow
 *   the snapshot, the writer replaces the file with one new snapshot line instead, atomically (temporary
 *   file + rename), as `reset` does.
 * - A line torn by a process killed mid-append has no newline: readers ignore it and the next writer cuts
 *   it off. A snapshot or a whole patch line that does not parse is a StateError (run `pix sandbox reset`).
 * - Readers take no lock: they keep a parsed copy and, when the file grew on the same inode, parse only
 *   the lines appended (each names its snapshot and its place after it, so a file replaced meanwhile is
 *   read whole). `readSandboxState` reads a file from outside a store.
 * - The file is opened refusing symbolic links; a missing directory is made 0700.
 * - The generated part of the statement is not stored entry by entry: it is `{count, seed, anchor}`
 *   and the entries are regenerated (deterministically, newest first) when a statement is asked for.
 *   A 100,000-entry account therefore costs a few hundred bytes on disk.
 */
import { lstatSync, type Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  appendPrivateLine,
  ensurePrivateDir,
  fileIdentity,
  LockTimeoutError,
  readPrivateFrom,
  withFileLock,
  writeFileAtomic,
} from '../storage/files.js';
import { SANDBOX_DEFAULT_KEY } from '../config/types.js';
import type { DueDateModifier } from '../domain/duedate.js';
import type { Centavos } from '../domain/money.js';
import type { PixKeyType } from '../domain/pixkey.js';
import { applyPatch, type Patch, RECORD_COLLECTIONS, watch } from './changes.js';

// ---------------------------------------------------------------------------------------------
// Types

export interface Party {
  name: string;
  /** Bank code (COMPE, 3 digits) in statement entries. */
  bank: string;
  documentNumber: string;
}

export interface StoredEntry {
  id: string;
  type: 'INCOME' | 'OUTCOME';
  /** Signed centavos: negative for OUTCOME. */
  amount: Centavos;
  fee: Centavos;
  status: 'CONFIRMED';
  method: 'PIX' | 'TED';
  confirmedAt: string;
  creditor?: Party;
  debtor?: Party;
}

export interface KeyRecord {
  id: string;
  key: string;
  keyType: PixKeyType;
  createdAt: string;
}

export interface NameValue {
  name: string;
  value: string;
}

/** A due-date modifier as the request carried it: the domain's type, priced by domain/duedate.ts. */
export type ChargeModifier = DueDateModifier;

export interface StoredCharge {
  id: string;
  kind: 'immediate' | 'duedate';
  /** Centavos. */
  amount: Centavos;
  /** PENDING, COMPLETED (immediate, paid) or CONFIRMED (due date, paid); EXPIRED is derived from time. */
  status: 'PENDING' | 'COMPLETED' | 'CONFIRMED';
  pixKey: string;
  pixKeyId: string;
  emvqrcps: string;
  transactionId: number;
  transactionIdentification: string;
  description?: string;
  createdAt: string;
  dueDate?: string;
  expiresAt: string;
  expirationAfterPayment?: number;
  payerQuestion?: string;
  additionalInformation?: NameValue[];
  /** Immediate: {name, taxId}; due date: {name, cpf, city, ...}. */
  debtor?: Record<string, string>;
  amountDiscount?: ChargeModifier;
  amountAbatement?: ChargeModifier;
  amountFine?: ChargeModifier;
  amountInterest?: ChargeModifier;
  paidAt?: string;
  paidAmount?: Centavos;
}

export interface Receiver {
  name: string;
  /** ISPB of the receiver's institution. */
  participant: string;
  documentNumber: string;
  type: 'NATURAL_PERSON' | 'LEGAL_PERSON';
}

export interface Consultation {
  endToEndId: string;
  flow: 'emv' | 'dict';
  createdAt: string;
  chargeId?: string;
  key?: string;
  /** Final amount shown by the consultation (centavos); absent when the payer chooses it. */
  amount?: Centavos;
  canModifyFinalAmount: boolean;
  receiver: Receiver;
  /** True when the receiver is this account (one of its own keys or charges). */
  own: boolean;
  usedBy?: string;
}

export interface StoredTransfer {
  id: string;
  endToEndId: string;
  amount: Centavos;
  fee: Centavos;
  createdAt: string;
  settlesAt: string;
  chargeId?: string;
}

export interface Account {
  name: string;
  city: string;
  documentNumber: string;
  /** ISPB of the sandbox institution. */
  participant: string;
  bank: string;
  branch: string;
  number: string;
}

export interface GeneratedStatement {
  count: number;
  seed: number;
  /** Sandbox time of the newest generated entry; the rest spread over the 60 days before it. */
  anchor: string;
}

export interface SandboxState {
  version: 1;
  createdAt: string;
  /** Sandbox time = real time + this offset (set by `pix sandbox clock`), shared by every process. */
  clockOffsetMs: number;
  nextTransactionId: number;
  account: Account;
  keys: KeyRecord[];
  generated: GeneratedStatement;
  /** Entries made by charges and transfers, newest first. */
  activity: StoredEntry[];
  charges: Record<string, StoredCharge>;
  consultations: Record<string, Consultation>;
  transfers: Record<string, StoredTransfer>;
}

// ---------------------------------------------------------------------------------------------
// The initial account

export const SANDBOX_ISPB = '99999999';
export const SANDBOX_BANK_CODE = '999';
export const DEFAULT_GENERATED_ENTRIES = 36;
const GENERATED_SEED = 20240601;
const DAY_MS = 86_400_000;

export const SEEDED_KEYS = {
  email: { id: '5f0b6a52-7a8e-4c1f-9d3b-1a2b3c4d5e01', key: SANDBOX_DEFAULT_KEY, keyType: 'EMAIL' },
  evp: {
    id: '5f0b6a52-7a8e-4c1f-9d3b-1a2b3c4d5e02',
    key: '7d9f0335-8dcc-4054-9bf9-0dbd61b36906',
    keyType: 'EVP',
  },
  cpf: { id: '5f0b6a52-7a8e-4c1f-9d3b-1a2b3c4d5e03', key: '12345678909', keyType: 'CPF' },
  phone: { id: '5f0b6a52-7a8e-4c1f-9d3b-1a2b3c4d5e04', key: '+5511912345678', keyType: 'PHONE' },
} as const;

export function initialState(now: Date): SandboxState {
  const created = now.getTime();
  const keys: KeyRecord[] = Object.values(SEEDED_KEYS).map((seed, index) => ({
    id: seed.id,
    key: seed.key,
    keyType: seed.keyType,
    createdAt: new Date(created - (90 - index) * DAY_MS).toISOString(),
  }));
  return {
    version: 1,
    createdAt: now.toISOString(),
    clockOffsetMs: 0,
    nextTransactionId: 100_001,
    account: {
      name: 'Loja Sandbox Ltda',
      city: 'SAO PAULO',
      documentNumber: '11222333000181',
      participant: SANDBOX_ISPB,
      bank: SANDBOX_BANK_CODE,
      branch: '0001',
      number: '1234567',
    },
    keys,
    generated: { count: DEFAULT_GENERATED_ENTRIES, seed: GENERATED_SEED, anchor: now.toISOString() },
    activity: [],
    charges: {},
    consultations: {},
    transfers: {},
  };
}

// ---------------------------------------------------------------------------------------------
// Generated statement: deterministic, newest first

/** mulberry32: a small seeded PRNG, enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const COUNTERPARTS: ReadonlyArray<Party> = [
  { name: 'Maria Oliveira Santos', bank: '001', documentNumber: '52998224725' },
  { name: 'João Pereira Lima', bank: '341', documentNumber: '39053344705' },
  { name: 'Mercado Bom Preço Ltda', bank: '237', documentNumber: '04252011000110' },
  { name: 'Ana Beatriz Costa', bank: '260', documentNumber: '11144477735' },
  { name: 'Transportes Rápidos SA', bank: '104', documentNumber: '33000167000101' },
  { name: 'Carlos Eduardo Souza', bank: '033', documentNumber: '74682489070' },
  { name: 'Padaria Pão Quente ME', bank: '077', documentNumber: '45997418000153' },
  { name: 'Fernanda Ribeiro Alves', bank: '336', documentNumber: '15350946056' },
];

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function hex8(n: number): string {
  return HEX[n >>> 24]! + HEX[(n >>> 16) & 0xff]! + HEX[(n >>> 8) & 0xff]! + HEX[n & 0xff]!;
}

/**
 * The generated entries, newest first, held in typed arrays (a 100,000-entry statement is a few MB
 * and almost no garbage); `at(i)` makes the API object of one entry when a page needs it.
 */
export class GeneratedEntries {
  readonly length: number;
  /** confirmedAt in epoch milliseconds, descending. */
  readonly times: Float64Array;
  private readonly amounts: Int32Array;
  /** bit 0: income, bit 1: PIX (else TED), bits 2+: counterpart index. */
  private readonly flags: Uint8Array;
  private readonly ids: Uint32Array;

  constructor(generated: GeneratedStatement) {
    const { count } = generated;
    const random = prng(generated.seed);
    const anchor = Date.parse(generated.anchor);
    const span = 60 * DAY_MS - 60_000;
    this.length = count;
    this.times = new Float64Array(count);
    this.amounts = new Int32Array(count);
    this.flags = new Uint8Array(count);
    this.ids = new Uint32Array(count * 4);
    // Random gaps scaled to the 60 days, so the times come out sorted without a sort.
    let sum = 0;
    for (let i = 0; i < count; i++) {
      const gap = random() + 0.05;
      this.times[i] = gap;
      sum += gap;
    }
    let offset = 0;
    for (let i = 0; i < count; i++) {
      offset += (this.times[i]! / sum) * span;
      this.times[i] = anchor - 60_000 - Math.floor(offset);
      const income = random() < 0.55 ? 1 : 0;
      const pix = random() < 0.85 ? 2 : 0;
      const counterpart = Math.floor(random() * COUNTERPARTS.length);
      this.flags[i] = income | pix | (counterpart << 2);
      this.amounts[i] = 500 + Math.floor(random() * random() * 250_000);
      for (let k = 0; k < 4; k++) this.ids[i * 4 + k] = Math.floor(random() * 4294967296);
    }
  }

  at(i: number): StoredEntry {
    const flags = this.flags[i]!;
    const income = (flags & 1) === 1;
    const pix = (flags & 2) === 2;
    const counterpart = COUNTERPARTS[flags >> 2]!;
    const cents = this.amounts[i]!;
    const base = i * 4;
    const a = hex8(this.ids[base]!);
    const b = hex8(this.ids[base + 1]!);
    const c = hex8(this.ids[base + 2]!);
    const d = hex8(this.ids[base + 3]!);
    const entry: StoredEntry = {
      id: `${a}-${b.slice(0, 4)}-4${b.slice(5)}-a${c.slice(1, 4)}-${c.slice(4)}${d}`,
      type: income ? 'INCOME' : 'OUTCOME',
      amount: income ? cents : -cents,
      fee: pix ? 0 : 150,
      status: 'CONFIRMED',
      method: pix ? 'PIX' : 'TED',
      confirmedAt: new Date(this.times[i]!).toISOString(),
    };
    if (income) entry.creditor = counterpart;
    else entry.debtor = counterpart;
    return entry;
  }
}

/** The whole statement: generated entries and the account's own activity, merged newest first. */
export class StatementView {
  readonly length: number;
  /** confirmedAt in epoch milliseconds, descending. */
  readonly times: Float64Array;
  /** >= 0: index into the generated entries; < 0: -(index into activity) - 1. */
  private readonly refs: Int32Array;

  constructor(
    private readonly generated: GeneratedEntries,
    private readonly activity: StoredEntry[],
  ) {
    const g = generated.times;
    const activityTimes = activity.map((entry) => Date.parse(entry.confirmedAt));
    this.length = g.length + activity.length;
    this.times = new Float64Array(this.length);
    this.refs = new Int32Array(this.length);
    let i = 0;
    let j = 0;
    for (let k = 0; k < this.length; k++) {
      if (j >= activityTimes.length || (i < g.length && g[i]! >= activityTimes[j]!)) {
        this.times[k] = g[i]!;
        this.refs[k] = i++;
      } else {
        this.times[k] = activityTimes[j]!;
        this.refs[k] = -++j;
      }
    }
  }

  at(k: number): StoredEntry {
    const ref = this.refs[k]!;
    return ref >= 0 ? this.generated.at(ref) : this.activity[-ref - 1]!;
  }

  /** First index whose time is <= ms. */
  firstAtOrBefore(ms: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.times[mid]! > ms) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** First index whose time is < ms. */
  firstBefore(ms: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.times[mid]! >= ms) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/** Inserts an entry into a newest-first list at its place. */
export function insertEntry(list: StoredEntry[], entry: StoredEntry): void {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]!.confirmedAt > entry.confirmedAt) low = mid + 1;
    else high = mid;
  }
  list.splice(low, 0, entry);
}

// ---------------------------------------------------------------------------------------------
// The store

export class StateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateError';
  }
}

/** Patches are folded into a new snapshot when they outgrow the snapshot and this floor. */
const COMPACT_AT_BYTES = 64 * 1024;

/** A patch line: what one update changed (changes.ts), after the snapshot whose token is `log`. */
type PatchLine = Patch & { log: string; seq: number };

/** What a store holds of its file: the state, and where in the file it stands. */
interface Loaded {
  state: SandboxState;
  /** The snapshot's token, named by every patch after it; undefined in a file written before the log. */
  log: string | undefined;
  /** Patches applied after the snapshot. */
  seq: number;
  /** Device and inode of the file read. */
  identity: string;
  /** Bytes read: the end of the last whole line. */
  offset: number;
  snapshotBytes: number;
  /** The file's size and mtime when everything in it had been read: nothing to read while they hold. */
  seen: { size: number; mtimeMs: number } | undefined;
}

/** The file's own stats (a symbolic link is not followed: reading it is then refused), or undefined. */
function statOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function corrupt(file: string, line: number, what: string): StateError {
  const where =
    line === 1 ? `the sandbox state file ${file}` : `line ${line} of the sandbox state file ${file}`;
  return new StateError(`${where} ${what}; run \`pix sandbox reset\``);
}

/** Parses a whole state file: the snapshot line, then every whole patch line (a torn last line is left). */
function parseLog(file: string, bytes: Buffer, identity: string): Loaded {
  let newline = bytes.indexOf(0x0a);
  // A snapshot is renamed into place whole, never torn: without a newline it is the whole file (as a file
  // written before the log was).
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8', 0, newline < 0 ? bytes.length : newline));
  } catch {
    // One JSON document over several lines (written before the log, or by hand) is a snapshot too.
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
      newline = -1;
    } catch {
      throw corrupt(file, 1, 'is not valid JSON');
    }
  }
  if (!isState(parsed)) throw corrupt(file, 1, 'is not a sandbox state');
  const { log, ...state } = parsed as SandboxState & { log?: unknown };
  const offset = newline < 0 ? bytes.length : newline + 1;
  const loaded: Loaded = {
    state,
    log: typeof log === 'string' ? log : undefined,
    seq: 0,
    identity,
    offset,
    snapshotBytes: offset,
    seen: undefined,
  };
  if (!applyLines(file, loaded, bytes.subarray(offset))) {
    throw corrupt(file, loaded.seq + 2, 'does not follow the line before it');
  }
  return loaded;
}

/**
 * Applies the whole lines of `tail` (the bytes after `loaded.offset`) to `loaded`, in place. False when a
 * line belongs to another snapshot or does not come next (the file was replaced), having applied the lines
 * before it; a line that is not a patch throws StateError.
 */
function applyLines(file: string, loaded: Loaded, tail: Buffer): boolean {
  let start = 0;
  for (let end = tail.indexOf(0x0a); end >= 0; end = tail.indexOf(0x0a, start)) {
    const line = loaded.seq + 2;
    let patch: unknown;
    try {
      patch = JSON.parse(tail.toString('utf8', start, end));
    } catch {
      throw corrupt(file, line, 'is not valid JSON');
    }
    if (!isPatchLine(patch)) throw corrupt(file, line, 'is not a sandbox state change');
    if (patch.log !== loaded.log || patch.seq !== loaded.seq + 1) return false;
    if (!applyPatch(loaded.state, patch)) throw corrupt(file, line, 'does not fit the state before it');
    loaded.seq++;
    loaded.offset += end + 1 - start;
    start = end + 1;
  }
  return true;
}

/**
 * The state a file holds (its snapshot with every whole patch replayed), read without a lock; undefined
 * when there is no file. Throws StateError for a corrupt one. For tests and tools that look at the file
 * from outside: the file is a log, not one JSON document.
 */
export function readSandboxState(file: string): SandboxState | undefined {
  const whole = readPrivateFrom(file, 0);
  return whole && parseLog(file, whole.bytes, whole.identity).state;
}

export interface StateStoreOptions {
  /** Real time; sandbox time is this plus the state's clock offset. */
  clock?: () => Date;
  /** The patches are folded into a new snapshot when they outgrow it and this many bytes (64 KiB). */
  compactAtBytes?: number;
}

/**
 * One state file. Several stores (in this process or others) may share a file; `update` is the only
 * writer and runs its mutation under the lock on the freshest copy.
 */
export class StateStore {
  readonly file: string;
  private readonly realClock: () => Date;
  private readonly compactAtBytes: number;
  private loaded: Loaded | undefined;
  private generatedCache: (GeneratedStatement & { entries: GeneratedEntries }) | undefined;
  private viewCache: { state: SandboxState; activity: number; view: StatementView } | undefined;

  constructor(file: string, options: StateStoreOptions = {}) {
    this.file = file;
    this.realClock = options.clock ?? (() => new Date());
    this.compactAtBytes = options.compactAtBytes ?? COMPACT_AT_BYTES;
  }

  /** Sandbox time for a state: real time plus its offset. */
  now(state: SandboxState): Date {
    return new Date(this.realClock().getTime() + state.clockOffsetMs);
  }

  realNow(): Date {
    return this.realClock();
  }

  /** Sandbox time by the state last read or written, without reading the file; undefined before that. */
  lastKnownNow(): Date | undefined {
    return this.loaded && this.now(this.loaded.state);
  }

  /**
   * The current state, without a lock (a new object when the file changed since the last read). Creates
   * the file (under the lock) when it does not exist.
   */
  async read(): Promise<SandboxState> {
    const loaded = this.catchUp();
    if (loaded) return loaded.state;
    return this.update((state) => state);
  }

  /**
   * Read-modify-write under the lock: catch up with the file, mutate, append one patch line (or write a
   * snapshot when the patches have grown past it). `mutate` must validate before it changes anything, and
   * change the state only through the object it is handed (changes.ts watches it); when it throws, nothing
   * is written and an in-memory copy it changed is dropped.
   */
  async update<T>(mutate: (state: SandboxState, now: Date) => T): Promise<T> {
    return this.withLock(() => {
      const loaded = this.catchUp();
      const state = loaded?.state ?? initialState(this.realClock());
      const watched = watch(state);
      let result: T;
      try {
        result = mutate(watched.state, this.now(state));
      } catch (error) {
        if (watched.touched()) this.forget();
        throw error;
      }
      if (!loaded) this.writeSnapshot(state);
      else if (watched.touched()) this.append(loaded, watched.patch());
      // The state itself is handed back as itself, not as the view the mutation saw.
      return (result as unknown) === watched.state ? (state as T) : result;
    });
  }

  /** Replaces the state with a fresh account (`pix sandbox reset`), atomically. */
  async reset(): Promise<SandboxState> {
    return this.withLock(() => {
      const state = initialState(this.realClock());
      this.writeSnapshot(state);
      return state;
    });
  }

  /** The whole statement (generated + activity), newest first, including entries not yet confirmed. */
  statement(state: SandboxState): StatementView {
    if (this.viewCache?.state === state && this.viewCache.activity === state.activity.length) {
      return this.viewCache.view;
    }
    const g = state.generated;
    const cached = this.generatedCache;
    let generated = cached?.entries;
    if (!generated || cached?.count !== g.count || cached.seed !== g.seed || cached.anchor !== g.anchor) {
      generated = new GeneratedEntries(g);
      this.generatedCache = { ...g, entries: generated };
    }
    const view = new StatementView(generated, state.activity);
    this.viewCache = { state, activity: state.activity.length, view };
    return view;
  }

  private forget(): undefined {
    this.loaded = undefined;
    this.viewCache = undefined;
    return undefined;
  }

  /**
   * Brings the copy up to date with the file: nothing to do while its size and mtime hold; the appended
   * lines only when it grew on the same inode; the whole file when it was replaced, cut, or changed in a
   * way the lines appended do not explain. Undefined when there is no file.
   */
  private catchUp(): Loaded | undefined {
    const stats = statOrUndefined(this.file);
    if (!stats) return this.forget();
    const loaded = this.loaded;
    if (loaded && fileIdentity(stats) === loaded.identity) {
      if (loaded.seen?.size === stats.size && loaded.seen.mtimeMs === stats.mtimeMs) return loaded;
      if (stats.size >= loaded.offset && this.readAppended(loaded, stats)) return loaded;
    }
    return this.readWhole();
  }

  /** Applies the lines appended since `loaded` was read; false when the file turns out to be another. */
  private readAppended(loaded: Loaded, stats: Stats): boolean {
    const tail = readPrivateFrom(this.file, loaded.offset);
    if (!tail || tail.identity !== loaded.identity || tail.size < loaded.offset) return false;
    // Same size and inode as what was read, another mtime: rewritten in place of the same length.
    if (tail.size === loaded.offset && loaded.seen !== undefined) return false;
    if (tail.bytes.includes(0x0a)) {
      // A changed state is a new object, as when read whole: a state handed out before stays as it was.
      const { state } = loaded;
      loaded.state = {
        ...state,
        activity: state.activity.slice(),
        charges: { ...state.charges },
        consultations: { ...state.consultations },
        transfers: { ...state.transfers },
      };
      this.viewCache = undefined;
    }
    try {
      if (!applyLines(this.file, loaded, tail.bytes)) return false;
    } catch (error) {
      // Not a line where one should start: replaced. Read whole, the file says whether it is corrupt.
      if (error instanceof StateError) return false;
      throw error;
    }
    const whole = loaded.offset === tail.size && tail.size === stats.size;
    loaded.seen = whole ? { size: stats.size, mtimeMs: stats.mtimeMs } : undefined;
    return true;
  }

  private readWhole(): Loaded | undefined {
    this.forget();
    const whole = readPrivateFrom(this.file, 0);
    if (!whole) return undefined;
    const loaded = parseLog(this.file, whole.bytes, whole.identity);
    // Stat again after reading: the file may have grown or been replaced meanwhile.
    const after = statOrUndefined(this.file);
    if (after && fileIdentity(after) === loaded.identity && after.size === loaded.offset) {
      loaded.seen = { size: after.size, mtimeMs: after.mtimeMs };
    }
    this.loaded = loaded;
    return loaded;
  }

  /** Under the lock: appends one patch line, or writes a snapshot when a patch cannot say the change. */
  private append(loaded: Loaded, patch: Patch | undefined): void {
    if (patch === undefined || loaded.log === undefined) {
      this.writeSnapshot(loaded.state);
      return;
    }
    const line = JSON.stringify({ log: loaded.log, seq: loaded.seq + 1, ...patch });
    const patchBytes = loaded.offset - loaded.snapshotBytes + Buffer.byteLength(line) + 1;
    if (patchBytes > Math.max(loaded.snapshotBytes, this.compactAtBytes)) {
      this.writeSnapshot(loaded.state);
      return;
    }
    // A line torn by a writer killed mid-append (past `offset`, not read) is cut off first.
    const after = appendPrivateLine(this.file, line, { durable: false, torn: 'cut' });
    if (after.identity !== loaded.identity) {
      this.forget(); // replaced by someone not taking the lock: read it again next time
      return;
    }
    loaded.seq++;
    loaded.offset = after.size;
    loaded.seen = { size: after.size, mtimeMs: after.mtimeMs };
    this.viewCache = undefined;
  }

  /** Under the lock: replaces the file with one snapshot line, under a new token. */
  private writeSnapshot(state: SandboxState): void {
    // Web Crypto's global: a command that only reads the sandbox does not load node:crypto.
    const log = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(8))).toString('hex');
    // A simulated account: replaced atomically (never a torn file), without waiting on the disk each time.
    writeFileAtomic(this.file, `${JSON.stringify({ log, ...state })}\n`, { durable: false });
    const stats = statSync(this.file);
    this.loaded = {
      state,
      log,
      seq: 0,
      identity: fileIdentity(stats),
      offset: stats.size,
      snapshotBytes: stats.size,
      seen: { size: stats.size, mtimeMs: stats.mtimeMs },
    };
    this.viewCache = undefined;
  }

  private async withLock<T>(work: () => T): Promise<T> {
    // A directory the user named for the file is left as it is; a missing one is made 0700. (The default
    // file's directory, the config directory, is checked by paths.ts.)
    ensurePrivateDir(dirname(this.file), { own: false });
    try {
      return await withFileLock(this.file, `the sandbox state ${this.file}`, work);
    } catch (error) {
      // The lock's wait ran out: the server reports a StateError's message in its 500.
      if (error instanceof LockTimeoutError) throw new StateError(error.message);
      throw error;
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPatchLine(value: unknown): value is PatchLine {
  if (!isRecord(value)) return false;
  const { log, seq, top, activity } = value;
  if (typeof log !== 'string' || !Number.isSafeInteger(seq) || !isRecord(top)) return false;
  if ('activity' in top || RECORD_COLLECTIONS.some((name) => name in top)) return false;
  if (!isState({ ...top, activity: [], charges: {}, consultations: {}, transfers: {} })) return false;
  for (const name of RECORD_COLLECTIONS) {
    const changed = value[name];
    if (changed === undefined) continue;
    if (!isRecord(changed) || !Object.values(changed).every((r) => r === null || isRecord(r))) return false;
  }
  return (
    activity === undefined ||
    (Array.isArray(activity) &&
      activity.every(
        (pair) =>
          Array.isArray(pair) &&
          pair.length === 2 &&
          Number.isSafeInteger(pair[0]) &&
          pair[0] >= 0 &&
          isRecord(pair[1]),
      ))
  );
}

function isState(value: unknown): value is SandboxState {
  if (typeof value !== 'object' || value === null) return false;
  const state = value as Partial<SandboxState>;
  return (
    state.version === 1 &&
    Array.isArray(state.keys) &&
    Array.isArray(state.activity) &&
    typeof state.generated === 'object' &&
    typeof state.charges === 'object' &&
    typeof state.consultations === 'object' &&
    typeof state.transfers === 'object' &&
    typeof state.clockOffsetMs === 'number'
  );
}
