/**
 * The seed data: the account a fresh state starts with (initialState, SEEDED_KEYS), and the generated part
 * of its statement. The generated entries are not stored one by one: the state keeps `{count, seed,
 * anchor}` and they are regenerated here (deterministically, newest first) when a statement is asked for,
 * so a 100,000-entry account costs a few hundred bytes on disk. StatementView merges them with the
 * account's own activity.
 */

import { SANDBOX_DEFAULT_KEY } from '../config/types.js';
import { randomDigits, randomUUID } from './body.js';
import type { GeneratedStatement, KeyRecord, Party, SandboxState, StoredEntry } from './model.js';

export const SANDBOX_ISPB = '99999999';
export const SANDBOX_BANK_CODE = '999';
export const DEFAULT_GENERATED_ENTRIES = 36;
const GENERATED_SEED = 20240601;
const DAY_MS = 86_400_000;

/**
 * The account's four keys. Their ids are made for each new state (initialState), as its account number is:
 * pix knows an account by the bank details the DICT answers for one of its own keys (journal/accounts.ts),
 * and two sandbox states are two accounts — a rehearsal on the embedded sandbox is not a payment on
 * `pix sandbox serve --state ci.json`, and `pix sandbox reset` makes a new account.
 */
export const SEEDED_KEYS = {
  email: { key: SANDBOX_DEFAULT_KEY, keyType: 'EMAIL' },
  evp: { key: '7d9f0335-8dcc-4054-9bf9-0dbd61b36906', keyType: 'EVP' },
  cpf: { key: '12345678909', keyType: 'CPF' },
  phone: { key: '+5511912345678', keyType: 'PHONE' },
} as const;

/** The number every state held before each was given its own. */
const EARLIER_NUMBER = '1234567';

/**
 * The account's number as the DICT answers it. A state made by an earlier version holds the number every
 * state then held: its own is made from what is its alone (when it was made, its first key's id), so two
 * such states are still two accounts.
 */
export function accountNumber(state: Pick<SandboxState, 'account' | 'createdAt' | 'keys'>): string {
  if (state.account.number !== EARLIER_NUMBER) return state.account.number;
  let hash = 2166136261;
  for (const char of `${state.createdAt}\n${state.keys[0]?.id ?? ''}`) {
    hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  }
  return `8${String(hash % 1_000_000).padStart(6, '0')}`;
}

export function initialState(now: Date): SandboxState {
  const created = now.getTime();
  const keys: KeyRecord[] = Object.values(SEEDED_KEYS).map((seed, index) => ({
    id: randomUUID(),
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
      number: `7${randomDigits(6)}`,
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
