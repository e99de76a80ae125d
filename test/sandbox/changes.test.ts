import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadBusinessDayTest } from '../../src/domain/duedate.js';
import { applyPatch, watch } from '../../src/sandbox/changes.js';
import {
  createDueDate,
  createImmediate,
  validateDueDate,
  validateImmediate,
} from '../../src/sandbox/charges.js';
import { consultDict, consultEmv } from '../../src/sandbox/consultations.js';
import { insertEntry, type SandboxState } from '../../src/sandbox/model.js';
import { initialState, prng, SEEDED_KEYS } from '../../src/sandbox/seed.js';
import { readSandboxState, StateStore } from '../../src/sandbox/store.js';
import { payByThirdParty, transfer } from '../../src/sandbox/transfers.js';
import { SYSTEM } from '../../src/system.js';
import { tempDir } from '../helpers/temp.js';

const START = Date.parse('2025-03-10T15:00:00.000Z'); // a Monday

let dir: string;

beforeEach(() => {
  dir = tempDir('pix-changes-');
});

const entry = (id: string, confirmedAt: string) =>
  ({ id, type: 'INCOME', amount: 100, fee: 0, status: 'CONFIRMED', method: 'PIX', confirmedAt }) as const;

function charged(): SandboxState {
  const state = initialState(new Date(START));
  createImmediate(
    state,
    new Date(START),
    validateImmediate({ pixKeyId: state.keys[0]!.id, amount: 10, description: 'a' }),
  );
  insertEntry(state.activity, entry('e1', '2025-03-10T12:00:00.000Z'));
  insertEntry(state.activity, entry('e2', '2025-03-10T10:00:00.000Z'));
  return state;
}

/** What replaying `patch` on a copy of `before` gives. */
function replayed(before: SandboxState, mutate: (state: SandboxState) => void): SandboxState | undefined {
  const copy = JSON.parse(JSON.stringify(before)) as SandboxState;
  const watched = watch(before);
  mutate(watched.state);
  const patch = watched.patch();
  if (patch === undefined) return undefined;
  expect(applyPatch(copy, JSON.parse(JSON.stringify(patch)))).toBe(true);
  return copy;
}

