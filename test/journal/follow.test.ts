import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOURNAL_FILE, type JournalEntry } from '../../src/journal/entries.js';
import { followJournal } from '../../src/journal/follow.js';
import type { ChangeLine } from '../../src/journal/parser.js';
import { isResolvable } from '../../src/journal/rules.js';
import { deferEach } from '../helpers/cleanup.js';

const { dir: tempDir } = deferEach();

/** A start line of a payment on `account`, and its outcome. */
function payment(id: string, account: string, state?: 'done' | 'unknown' | 'failed'): string {
  const start = {
    id,
    at: '2026-11-25T12:00:00.000Z',
    kind: 'payment',
    state: 'sending',
    account,
    profile: 'p',
    host: 'h',
    amountCentavos: 100,
    payment: { method: 'key', key: `${id}@example.com` },
  };
  const lines = [JSON.stringify(start)];
  if (state) lines.push(JSON.stringify({ id, at: '2026-11-25T12:00:01.000Z', state }));
  return `${lines.join('\n')}\n`;
}

/** A follower of `dir` that holds account A's payments until they are settled, and says what changed. */
function follow(dir: string) {
  const changes: Array<[string, ChangeLine, string]> = [];
  const follower = followJournal(dir, (entry) => entry.account === 'A', {
    changed: (entry: JournalEntry, line) => changes.push([entry.id, line, entry.state]),
    settled: (entry) => !isResolvable(entry) || entry.resolution !== undefined,
  });
  return { follower, changes };
}

describe('followJournal (pix listen reads the journal as it grows)', () => {
  it('holds only what can still change: 10,000 paid payments leave nothing held, the unknown one stays', () => {
    const dir = tempDir();
    const lines: string[] = [];
    for (let n = 0; n < 10_000; n++) lines.push(payment(`paid-${n}`, 'A', 'done'));
    lines.push(payment('open', 'A', 'unknown'), payment('other', 'B', 'unknown'));
    writeFileSync(join(dir, JOURNAL_FILE), lines.join(''));
    const { follower, changes } = follow(dir);
    follower.read();
    expect(follower.entries().map((entry) => entry.id)).toEqual(['open']);
    expect(changes).toHaveLength(10_001);
    expect(follower.damage()).toEqual([]);
    // Later lines: only they are told, and an entry let go is not damage when a line names it again.
    appendFileSync(
      join(dir, JOURNAL_FILE),
      `${JSON.stringify({ id: 'open', at: '2026-11-25T13:00:00.000Z', resolution: 'paid' })}\n${JSON.stringify({ id: 'paid-1', at: 'x', state: 'done' })}\n`,
    );
    changes.length = 0;
    follower.read();
    expect(changes).toEqual([['open', 'resolution', 'unknown']]);
    expect(follower.entries()).toEqual([]);
    expect(follower.damage()).toEqual([]);
  });

  it('reads quietly up to where a run before stopped, and all of a journal that was replaced', () => {
    const dir = tempDir();
    const path = join(dir, JOURNAL_FILE);
    writeFileSync(path, payment('old', 'A', 'unknown'));
    const stopped = readFileSync(path).length;
    appendFileSync(path, payment('new', 'A', 'done'));
    const { follower, changes } = follow(dir);
    const at = follower.read(stopped);
    expect(changes).toEqual([['new', 'outcome', 'done']]);
    expect(at?.offset).toBe(readFileSync(path).length);
    // Another file in its place (restored from a backup): its lines are old, not news.
    writeFileSync(`${path}.new`, payment('restored', 'A', 'done'));
    renameSync(`${path}.new`, path);
    changes.length = 0;
    follower.read();
    expect(changes).toEqual([]);
    appendFileSync(path, JSON.stringify({ id: 'restored', at: 'x', state: 'done' }).concat('\n'));
    follower.read();
    expect(follower.damage()).toEqual([]);
  });
});
