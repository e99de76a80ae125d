import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Consultation } from '../../src/sandbox/model.js';
import { GeneratedEntries, initialState } from '../../src/sandbox/seed.js';
import { readSandboxState, StateError, StateStore } from '../../src/sandbox/store.js';
import { SYSTEM } from '../../src/system.js';
import { nodeScript } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { until } from '../helpers/wait.js';

let dir: string;
let file: string;
const clock = () => new Date('2025-03-10T15:00:00.000Z');

beforeEach(() => {
  dir = tempDir('pix-state-');
  file = join(dir, 'sandbox-state.json');
});

/** A consultation record, as consultDict makes one. */
const consultation = (id: string): Consultation => ({
  endToEndId: id,
  flow: 'dict' as const,
  createdAt: '2025-03-10T15:00:00.000Z',
  canModifyFinalAmount: true,
  receiver: {
    name: 'x',
    participant: '00000000',
    documentNumber: '39053344705',
    type: 'NATURAL_PERSON' as const,
  },
  own: false,
});

describe('StateStore', () => {
  it('creates the account on first read and persists it as JSON', async () => {
    const state = await new StateStore(file, { host: SYSTEM, clock }).read();
    expect(state.keys).toHaveLength(4);
    expect(readSandboxState(file)!.createdAt).toBe('2025-03-10T15:00:00.000Z');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('loses nothing when many stores (as separate processes would) write the same file at once', async () => {
    const stores = Array.from({ length: 8 }, () => new StateStore(file, { host: SYSTEM, clock }));
    await Promise.all(
      stores.flatMap((store, s) =>
        Array.from({ length: 10 }, (_, i) =>
          store.update((state) => {
            state.nextTransactionId += 1;
            state.consultations[`c-${s}-${i}`] = consultation(`c-${s}-${i}`);
          }),
        ),
      ),
    );
    const final = readSandboxState(file)!;
    expect(Object.keys(final.consultations)).toHaveLength(80);
    expect(final.nextTransactionId).toBe(100_001 + 80);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp') || name.endsWith('.lock'))).toEqual([]);
  });

  it('loses nothing across real processes', async () => {
    const script = `
      import { StateStore } from ${JSON.stringify(new URL('../../src/sandbox/store.ts', import.meta.url).pathname)};
      import { SYSTEM } from ${JSON.stringify(new URL('../../src/system.ts', import.meta.url).pathname)};
      const store = new StateStore(process.argv[2], { host: SYSTEM });
      for (let i = 0; i < 10; i++) await store.update((state) => { state.nextTransactionId += 1; });
    `;
    const scriptFile = nodeScript(script);
    await new StateStore(file, { host: SYSTEM }).read();
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<number>((resolve) => {
          const child = spawn(process.execPath, [scriptFile, file], {
            stdio: 'ignore',
            cwd: process.cwd(),
          });
          child.on('exit', (code) => resolve(code ?? -1));
        }),
    );
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0]);
    expect(readSandboxState(file)!.nextTransactionId).toBe(100_001 + 40);
  });

  it('re-reads the file only when it changed', async () => {
    const a = new StateStore(file, { host: SYSTEM, clock });
    const b = new StateStore(file, { host: SYSTEM, clock });
    const first = await a.read();
    expect(await a.read()).toBe(first); // same object: not parsed again
    await b.update((state) => {
      state.clockOffsetMs = 86_400_000;
    });
    const second = await a.read();
    expect(second).not.toBe(first);
    expect(a.now(second).toISOString()).toBe('2025-03-11T15:00:00.000Z');
  });

  it('takes over a lock left by a dead process', async () => {
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, at: '2025-03-10T15:00:00.000Z' }));
    const store = new StateStore(file, { host: SYSTEM, clock: () => new Date() });
    await store.update((state) => {
      state.nextTransactionId = 7;
    });
    expect(readSandboxState(file)!.nextTransactionId).toBe(7);
  });

  it('writes nothing when the mutation throws', async () => {
    const store = new StateStore(file, { host: SYSTEM, clock });
    await store.read();
    const before = readFileSync(file, 'utf8');
    await expect(
      store.update((state) => {
        state.nextTransactionId = 1;
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect((await store.read()).nextTransactionId).toBe(100_001);
  });

  it('reports a corrupted file instead of overwriting it', async () => {
    writeFileSync(file, '{"version":1,');
    await expect(new StateStore(file, { host: SYSTEM }).read()).rejects.toThrow(StateError);
  });

  it('leaves a file that parses when a writer is killed mid-write', async () => {
    const script = `
      import { StateStore } from ${JSON.stringify(new URL('../../src/sandbox/store.ts', import.meta.url).pathname)};
      import { SYSTEM } from ${JSON.stringify(new URL('../../src/system.ts', import.meta.url).pathname)};
      const store = new StateStore(process.argv[2], { host: SYSTEM });
      process.stdout.write('ready\\n');
      for (let i = 0; ; i++) await store.update((state) => {
        state.nextTransactionId += 1;
        // A large state, so that writes take long enough to be interrupted.
        state.consultations['pad' + (i % 50)] = { endToEndId: 'x'.repeat(20000) };
      });
    `;
    const scriptFile = nodeScript(script);
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, [scriptFile, file], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      // Killed while it writes, a little further into its run each round: once it has made 2, 4, 6 updates.
      const seen = readSandboxState(file)?.nextTransactionId ?? 0;
      const made = () => (readSandboxState(file)?.nextTransactionId ?? 0) - seen;
      await until(() => made() >= 2 * (round + 1), 'the writer updating the state');
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('exit', resolve));
      const parsed = readSandboxState(file)!;
      expect(parsed.version).toBe(1);
    }
    // The lock of the killed process is stale and taken over.
    const store = new StateStore(file, { host: SYSTEM });
    const before = (await store.read()).nextTransactionId;
    await store.update((state) => {
      state.nextTransactionId += 1;
    });
    expect(readSandboxState(file)!.nextTransactionId).toBe(before + 1);
  });
});