describe('watch', () => {
  it('marks nothing for reads, however they reach the records', () => {
    const state = charged();
    const watched = watch(state);
    const view = watched.state;
    expect(Object.values(view.charges).find((charge) => charge.amount === 1000)).toBeDefined();
    expect({ ...view.charges }).toEqual(state.charges);
    expect(JSON.parse(JSON.stringify(view))).toEqual(JSON.parse(JSON.stringify(state)));
    expect(view.activity.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(view.keys.find((key) => key.keyType === 'CPF')?.key).toBe(SEEDED_KEYS.cpf.key);
    expect(watched.touched()).toBe(false);
    expect(watched.patch()).toEqual({ top: expect.any(Object) });
    expect(watched.patch()).not.toHaveProperty('charges');
  });

  it('carries a record written at any depth, and only that one', () => {
    const state = charged();
    const [id] = Object.keys(state.charges);
    const watched = watch(state);
    const charge = watched.state.charges[id!]!;
    expect(watched.state.charges[id!]).toBe(charge); // one view per record
    charge.additionalInformation = [{ name: 'n', value: 'v' }];
    charge.additionalInformation.push({ name: 'm', value: 'w' });
    const patch = watched.patch()!;
    expect(Object.keys(patch.charges!)).toEqual([id]);
    expect(patch.charges![id!]).toBe(state.charges[id!]); // the record itself, never a view
    expect(state.charges[id!]!.additionalInformation).toHaveLength(2);

    const deeper = watch(state);
    deeper.state.charges[id!]!.additionalInformation![0]!.value = 'changed';
    expect(Object.keys(deeper.patch()!.charges!)).toEqual([id]);
  });

  it('replays new records, deletions, top-level fields and inserted activity exactly', () => {
    const before = charged();
    const mutate = (state: SandboxState) => {
      const [id] = Object.keys(state.charges);
      state.charges[id!]!.status = 'COMPLETED';
      state.transfers.t1 = {
        id: 't1',
        endToEndId: 'E1',
        amount: 1,
        fee: 0,
        createdAt: 'x',
        settlesAt: 'y',
      };
      state.nextTransactionId += 5;
      state.generated = { ...state.generated, count: 9 };
      insertEntry(state.activity, entry('e0', '2025-03-10T13:00:00.000Z'));
      insertEntry(state.activity, entry('e3', '2025-03-10T11:00:00.000Z'));
      insertEntry(state.activity, entry('e4', '2025-03-09T11:00:00.000Z'));
      delete state.charges[id!];
    };
    const copy = JSON.parse(JSON.stringify(before)) as SandboxState;
    const result = replayed(before, mutate);
    mutate(copy);
    expect(result).toEqual(copy);
    expect(result!.activity.map((e) => e.id)).toEqual(['e0', 'e1', 'e3', 'e2', 'e4']);
    expect(result!.charges).toEqual({});
  });

  it('asks for a snapshot when a patch cannot say the change', () => {
    const cases: Array<(state: SandboxState) => void> = [
      (state) => {
        state.activity[0]!.amount = 1; // an old entry changed
      },
      (state) => {
        state.activity.splice(1, 1); // an old entry removed
      },
      (state) => {
        state.activity.reverse(); // old entries moved
      },
      (state) => {
        state.activity = []; // the list replaced
      },
      (state) => {
        state.charges = {}; // a collection replaced
      },
      (state) => {
        delete (state as Partial<SandboxState>).account; // a top-level field deleted
      },
    ];
    for (const mutate of cases) expect(replayed(charged(), mutate), String(mutate)).toBeUndefined();
  });

  it('lets a new activity entry be filled in after it was inserted', () => {
    const before = charged();
    const mutate = (state: SandboxState) => {
      insertEntry(state.activity, entry('e9', '2025-03-10T14:00:00.000Z'));
      state.activity[0]!.fee = 7;
    };
    const copy = JSON.parse(JSON.stringify(before)) as SandboxState;
    mutate(copy);
    expect(replayed(before, mutate)).toEqual(copy);
  });
});

describe('the state log replays to the state the mutations made', () => {
  // Random sequences of the sandbox's real mutations, through StateStore.update, compared after every step
  // with the file replayed from scratch and with a second store that catches up incrementally.
  for (const [seed, compactAtBytes] of [
    [1, 1 << 24], // never folded: one snapshot, every patch after it
    [2, 4096], // folded often
    [3, 0], // folded whenever the patches outgrow the snapshot
  ] as const) {
    it(`seed ${seed}, compaction at ${compactAtBytes} bytes`, async () => {
      const random = prng(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      let tick = 0;
      const clock = () => new Date(START + tick * 1000);
      const file = join(dir, 'state.json');
      const store = new StateStore(file, { host: SYSTEM, clock, compactAtBytes });
      const other = new StateStore(file, { host: SYSTEM, clock, compactAtBytes });
      const isBusinessDay = await loadBusinessDayTest();
      const keyIds = (await store.read()).keys.map((key) => key.id);
      const outsideKeys = ['52998224725', randomUUID(), 'ana@example.com', '+5511987654321'];
      const ops: Array<(state: SandboxState, now: Date) => unknown> = [
        (state, now) =>
          createImmediate(
            state,
            now,
            validateImmediate({
              pixKeyId: pick(keyIds),
              amount: 5 + Math.floor(random() * 500),
              ...(random() < 0.5 ? { description: 'd' } : {}),
              ...(random() < 0.3 ? { additionalInformation: [{ name: 'n', value: 'v' }] } : {}),
            }),
          ),
        (state, now) =>
          createDueDate(
            state,
            now,
            validateDueDate(
              {
                pixKeyId: pick(keyIds),
                amount: 50,
                duedate: '2025-03-20',
                debtor: { name: 'Maria', cpf: '52998224725', city: 'São Paulo' },
              },
              '2025-03-10',
            ),
          ),
        (state, now) => consultDict(state, now, { key: pick([...outsideKeys, SEEDED_KEYS.evp.key]) }),
        (state, now) => {
          const pending = Object.values(state.charges).filter((charge) => charge.status === 'PENDING');
          return consultEmv(state, now, { emv: pick(pending).emvqrcps }, isBusinessDay);
        },
        (state, now) => {
          const unused = Object.values(state.consultations).filter((c) => c.usedBy === undefined);
          const consultation = pick(unused);
          return transfer(state, now, {
            endToEndId: consultation.endToEndId,
            ...(consultation.canModifyFinalAmount ? { amount: 12.34 } : {}),
          });
        },
        (state, now) => {
          const pending = Object.values(state.charges).filter((charge) => charge.status === 'PENDING');
          return payByThirdParty(state, now, pick(pending).id, isBusinessDay);
        },
        (state) => {
          state.clockOffsetMs += 60_000;
        },
        (state, now) => {
          state.generated = {
            ...state.generated,
            count: 10 + Math.floor(random() * 90),
            anchor: now.toISOString(),
          };
        },
      ];
      let applied = 0;
      for (let step = 0; step < 150; step++) {
        tick++;
        try {
          await store.update((state, now) => pick(ops)(state, now));
          applied++;
        } catch {
          // A refusal (nothing pending, an expired charge…): nothing written, the copy stays right.
        }
        const mine = await store.read();
        expect(readSandboxState(file), `step ${step}`).toEqual(mine);
        expect(await other.read(), `step ${step}`).toEqual(mine);
      }
      expect(applied).toBeGreaterThan(100);
      const final = await store.read();
      expect(Object.keys(final.transfers).length).toBeGreaterThan(5);
      expect(Object.values(final.charges).some((charge) => charge.status !== 'PENDING')).toBe(true);
    });
  }
});
