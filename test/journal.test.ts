import { spawn } from 'node:child_process';
import {
  appendFileSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  hashEmv,
  JOURNAL_FILE,
  type JournalEntry,
  type StartFields,
  shortId,
} from '../src/journal/entries.js';
import { parseJournal, TORN_MARK } from '../src/journal/parser.js';
import {
  type Account,
  DUPLICATE_WINDOW_MS,
  type DuplicateQuery,
  effectiveState,
  findBlocking,
  findEntry,
  isResolvable,
  isUnresolved,
  rowBlocker,
} from '../src/journal/rules.js';
import { openJournal } from '../src/journal/store.js';
import { SYSTEM } from '../src/system.js';
import { nodeScript } from './helpers/child.js';
import { tempConfigDir } from './helpers/cli.js';

const T0 = new Date('2026-03-10T12:00:00Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function clockAt(date: Date) {
  let now = date;
  return {
    now: () => now,
    set(next: Date) {
      now = next;
    },
  };
}

const keyStart = (key = 'ana@example.com', amountCentavos = 1050): StartFields & { account: string } => ({
  kind: 'payment',
  account: 'acct_prod',
  profile: 'prod',
  host: 'api.example.test',
  amountCentavos,
  receiver: 'Ana Souza',
  endToEndId: 'E123',
  payment: { method: 'key', key },
});

/** A line with `over` in place of the defaults (a field given as undefined is one the line lacks). */
const entry = (over: { [K in keyof JournalEntry]?: JournalEntry[K] | undefined } = {}): JournalEntry =>
  ({
    id: 'p1',
    seq: 0,
    at: T0.toISOString(),
    ...keyStart(),
    state: 'done',
    ...over,
  }) as JournalEntry;

/** The account of keyStart's lines; lines of older versions (no account) are its own by their host. */
const ACCOUNT: Account = {
  id: 'acct_prod',
  profile: 'prod',
  baseUrl: 'https://api.example.test',
  host: 'api.example.test',
  legacy: [{ baseUrl: 'https://api.example.test', host: 'api.example.test' }],
  formerIds: [],
};
const block = (entries: readonly JournalEntry[], query: DuplicateQuery, now: Date) =>
  findBlocking(entries, query, now, ACCOUNT);

const keyQuery: DuplicateQuery = { method: 'key', key: 'ana@example.com', amountCentavos: 1050 };
const later = (ms: number) => new Date(T0.getTime() + ms);