describe('the state file as a log', () => {
  const lines = () => readFileSync(file, 'utf8').split('\n');
  /** A store whose file holds the snapshot and one patch (consultation c0). */
  const snapshotAndOnePatch = async () => {
    const store = new StateStore(file, { host: SYSTEM, clock });
    await store.read();
    await store.update((state) => {
      state.consultations.c0 = consultation('c0');
    });
    return store;
  };

  it('appends one small patch line per update after the snapshot line', async () => {
    const store = new StateStore(file, { host: SYSTEM, clock });
    await store.read();
    const snapshot = readFileSync(file, 'utf8');
    expect(snapshot.endsWith('\n')).toBe(true);
    for (let i = 0; i < 3; i++) {
      await store.update((state) => {
        state.consultations[`c${i}`] = consultation(`c${i}`);
      });
    }
    const written = lines();
    expect(written).toHaveLength(5); // snapshot, 3 patches, and the empty string after the last newline
    expect(`${written[0]}\n`).toBe(snapshot);
    const patch = JSON.parse(written[3]!);
    expect(Object.keys(patch.consultations)).toEqual(['c2']);
    expect(patch).not.toHaveProperty('charges');
    expect(patch.top.nextTransactionId).toBe(100_001);
    expect(Object.keys(readSandboxState(file)!.consultations)).toEqual(['c0', 'c1', 'c2']);
  });

  it('ignores a torn last line, and the next writer cuts it off before appending', async () => {
    const store = await snapshotAndOnePatch();
    const whole = readFileSync(file, 'utf8');
    appendFileSync(file, '{"log":"x","seq":2,"top":{"versi'); // a writer killed mid-append
    expect(readSandboxState(file)).toEqual(await store.read());
    const other = new StateStore(file, { host: SYSTEM, clock });
    expect(Object.keys((await other.read()).consultations)).toEqual(['c0']);
    await other.update((state) => {
      state.consultations.c1 = consultation('c1');
    });
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(whole)).toBe(true);
    expect(after).not.toContain('"log":"x"');
    expect(
      after
        .split('\n')
        .slice(0, -1)
        .map((line) => JSON.parse(line)),
    ).toHaveLength(3);
    expect(Object.keys((await store.read()).consultations)).toEqual(['c0', 'c1']);
  });

  it('folds the patches into a new snapshot when they outgrow it, and reads back the same state', async () => {
    const store = new StateStore(file, { host: SYSTEM, clock, compactAtBytes: 0 });
    const reader = new StateStore(file, { host: SYSTEM, clock });
    await reader.read();
    let longest = 0;
    for (let i = 0; i < 60; i++) {
      await store.update((state) => {
        state.nextTransactionId += 1;
        state.consultations[`c${i}`] = consultation(`c${i}`);
      });
      longest = Math.max(longest, lines().length - 1);
      const replayed = readSandboxState(file);
      expect(replayed).toEqual(await store.read());
      expect(await reader.read()).toEqual(replayed);
    }
    const final = readSandboxState(file)!;
    expect(Object.keys(final.consultations)).toHaveLength(60);
    expect(final.nextTransactionId).toBe(100_001 + 60);
    // Folded along the way: never 60 patches after one snapshot.
    expect(longest).toBeLessThan(20);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp') || name.endsWith('.lock'))).toEqual([]);
  });

  it("catches up a store's copy from the appended lines only, and reads a replaced file whole", async () => {
    const a = new StateStore(file, { host: SYSTEM, clock });
    const b = new StateStore(file, { host: SYSTEM, clock });
    await b.update((state) => {
      state.consultations.c = consultation('c');
    });
    const first = await a.read();
    const record = first.consultations.c;
    for (let i = 0; i < 3; i++) {
      await b.update((state) => {
        state.consultations[`c${i}`] = consultation(`c${i}`);
        state.clockOffsetMs += 1000;
      });
    }
    const second = await a.read();
    expect(second).not.toBe(first);
    expect(second.clockOffsetMs).toBe(3000);
    expect(Object.keys(second.consultations)).toEqual(['c', 'c0', 'c1', 'c2']);
    // The state a held before is left as it was.
    expect(first.clockOffsetMs).toBe(0);
    expect(Object.keys(first.consultations)).toEqual(['c']);
    // Only the patches were parsed: the record from the snapshot is the object a read then.
    expect(second.consultations.c).toBe(record);
    await b.reset();
    const third = await a.read();
    expect(third.consultations).toEqual({});
    expect(third.consultations).toEqual({});
    expect(third.clockOffsetMs).toBe(0);
  });

  it('sees the updates of other processes in a copy it already held', async () => {
    const script = `
      import { StateStore } from ${JSON.stringify(new URL('../../src/sandbox/store.ts', import.meta.url).pathname)};
      import { SYSTEM } from ${JSON.stringify(new URL('../../src/system.ts', import.meta.url).pathname)};
      const store = new StateStore(process.argv[2], { host: SYSTEM });
      for (let i = 0; i < 5; i++) await store.update((state) => {
        state.nextTransactionId += 1;
        state.consultations[process.argv[3] + i] = { endToEndId: process.argv[3] + i };
      });
    `;
    const scriptFile = nodeScript(script);
    const store = new StateStore(file, { host: SYSTEM });
    const before = await store.read();
    const runs = ['p', 'q'].map(
      (prefix) =>
        new Promise<number>((resolve) => {
          const child = spawn(process.execPath, [scriptFile, file, prefix], {
            stdio: 'ignore',
          });
          child.on('exit', (code) => resolve(code ?? -1));
        }),
    );
    expect(await Promise.all(runs)).toEqual([0, 0]);
    const after = await store.read();
    expect(after.nextTransactionId).toBe(before.nextTransactionId + 10);
    expect(Object.keys(after.consultations).sort()).toEqual([
      'p0',
      'p1',
      'p2',
      'p3',
      'p4',
      'q0',
      'q1',
      'q2',
      'q3',
      'q4',
    ]);
    expect(after).toEqual(readSandboxState(file));
  });

  it('reports a corrupt patch line (not a torn last one) with the reset hint', async () => {
    const store = await snapshotAndOnePatch();
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, `${good}{"log":"x","se\n`);
    await expect(new StateStore(file, { host: SYSTEM }).read()).rejects.toThrow(
      /^line 3 of the sandbox state file .* is not valid JSON; run `pix sandbox reset`$/,
    );
    expect(() => readSandboxState(file)).toThrow(StateError);
    // A store holding a copy meets it too, and does not write over it.
    await expect(store.update((state) => void state.clockOffsetMs++)).rejects.toThrow(StateError);
    writeFileSync(file, `${good}{"log":"x","seq":2,"top":{"version":2}}\n`);
    await expect(new StateStore(file, { host: SYSTEM }).read()).rejects.toThrow(
      /^line 3 of the sandbox state file .* is not a sandbox state change; run `pix sandbox reset`$/,
    );
    expect(readFileSync(file, 'utf8')).toContain('"version":2');
  });

  it('reads a state file written before the log (one JSON document) and moves it to the log on the next write', async () => {
    writeFileSync(file, JSON.stringify({ ...initialState(clock()), nextTransactionId: 42 }));
    const store = new StateStore(file, { host: SYSTEM, clock });
    expect((await store.read()).nextTransactionId).toBe(42);
    await store.update((state) => {
      state.nextTransactionId += 1;
    });
    expect(lines()).toHaveLength(2); // one snapshot line
    expect(readSandboxState(file)!.nextTransactionId).toBe(43);
    // Pretty-printed (by hand, say): still one document.
    writeFileSync(file, JSON.stringify({ ...initialState(clock()), nextTransactionId: 7 }, null, 2));
    expect((await store.read()).nextTransactionId).toBe(7);
  });
});

describe('GeneratedEntries', () => {
  it('is deterministic, newest first, within the 60 days before the anchor', () => {
    const spec = { count: 500, seed: 7, anchor: '2025-03-10T15:00:00.000Z' };
    const a = new GeneratedEntries(spec);
    const b = new GeneratedEntries(spec);
    expect(a.at(0)).toEqual(b.at(0));
    expect(a.at(499)).toEqual(b.at(499));
    for (let i = 1; i < a.length; i++) expect(a.times[i]!).toBeLessThanOrEqual(a.times[i - 1]!);
    const anchor = Date.parse(spec.anchor);
    expect(a.times[0]!).toBeLessThan(anchor);
    expect(a.times[499]!).toBeGreaterThanOrEqual(anchor - 60 * 86_400_000);
    const ids = new Set(Array.from({ length: 500 }, (_, i) => a.at(i).id));
    expect(ids.size).toBe(500);
  });
});
