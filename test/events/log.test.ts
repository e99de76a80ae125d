import { appendFileSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Checkpoint, LogLine } from '../../src/domain/event-log.js';
import { entryEvent } from '../../src/domain/events.js';
import { appendLog, eventAt, measureLog, readEventLog, writeCheckpoint } from '../../src/events/log.js';
import { deferEach } from '../helpers/cleanup.js';

const { dir: tempDir } = deferEach();
const context = { account: 'acct_test', profile: 'prod' };
const made = (id: string) => entryEvent({ id, type: 'INCOME', confirmedAt: '2026-11-25T12:00:00Z' }, context);

/** An account's files in a fresh directory, with `lines` logged and a checkpoint of them. */
function logged(lines: LogLine[]) {
  const dir = tempDir();
  const files = { log: join(dir, 'a.jsonl'), checkpoint: join(dir, 'a.checkpoint') };
  appendLog(files, lines);
  const size = measureLog(files, { lines: 0, bytes: 0, last: '' });
  const checkpoint: Checkpoint = {
    version: 1,
    log: { ...size, legacyLines: 0 },
    statement: { recent: [] },
    journal: null,
    at: '2026-11-25T12:00:00.000Z',
  };
  writeCheckpoint(files, checkpoint);
  return files;
}

const e1 = made('e-1');
const e2 = made('e-2');
const lines: LogLine[] = [
  { t: 'event', event: e1 },
  { t: 'attempt', id: e1.id, at: 'x', ok: true, status: 200 },
  { t: 'delivered', id: e1.id, at: 'x' },
  { t: 'event', event: e2 },
];

describe('the event log against its checkpoint', () => {
  it('sound: what it owes, nothing wrong; lines appended after the checkpoint (a resend) are fine', () => {
    const files = logged(lines);
    const log = readEventLog(files, 'owed');
    expect(log.problem).toBeUndefined();
    expect(log.damage).toEqual([]);
    expect([...log.states.values()].map((state) => [state.id, state.state, !!state.event])).toEqual([
      [e1.id, 'delivered', false],
      [e2.id, 'pending', true],
    ]);
    appendLog(files, [{ t: 'resend', id: e1.id, at: 'y' }]);
    const again = readEventLog(files, 'owed');
    expect(again.problem).toBeUndefined();
    // Made owed again: its body is read back from its line.
    const state = again.states.get(e1.id)!;
    expect(state.state).toBe('pending');
    expect(eventAt(files, state.offset, e1.id)).toEqual(e1);
  });

  it('cut, emptied, missing, replaced, or its checkpoint damaged or missing: a problem naming what it was', () => {
    const cut = logged(lines);
    truncateSync(cut.log, readFileSync(cut.log).length - 30);
    expect(readEventLog(cut, 'owed').problem).toMatch(
      /^it was cut or emptied: it has \d+ bytes; its checkpoint records 4 lines/,
    );
    const emptied = logged(lines);
    writeFileSync(emptied.log, '');
    expect(readEventLog(emptied, 'owed').problem).toMatch(/^it was cut or emptied: it has 0 bytes/);
    const missing = logged(lines);
    rmSync(missing.log);
    expect(readEventLog(missing, 'owed').problem).toMatch(/^it is missing; its checkpoint records 4 lines/);
    const replaced = logged(lines);
    const other = logged([...lines].reverse().slice(0, 1).concat(lines));
    writeFileSync(replaced.log, readFileSync(other.log));
    expect(readEventLog(replaced, 'owed').problem).toMatch(/^it does not match its checkpoint/);
    const damaged = logged(lines);
    writeFileSync(damaged.checkpoint, '{"version":1,');
    expect(readEventLog(damaged, 'owed').problem).toBe(
      `its checkpoint ${damaged.checkpoint} is damaged (not JSON)`,
    );
    const lost = logged(lines);
    rmSync(lost.checkpoint);
    expect(readEventLog(lost, 'owed').problem).toBe(
      `its checkpoint ${lost.checkpoint} is missing (this version always writes one)`,
    );
  });

  it("an earlier version's log (no checksums, no checkpoint) is adopted; emptied, it is damage", () => {
    const dir = tempDir();
    const files = { log: join(dir, 'a.jsonl'), checkpoint: join(dir, 'a.checkpoint') };
    appendFileSync(
      files.log,
      `${JSON.stringify({ t: 'seen', ids: ['old'] })}\n${JSON.stringify(lines[0])}\n`,
    );
    const log = readEventLog(files, 'all');
    expect(log).toMatchObject({ legacy: true, damage: [], seen: new Set(['old']) });
    expect(log.problem).toBeUndefined();
    writeFileSync(files.log, '');
    expect(readEventLog(files, 'all').problem).toBe('it is empty and has no checkpoint: it was emptied');
  });

  it('no log and no checkpoint is a first run; a checkpoint of an empty log needs no log', () => {
    const dir = tempDir();
    const files = { log: join(dir, 'a.jsonl'), checkpoint: join(dir, 'a.checkpoint') };
    expect(readEventLog(files, 'owed')).toMatchObject({ legacy: false, damage: [], states: new Map() });
    const empty = logged([]);
    expect(readEventLog(empty, 'owed').problem).toBeUndefined();
  });
});