describe('journal file', () => {
  it('appends a sending line and an outcome line, merged on read; dir 0700, file 0600, no EMV code kept', () => {
    const dir = join(tempConfigDir(), 'nested');
    const journal = openJournal(dir, { ...SYSTEM, clock: clockAt(T0) });
    const emv = '00020101021226...6304ABCD';
    const start = journal.begin({
      ...keyStart(),
      payment: { method: 'qr', emvHash: hashEmv(emv), dynamic: true },
    });
    expect(start.state).toBe('sending');
    expect(journal.read()).toEqual([expect.objectContaining({ id: start.id, state: 'sending' })]);
    journal.finish(start.id, { state: 'done', transferId: 't-1', status: 'PENDING' });
    const [read] = journal.read();
    expect(read).toMatchObject({
      id: start.id,
      kind: 'payment',
      state: 'done',
      transferId: 't-1',
      status: 'PENDING',
      finishedAt: T0.toISOString(),
      payment: { method: 'qr', dynamic: true, emvHash: hashEmv(emv) },
    });
    const text = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(2);
    expect(text).not.toContain(emv);
    expect(statSync(join(dir, JOURNAL_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a symbolic link planted at journal.jsonl (ELOOP), for reading and for writing', () => {
    const dir = tempConfigDir();
    const elsewhere = join(tempConfigDir(), 'elsewhere.txt');
    writeFileSync(elsewhere, 'not a journal\n');
    symlinkSync(elsewhere, join(dir, JOURNAL_FILE));
    const journal = openJournal(dir, { ...SYSTEM, clock: clockAt(T0) });
    expect(() => journal.read()).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(() => journal.begin(keyStart())).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(readFileSync(elsewhere, 'utf8')).toBe('not a journal\n');
  });

  it('records a resolution on its own line; the latest one wins', () => {
    const dir = tempConfigDir();
    const clock = clockAt(T0);
    const journal = openJournal(dir, { ...SYSTEM, clock: clock });
    const start = journal.begin(keyStart());
    journal.finish(start.id, { state: 'unknown', reason: 'unknown_outcome' });
    clock.set(later(DAY));
    journal.resolve(start.id, 'paid');
    expect(journal.read()[0]).toMatchObject({
      state: 'unknown',
      resolution: 'paid',
      resolvedAt: later(DAY).toISOString(),
    });
    journal.resolve(start.id, 'not-paid');
    expect(journal.read()[0]).toMatchObject({ state: 'unknown', resolution: 'not-paid' });
    const lines = readFileSync(join(dir, JOURNAL_FILE), 'utf8').split('\n').filter(Boolean);
    // A resolution line has no `state`: a pix of an earlier version skips it and keeps the entry unresolved.
    expect(JSON.parse(lines[2]!)).toEqual({
      id: start.id,
      at: later(DAY).toISOString(),
      resolution: 'paid',
      prev: expect.any(String),
    });
  });

  it('skips a torn line (a writer killed mid-write) and starts the next line fresh', () => {
    const dir = tempConfigDir();
    const journal = openJournal(dir, { ...SYSTEM, clock: clockAt(T0) });
    const first = journal.begin(keyStart());
    appendFileSync(join(dir, JOURNAL_FILE), '{"id":"torn","at":"2026-03-10T12:00:00Z","state":"sen');
    expect(journal.read().map((p) => p.id)).toEqual([first.id]);
    const second = journal.begin(keyStart('bob@example.com'));
    journal.finish(second.id, { state: 'unknown' });
    expect(journal.read().map((p) => [p.id, p.state])).toEqual([
      [first.id, 'sending'],
      [second.id, 'unknown'],
    ]);
  });

  it('reads incrementally: lines another writer appends appear read after read; a replaced or cut file is read anew', () => {
    const dir = tempConfigDir();
    const path = join(dir, JOURNAL_FILE);
    const reader = openJournal(dir, { ...SYSTEM, clock: clockAt(T0) });
    const writer = openJournal(dir, { ...SYSTEM, clock: clockAt(T0) }); // another pix process, as far as files go
    const first = writer.begin(keyStart());
    expect(reader.read().map((entry) => [entry.id, entry.state])).toEqual([[first.id, 'sending']]);
    writer.finish(first.id, { state: 'done', transferId: 't-1' });
    const second = writer.begin(keyStart('bob@example.com'));
    expect(reader.read().map((entry) => [entry.id, entry.state])).toEqual([
      [first.id, 'done'],
      [second.id, 'sending'],
    ]);
    // Every read gives what a full parse of the file gives.
    expect(reader.read()).toEqual(parseJournal(readFileSync(path, 'utf8')));
    // Replaced by another file (restored from a backup): read from its start.
    const replacement = `${JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!), id: 'other' })}\n`;
    writeFileSync(`${path}.new`, replacement);
    renameSync(`${path}.new`, path);
    expect(reader.read().map((entry) => entry.id)).toEqual(['other']);
    // Cut short in place: read from its start too.
    truncateSync(path, 0);
    expect(reader.read()).toEqual([]);
    const third = writer.begin(keyStart('carla@example.com'));
    expect(reader.read().map((entry) => entry.id)).toEqual([third.id]);
  });

  it('reads a missing journal as empty and ignores lines that are not entries', () => {
    expect(openJournal(tempConfigDir(), { ...SYSTEM, clock: clockAt(T0) }).read()).toEqual([]);
    expect(
      parseJournal(
        'garbage\n[1,2]\n{"id":"x","state":"done"}\nnull\n{"id":"y","at":"x","state":"sending","kind":"other","amountCentavos":1}\n',
      ),
    ).toEqual([]);
  });

  it('reads the first format (kind qr/key at the top level) as payments, so no history is lost', () => {
    const old = [
      {
        id: 'a',
        at: T0.toISOString(),
        profile: 'prod',
        host: 'h',
        kind: 'key',
        key: 'ana@example.com',
        amountCentavos: 1050,
        endToEndId: 'E1',
        receiver: 'Ana',
        state: 'sending',
      },
      { id: 'a', at: T0.toISOString(), state: 'done', transferId: 't1', status: 'PENDING' },
      {
        id: 'b',
        at: T0.toISOString(),
        profile: 'prod',
        host: 'h',
        kind: 'qr',
        emvHash: 'h1',
        dynamic: true,
        amountCentavos: 99,
        endToEndId: 'E2',
        state: 'sending',
      },
      { id: 'b', at: T0.toISOString(), state: 'unknown', reason: 'unknown_outcome' },
    ];
    const entries = parseJournal(old.map((line) => JSON.stringify(line)).join('\n'));
    expect(entries).toEqual([
      expect.objectContaining({
        id: 'a',
        kind: 'payment',
        state: 'done',
        transferId: 't1',
        payment: { method: 'key', key: 'ana@example.com' },
      }),
      expect.objectContaining({
        id: 'b',
        kind: 'payment',
        state: 'unknown',
        payment: { method: 'qr', emvHash: 'h1', dynamic: true },
      }),
    ]);
    // And the rules apply to them: the old unknown QR payment blocks the same code, on the API of their
    // host (the first format has no base URL), and on no other.
    const query: DuplicateQuery = { method: 'qr', emvHash: 'h1', dynamic: true, amountCentavos: 99 };
    expect(
      findBlocking(entries, query, later(DAY), { ...ACCOUNT, legacy: [{ baseUrl: 'https://h', host: 'h' }] }),
    ).toMatchObject({
      why: 'unresolved',
    });
    expect(findBlocking(entries, query, later(DAY), ACCOUNT)).toBeUndefined();
  });

  it('journals a charge: kind charge, its type and key id, then its id and status', () => {
    const dir = tempConfigDir();
    const journal = openJournal(dir, { ...SYSTEM, clock: clockAt(T0) });
    const start = journal.begin({
      kind: 'charge',
      account: 'acct_p',
      profile: 'p',
      host: 'h',
      amountCentavos: 500,
      charge: { type: 'duedate', keyId: 'k1' },
    });
    journal.finish(start.id, { state: 'done', chargeId: 'c-1', status: 'PENDING' });
    expect(journal.read()).toEqual([
      expect.objectContaining({
        kind: 'charge',
        charge: { type: 'duedate', keyId: 'k1' },
        chargeId: 'c-1',
        state: 'done',
      }),
    ]);
  });

  // A batch row's description was validated and then dropped.
  it("keeps a payment's description on its start line, and reads it back", () => {
    const dir = tempConfigDir();
    const journal = openJournal(dir, { ...SYSTEM, clock: clockAt(T0) });
    const started = journal.begin({
      ...keyStart(),
      description: 'Aluguel, março "2026"',
      payment: { method: 'key', key: 'ana@example.com', batchRow: { batch: 'b1', row: 'r1' } },
    });
    journal.finish(started.id, { state: 'done', transferId: 't-1' });
    const [line] = readFileSync(join(dir, JOURNAL_FILE), 'utf8').split('\n');
    expect(JSON.parse(line!)).toMatchObject({ state: 'sending', description: 'Aluguel, março "2026"' });
    expect(journal.read()).toEqual([
      expect.objectContaining({ id: started.id, state: 'done', description: 'Aluguel, março "2026"' }),
    ]);
    // Without one, the line has no description field at all.
    const plain = journal.begin(keyStart('bob@example.com'));
    expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8')).not.toMatch(
      new RegExp(`"id":"${plain.id}"[^\n]*description`),
    );
  });

  it('concurrent writers in separate processes never produce a line that fails to parse', async () => {
    const dir = tempConfigDir();
    const writer = nodeScript(`
      import { openJournal } from './src/journal/store.ts';
      import { SYSTEM } from './src/system.ts';
      const j = openJournal(process.argv[2], { ...SYSTEM, clock: { now: () => new Date() } });
      for (let i = 0; i < 150; i++) {
        const s = j.begin({ kind: 'payment', account: 'a', profile: 'p', host: 'h', amountCentavos: i + 1, endToEndId: 'E' + i, payment: { method: 'key', key: 'k' + process.pid + '-' + i + 'x'.repeat(300) } });
        j.finish(s.id, { state: 'done', transferId: 't' + i });
      }`);
    const writers = Array.from(
      { length: 4 },
      () =>
        new Promise<number | null>((resolve, reject) => {
          const child = spawn(process.execPath, [writer, dir], { stdio: 'inherit' });
          child.on('error', reject);
          child.on('close', resolve);
        }),
    );
    expect(await Promise.all(writers)).toEqual([0, 0, 0, 0]);
    // A writer may see another's line half written (the file's size grows page by page) and start its
    // own on a fresh line after a torn mark: harmless, and never a line that fails to parse.
    const lines = readFileSync(join(dir, JOURNAL_FILE), 'utf8')
      .split('\n')
      .filter((line) => line !== '' && line !== TORN_MARK);
    expect(lines).toHaveLength(4 * 150 * 2);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    const journal = openJournal(dir, { ...SYSTEM, clock: clockAt(T0) });
    // Twelve hundred lines appended under the lock by four processes: one chain, its end in the checkpoint.
    expect(journal.verify()).toMatchObject({
      damage: [],
      torn: [],
      chain: { start: 1, lag: 0, checkpoint: { lines: 1200 } },
    });
    const entries = journal.read();
    expect(entries).toHaveLength(600);
    expect(entries.every((p) => p.state === 'done')).toBe(true);
  }, 60_000);
});

describe('the journal rules', () => {
  it('a done payment: the same key and amount within 10 minutes is blocked; after, another amount or key is not', () => {
    const earlier = [entry()];
    expect(block(earlier, keyQuery, later(9 * MINUTE))).toMatchObject({
      why: 'paid',
      entry: { id: 'p1' },
    });
    expect(block(earlier, keyQuery, later(DUPLICATE_WINDOW_MS))).toBeUndefined();
    expect(block(earlier, { ...keyQuery, amountCentavos: 1051 }, T0)).toBeUndefined();
    expect(block(earlier, { ...keyQuery, key: 'bob@example.com' }, T0)).toBeUndefined();
  });

  it('a receiver is its document at any institution; without one, its name as banks write it at the same institution', () => {
    const cpf = '52998224725';
    const paidTo = (payment: JournalEntry['payment'], receiver = 'Ana Souza') => entry({ payment, receiver });
    const atItau = paidTo({ method: 'key', key: 'ana@itau.example', document: cpf, participant: '60701190' });
    // One CPF with keys at two banks: the same person.
    const atNubank = {
      method: 'key' as const,
      key: 'ana@nubank.example',
      document: cpf,
      participant: '18236120',
    };
    expect(block([atItau], { ...atNubank, amountCentavos: 1050 }, later(MINUTE))?.entry.id).toBe('p1');
    // As an EMV consultation masks it, too; another CPF is another person, whatever the name.
    expect(
      block([atItau], { ...atNubank, document: '***.982.247-**', amountCentavos: 1050 }, later(MINUTE)),
    ).toBeDefined();
    expect(
      block([atItau], { ...atNubank, document: '11144477735', amountCentavos: 1050 }, later(MINUTE)),
    ).toBeUndefined();
    // No document: the name, folded, at the same institution; at another, someone else of that name.
    const noDocument = paidTo(
      { method: 'key', key: 'joao@itau.example', participant: '60701190' },
      'João Pedro Oliveira',
    );
    const asked = {
      method: 'key' as const,
      key: 'jp@itau.example',
      participant: '60701190',
      amountCentavos: 1050,
    };
    expect(block([noDocument], { ...asked, receiver: 'JOAO PEDRO OLIVEIRA' }, later(MINUTE))).toBeDefined();
    expect(block([noDocument], { ...asked, receiver: 'Joao Paulo Oliveira' }, later(MINUTE))).toBeUndefined();
    expect(
      block(
        [noDocument],
        { ...asked, participant: '18236120', receiver: 'JOAO PEDRO OLIVEIRA' },
        later(MINUTE),
      ),
    ).toBeUndefined();
  });

  it('a sending or unknown payment blocks with NO time limit; failed never blocks', () => {
    for (const state of ['sending', 'unknown'] as const) {
      for (const when of [later(MINUTE), later(DAY), later(365 * DAY)]) {
        expect(block([entry({ state })], keyQuery, when), `${state} at ${when.toISOString()}`).toMatchObject({
          why: 'unresolved',
        });
      }
    }
    expect(block([entry({ state: 'failed' })], keyQuery, T0)).toBeUndefined();
  });

  it("the operator's resolution wins: not-paid unblocks at once, paid counts as done (10-minute window)", () => {
    const notPaid = entry({ state: 'unknown', resolution: 'not-paid' });
    expect(effectiveState(notPaid)).toBe('failed');
    expect(isUnresolved(notPaid)).toBe(false);
    expect(block([notPaid], keyQuery, later(MINUTE))).toBeUndefined();
    const paid = entry({ state: 'sending', resolution: 'paid' });
    expect(effectiveState(paid)).toBe('done');
    expect(block([paid], keyQuery, later(MINUTE))).toMatchObject({ why: 'paid' });
    expect(block([paid], keyQuery, later(DAY))).toBeUndefined();
  });

  it('a dynamic code paid (or unresolved) once is blocked forever, whatever the amount; a static code only within the window', () => {
    const qr = (over: Partial<JournalEntry> = {}) =>
      entry({ payment: { method: 'qr', emvHash: 'h1', dynamic: true }, ...over });
    const dynamicQuery: DuplicateQuery = { method: 'qr', emvHash: 'h1', dynamic: true, amountCentavos: 999 };
    expect(block([qr()], dynamicQuery, later(30 * DAY))?.entry.id).toBe('p1');
    expect(block([qr()], { ...dynamicQuery, emvHash: 'h2' }, later(30 * DAY))).toBeUndefined();
    const staticEntry = qr({ payment: { method: 'qr', emvHash: 'h1', dynamic: false } });
    const staticQuery: DuplicateQuery = { method: 'qr', emvHash: 'h1', dynamic: false, amountCentavos: 1050 };
    expect(block([staticEntry], staticQuery, later(MINUTE))?.entry.id).toBe('p1');
    expect(block([staticEntry], staticQuery, later(30 * DAY))).toBeUndefined();
    expect(block([staticEntry], { ...staticQuery, amountCentavos: 1 }, later(MINUTE))).toBeUndefined();
    // Unresolved, the static code with that amount stays blocked.
    expect(block([{ ...staticEntry, state: 'unknown' }], staticQuery, later(30 * DAY))).toMatchObject({
      why: 'unresolved',
    });
    // A key payment never matches a QR query and vice versa.
    expect(block([entry()], { ...dynamicQuery, amountCentavos: 1050 }, T0)).toBeUndefined();
  });

  it('a batch row once paid (or unresolved) is never paid again, however long after; other rows are free', () => {
    const row = (state: JournalEntry['state']) =>
      entry({
        state,
        payment: { method: 'key', key: 'ana@example.com', batchRow: { batch: 'b1', row: 'r7' } },
      });
    // The index hands rowBlocker the payments of one row id, whatever their amount or age.
    expect(rowBlocker([row('done')], ACCOUNT)).toMatchObject({ why: 'paid' });
    expect(rowBlocker([row('unknown')], ACCOUNT)).toMatchObject({ why: 'unresolved' });
    expect(rowBlocker([row('failed')], ACCOUNT)).toBeUndefined();
    expect(rowBlocker([row('unknown'), row('done')], ACCOUNT)).toMatchObject({ why: 'unresolved' });
  });

  it('charges never block a payment; the latest unresolved payment is named before a paid one', () => {
    const charge = entry({
      kind: 'charge',
      payment: undefined,
      charge: { type: 'immediate' },
      state: 'unknown',
    });
    expect(block([charge], keyQuery, T0)).toBeUndefined();
    const found = block(
      [
        entry({ id: 'old-unknown', state: 'unknown' }),
        entry({ id: 'new-done' }),
        entry({ id: 'failed', state: 'failed' }),
      ],
      keyQuery,
      later(MINUTE),
    );
    expect(found).toMatchObject({ why: 'unresolved', entry: { id: 'old-unknown' } });
  });

  it('only sending and unknown entries are the operator to resolve', () => {
    expect(
      ['sending', 'unknown', 'done', 'failed'].map((state) =>
        isResolvable(entry({ state: state as JournalEntry['state'] })),
      ),
    ).toEqual([true, true, false, false]);
  });

  it('finds an entry by its id or a unique prefix (any case); an ambiguous prefix names the candidates', () => {
    const entries = [
      entry({ id: 'abcd1111-0000' }),
      entry({ id: 'abcd2222-0000' }),
      entry({ id: 'ef001111-0000' }),
    ];
    expect(findEntry(entries, 'ef00').found?.id).toBe('ef001111-0000');
    expect(findEntry(entries, 'ABCD2').found?.id).toBe('abcd2222-0000');
    expect(findEntry(entries, 'abcd1111-0000').found?.id).toBe('abcd1111-0000');
    expect(findEntry(entries, 'abcd')).toMatchObject({
      found: undefined,
      matches: [{ id: 'abcd1111-0000' }, { id: 'abcd2222-0000' }],
    });
    expect(findEntry(entries, 'zz')).toEqual({ found: undefined, matches: [] });
    expect(findEntry(entries, '')).toEqual({ found: undefined, matches: [] });
    expect(shortId('abcd1111-0000')).toBe('abcd1111');
  });

  it('a journal opened for some entries holds only those, still reads every line for damage, and keeps their order', () => {
    const dir = tempConfigDir();
    const writer = openJournal(dir, { ...SYSTEM, clock: clockAt(T0) });
    const ana = writer.begin(keyStart());
    const bob = writer.begin(keyStart('bob@example.com'));
    writer.finish(bob.id, { state: 'done' });
    const ana2 = writer.begin(keyStart());
    writer.finish(ana.id, { state: 'unknown' });
    const only = openJournal(
      dir,
      { ...SYSTEM, clock: clockAt(T0) },
      (entry) => entry.payment?.key === 'ana@example.com',
    );
    expect(only.read().map((entry) => [entry.id, entry.state, entry.seq])).toEqual([
      [ana.id, 'unknown', 0],
      [ana2.id, 'sending', 2],
    ]);
    // Bob's outcome line belongs to an entry it passed over: not damage. A line that is damaged is found.
    expect(only.verify()).toMatchObject({ damage: [], torn: [] });
    appendFileSync(join(dir, JOURNAL_FILE), '{"id":"nobody","at":"x","state":"done"}\n');
    expect(only.verify().damage).toEqual([
      { line: 6, reason: 'an outcome for entry nobody, whose start line is missing or damaged' },
    ]);
    expect(only.findBlocking(keyQuery, ACCOUNT, { before: ana2.id })?.entry.id).toBe(ana.id);
  });

  it('with `before`, only entries started before ours count (two processes racing on one payment)', () => {
    const dir = tempConfigDir();
    const clock = clockAt(T0);
    const journal = openJournal(dir, { ...SYSTEM, clock: clock });
    const first = journal.begin(keyStart());
    const second = journal.begin(keyStart());
    expect(journal.findBlocking(keyQuery, ACCOUNT, { before: first.id })).toBeUndefined();
    expect(journal.findBlocking(keyQuery, ACCOUNT, { before: second.id })?.entry.id).toBe(first.id);
    // Both still `sending`: unresolved, however much later.
    clock.set(later(DAY));
    expect(journal.findBlocking(keyQuery, ACCOUNT)).toMatchObject({ why: 'unresolved' });
    journal.finish(first.id, { state: 'done' });
    journal.finish(second.id, { state: 'failed', reason: 'duplicate' });
    expect(journal.findBlocking(keyQuery, ACCOUNT)).toBeUndefined();
  });
});
