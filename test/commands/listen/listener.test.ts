/**
 * The steps of `pix listen` one at a time, in-process on the embedded sandbox of a temporary config dir:
 * delivering what is due, and a listener restored after it logged events but died before its checkpoint
 * (each fact is made once).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catchUp, poll, restoreListener } from '../../../src/commands/listen/listener.js';
import { type Delivery, deliverDue, type Owed } from '../../../src/commands/shared/deliver.js';
import { eventFiles } from '../../../src/commands/shared/events.js';
import type { LogLine } from '../../../src/domain/event-log.js';
import { entryEvent } from '../../../src/domain/events.js';
import { appendLog, readEventLog } from '../../../src/events/log.js';
import { fileEventStore } from '../../../src/events/stores.js';
import { createContext } from '../../../src/wiring.js';
import { createTestIO } from '../../helpers/io.js';
import { tempDir } from '../../helpers/temp.js';

function depsOf(dir: string, now = new Date('2026-11-25T12:00:00Z')) {
  const test = createTestIO();
  let time = now.getTime();
  const { deps } = createContext({
    argv: [],
    io: test.io,
    env: { PIX_CONFIG_DIR: dir },
    clock: { now: () => new Date(time) },
    random: () => 0.5,
  });
  return { deps, test, advance: (ms: number) => (time += ms) };
}

describe('deliverDue', () => {
  it('delivers in the order made; a failure waits its backoff while later ones go; out of attempts, a dead letter', async () => {
    const { deps, test, advance } = depsOf(tempDir());
    const context = { account: 'acct_x', profile: 'p' };
    const owed = new Map<string, Owed>();
    for (const id of ['e-1', 'e-2']) {
      const event = entryEvent({ id, type: 'INCOME', confirmedAt: '2026-11-25T11:00:00Z' }, context);
      owed.set(event.id, { event, attempts: 0, nextAt: 0 });
    }
    const [first, second] = [...owed.keys()];
    const tried: string[] = [];
    const sink: Delivery = {
      deliver: async (event) => {
        tried.push(event.id);
        return event.id === first ? { ok: false, status: 500 } : { ok: true, status: 200 };
      },
    };
    const written: LogLine[] = [];
    await deliverDue(owed, sink, 2, (lines) => written.push(...lines), deps);
    expect(tried).toEqual([first, second]);
    expect([...owed.keys()]).toEqual([first]);
    expect(owed.get(first!)!.nextAt).toBe(deps.clock.now().getTime() + 1000);
    await deliverDue(owed, sink, 2, (lines) => written.push(...lines), deps); // not due yet
    expect(tried).toHaveLength(2);
    advance(1000);
    await deliverDue(owed, sink, 2, (lines) => written.push(...lines), deps);
    expect(owed.size).toBe(0);
    expect(written.map((line) => `${line.t}${'id' in line && line.id === first ? ':first' : ''}`)).toEqual([
      'attempt:first',
      'attempt',
      'delivered',
      'attempt:first',
      'dead:first',
    ]);
    expect(test.stderr()).toContain(`warning: event ${first} is a dead letter after 2 attempts`);
  });
});

describe('restoreListener and catchUp', () => {
  it('a first run makes nothing of the past without --backfill; with it, the window, once, even when run again after a crash', async () => {
    const quiet = tempDir();
    const { deps } = depsOf(quiet);
    const quietFiles = await eventFiles(deps);
    const { listener, start } = await restoreListener(quietFiles, fileEventStore(quietFiles, deps), deps);
    expect(start).toEqual({ kind: 'first' });
    await catchUp(listener, start, undefined, deps);
    expect(listener.owed.size).toBe(0);
    // The statement's 36 entries are history: none is an event, and none is owed after a poll either.
    await poll(listener);
    expect(listener.owed.size).toBe(0);

    const dir = tempDir();
    const first = depsOf(dir);
    const files = await eventFiles(first.deps);
    const restored = await restoreListener(files, fileEventStore(files, first.deps), first.deps);
    // The marker a first run writes before its first event: a run that dies after logging events but before
    // its last checkpoint does its first run again.
    await catchUp(restored.listener, restored.start, 90 * 86_400_000, first.deps);
    expect(restored.listener.owed.size).toBe(36);
    const accept: Delivery = { deliver: async () => ({ ok: true, status: 200 }) };
    await deliverDue(restored.listener.owed, accept, 8, (lines) => appendLog(files, lines), first.deps);
    const marker = JSON.parse(readFileSync(files.checkpoint, 'utf8'));
    writeFileSync(
      files.checkpoint,
      JSON.stringify({
        ...marker,
        log: { lines: 0, bytes: 0, last: '', legacyLines: 0 },
        catchUp: { legacy: false, since: '2026-08-01T00:00:00.000Z' },
      }),
    );
    // Its events were delivered: only the log says they were made.
    const again = depsOf(dir);
    const rerun = await restoreListener(files, fileEventStore(files, again.deps), again.deps);
    expect(rerun.start.kind).toBe('first');
    await catchUp(rerun.listener, rerun.start, undefined, again.deps);
    const log = readEventLog(files, 'owed');
    expect(log.damage).toEqual([]);
    expect(log.problem).toBeUndefined();
    // Nothing made twice: 36 event lines, not 72.
    expect(readFileSync(files.log, 'utf8').split('"t":"event"').length - 1).toBe(36);
    expect(log.states.size).toBe(36);
    expect(log.checkpoint?.catchUp).toBeUndefined();
  });
});
