/**
 * A journal that cannot lose its tail silently (docs/reliability.md, "The journal's chain"): lines cut
 * from its end, removed from its middle, moved or edited are damage — every money command stops (exit 8,
 * nothing sent) and `pix journal verify` names what is wrong (exit 8) — while a torn last write, a
 * writer killed between its line and its checkpoint, and a journal of an older pix are not. The
 * payments are real ones on the embedded sandbox; the damage is done to the file by hand, as a partial
 * restore or a sync tool would.
 */
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openJournal } from '../../../src/journal/store.js';
import { SEEDED_KEYS } from '../../../src/sandbox/seed.js';
import { SYSTEM } from '../../../src/system.js';
import { deferEach } from '../../helpers/cleanup.js';
import { pixWith } from '../../helpers/pix.js';

const { dir: tempDir } = deferEach();
let dir: string;
let journalPath: string;
let checkpointPath: string;

beforeEach(() => {
  dir = tempDir();
  journalPath = join(dir, 'journal.jsonl');
  checkpointPath = join(dir, 'journal.jsonl.checkpoint');
});

const pix = pixWith(() => ({ env: { PIX_CONFIG_DIR: dir } }));

/** `count` payments to distinct keys, each a `sending` and a `done` line. */
async function pay(count: number, from = 0) {
  for (let n = from; n < from + count; n++) {
    const paid = await pix(['pay', 'key', `p${n}@example.com`, '--amount', `${n + 1}`, '-y']);
    expect(paid.code, paid.stderr).toBe(0);
  }
}

const lines = () => readFileSync(journalPath, 'utf8').split('\n').slice(0, -1);
const rewrite = (kept: string[]) => writeFileSync(journalPath, `${kept.join('\n')}\n`);

interface Report {
  damaged: { line: number; reason: string }[];
  torn: number[];
  chain: { start: number | null; checkpoint: { lines: number } | null; lag: number };
}

async function verify(): Promise<{ code: number; report: Report; stderr: string }> {
  const result = await pix(['journal', 'verify', '--json']);
  return { code: result.code, report: JSON.parse(result.stdout) as Report, stderr: result.stderr };
}

/** Every command that moves money or creates something stops before sending, naming the journal. */
async function expectMoneyStopped(line: number) {
  const key = await pix(['pay', 'key', 'zed@example.com', '--amount', '99', '-y']);
  expect(key.code, key.stderr).toBe(8);
  expect(key.stderr).toContain(`error: the journal is damaged: ${journalPath} line ${line}: `);
  expect(key.stderr).toContain('nothing was sent');
  expect(key.stderr).toMatch(/hint: .*pix journal verify --accept/);
  const charge = await pix([
    'charge',
    'immediate',
    '--amount',
    '5',
    '--no-qr',
    '--key',
    SEEDED_KEYS.email.key,
  ]);
  expect(charge.code, charge.stderr).toBe(8);
  // And reading commands say so.
  const list = await pix(['journal']);
  expect(list.code).toBe(0);
  expect(list.stderr).toMatch(/warning: the journal is damaged .*payments and charges are stopped/);
}

describe('the journal chain: what is damage', () => {
  it.each([1, 2])(
    'the last %i line(s) cut by hand: money stops, verify names where it was cut',
    async (cut) => {
      await pay(3);
      const all = lines();
      expect(all).toHaveLength(6);
      rewrite(all.slice(0, -cut));
      const end = 6 - cut;
      await expectMoneyStopped(end + 1);
      const { code, report } = await verify();
      expect(code).toBe(8);
      expect(report.damaged).toEqual([
        {
          line: end + 1,
          reason: expect.stringMatching(
            new RegExp(
              `^the journal ends at line ${end} \\(.* bytes\\), but its checkpoint says 6 lines .*its last (line was|2 lines were) cut$`,
            ),
          ),
        },
      ]);
      // The journal removed altogether (a sync tool deleted it) is the same loss.
      unlinkSync(journalPath);
      const gone = await verify();
      expect(gone.code).toBe(8);
      expect(gone.report.damaged[0]!.reason).toMatch(/^the journal is empty or missing .*says 6 lines/);
    },
  );

  it('a line removed from the middle: the line after it no longer follows', async () => {
    await pay(3);
    const all = lines();
    // The first payment's `done` line: without it the payment reads `sending`, which a reader of an older
    // pix could not tell from a payment in flight.
    rewrite([all[0]!, ...all.slice(2)]);
    await expectMoneyStopped(2);
    const { code, report } = await verify();
    expect(code).toBe(8);
    // Where the chain breaks, and, at the end, that the checkpoint counted one line more before it.
    expect(report.damaged).toEqual([
      {
        line: 2,
        reason: expect.stringMatching(/^it does not follow line 1 .*lines between them were removed/),
      },
      { line: 5, reason: 'its checkpoint recorded this line as line 6: 1 line removed before it' },
    ]);
  });

  it('a reordered file: each line out of its place is named', async () => {
    await pay(2);
    const all = lines();
    rewrite([all[0]!, all[2]!, all[1]!, all[3]!]);
    await expectMoneyStopped(2);
    const { report } = await verify();
    expect(report.damaged.map((one) => one.line)).toEqual([2, 3, 4]);
    for (const one of report.damaged) expect(one.reason).toMatch(/does not follow line \d/);
    // The whole file backwards, too.
    rewrite([...all].reverse());
    const reversed = await verify();
    expect(reversed.code).toBe(8);
    expect(reversed.report.damaged.length).toBeGreaterThanOrEqual(3);
  });

  it('an amount edited to another valid amount: the next line names the change; the last line edited, the checkpoint does', async () => {
    await pay(2);
    const all = lines();
    const edited = all[0]!.replace('"amountCentavos":100,', '"amountCentavos":900,');
    expect(edited).not.toBe(all[0]);
    rewrite([edited, ...all.slice(1)]);
    await expectMoneyStopped(2);
    const { report } = await verify();
    expect(report.damaged).toEqual([
      { line: 2, reason: expect.stringMatching(/^it does not follow line 1 .*line 1 was edited/) },
    ]);
    // The last line has no line after it: its checkpoint names it.
    const last = all[3]!.replace('"state":"done"', '"state":"failed"');
    expect(last).not.toBe(all[3]);
    rewrite([...all.slice(0, 3), last]);
    const tail = await verify();
    expect(tail.report.damaged).toEqual([
      { line: 4, reason: expect.stringMatching(/^the last line is not the one its checkpoint recorded/) },
    ]);
  });
});

describe('the journal chain: what is not damage', () => {
  const clock = { now: () => new Date() };
  const start = {
    kind: 'payment',
    account: 'acct_sandbox',
    profile: 'sandbox',
    host: 'sandbox.localhost',
    amountCentavos: 700,
    payment: { method: 'key', key: 'crash@example.com' },
  } as const;

  it('a torn last write (a partial line, no newline) is skipped as before, and the next line chains past it', async () => {
    await pay(2);
    writeFileSync(journalPath, `${readFileSync(journalPath, 'utf8')}{"id":"cut-short","at":"2026-`);
    const before = await verify();
    expect(before.code, JSON.stringify(before.report)).toBe(0);
    await pay(1, 2);
    const after = await verify();
    expect(after.code, JSON.stringify(after.report)).toBe(0);
    expect(after.report).toMatchObject({ damaged: [], torn: [5], chain: { start: 1, lag: 0 } });
    expect(after.report.chain.checkpoint?.lines).toBe(lines().length);
  });

  it('a writer killed between its line and its checkpoint: one line behind is not damage, more is', async () => {
    await pay(1);
    const journal = openJournal(dir, { ...SYSTEM, clock });
    const entry = journal.begin(start);
    const atThree = readFileSync(checkpointPath);
    journal.finish(entry.id, { state: 'failed', reason: 'test' });
    // As if the writer of line 4 was killed before its checkpoint: the checkpoint still names line 3.
    writeFileSync(checkpointPath, atThree);
    const lagging = await verify();
    expect(lagging.code, JSON.stringify(lagging.report)).toBe(0);
    expect(lagging.report.chain).toEqual({
      start: 1,
      checkpoint: { lines: 3, bytes: expect.any(Number) },
      lag: 1,
    });
    expect((await pix(['journal', 'verify'])).stderr).toMatch(
      /no damaged line; chained from line 1, checkpoint at line 3 \(the last line not yet in it/,
    );
    // Money moves, and the next line brings the checkpoint up to date.
    await pay(1, 1);
    expect((await verify()).report.chain).toMatchObject({ checkpoint: { lines: 6 }, lag: 0 });
    // Three lines behind: no crash leaves that; a checkpoint restored from an older copy does.
    writeFileSync(checkpointPath, atThree);
    const behind = await verify();
    expect(behind.code).toBe(8);
    expect(behind.report.damaged).toEqual([
      {
        line: 3,
        reason: expect.stringMatching(
          /^its checkpoint says the journal ended at this line, but 3 lines follow it/,
        ),
      },
    ]);
  });

  it('the checkpoint deleted: nothing to vouch for with one chained line; with more, damage until --accept', async () => {
    const journal = openJournal(dir, { ...SYSTEM, clock });
    const entry = journal.begin(start);
    // A first chained line whose writer was killed before its checkpoint.
    unlinkSync(checkpointPath);
    expect((await verify()).code).toBe(0);
    journal.finish(entry.id, { state: 'failed', reason: 'test' });
    expect(existsSync(checkpointPath)).toBe(true);
    // Deleted, or left out of a restore: the end of the journal cannot be vouched for.
    unlinkSync(checkpointPath);
    await expectMoneyStopped(2);
    const missing = await verify();
    expect(missing.report.damaged).toEqual([
      {
        line: 2,
        reason: expect.stringMatching(
          /^its checkpoint .*journal\.jsonl\.checkpoint is missing or unreadable/,
        ),
      },
    ]);
    // Appends (by another pix) go on, since an outcome is never lost, and leave the checkpoint missing:
    // it is the evidence.
    openJournal(dir, { ...SYSTEM, clock }).resolve(entry.id, 'not-paid');
    expect(existsSync(checkpointPath)).toBe(false);
    // Garbled is the same as missing.
    writeFileSync(checkpointPath, '{"lines":');
    expect((await verify()).code).toBe(8);
    const accepted = await pix(['journal', 'verify', '--accept']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain('1 damaged line accepted');
    expect(JSON.parse(readFileSync(checkpointPath, 'utf8'))).toMatchObject({ lines: 4 });
    expect((await verify()).code).toBe(0);
    await pay(1);
  });

  it('a journal written by an older pix (no prev) is read as it is; the chain starts at the first line this pix appends', async () => {
    const older = [
      {
        id: 'old-1',
        at: '2026-03-01T10:00:00.000Z',
        kind: 'payment',
        state: 'sending',
        profile: 'sandbox',
        host: 'sandbox.localhost',
        amountCentavos: 1,
        payment: { method: 'key', key: 'old@example.com' },
      },
      { id: 'old-1', at: '2026-03-01T10:00:01.000Z', state: 'done', transferId: 't-old' },
    ];
    rewrite(older.map((line) => JSON.stringify(line)));
    const legacy = await verify();
    expect(legacy.code).toBe(0);
    expect(legacy.report.chain).toEqual({ start: null, checkpoint: null, lag: 0 });
    expect((await pix(['journal', '--json'])).stdout).toContain('old-1');
    await pay(1);
    const chained = await verify();
    expect(chained.code).toBe(0);
    expect(chained.report.chain).toMatchObject({ start: 3, checkpoint: { lines: 4 }, lag: 0 });
    // The first chained line names the last line before it: that line is vouched for too.
    const all = lines();
    expect(JSON.parse(all[2]!).prev).toEqual(expect.any(String));
    rewrite([all[0]!, ...all.slice(2)]);
    expect((await verify()).report.damaged.map((one) => one.reason)).toEqual([
      expect.stringMatching(/^it does not follow line 1 /),
      'its checkpoint recorded this line as line 4: 1 line removed before it',
    ]);
    // Once the chain has started, a line without prev (an older pix, or a hand) is damage.
    rewrite([...all, JSON.stringify({ id: 'old-1', at: '2026-03-02T00:00:00.000Z', resolution: 'paid' })]);
    const unchained = await verify();
    expect(unchained.report.damaged).toEqual([
      { line: 5, reason: expect.stringMatching(/^it has no prev, and the chain starts at line 3/) },
    ]);
  });
});

describe('pix journal verify --accept: the way back from a real damage', () => {
  it('records that the operator has looked: one acceptance line, the checkpoint anew; money moves again', async () => {
    await pay(3);
    rewrite(lines().slice(0, -2));
    await expectMoneyStopped(5);
    const accepted = await pix(['journal', 'verify', '--accept', '--json']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({
      accepted: [{ line: 5, reason: expect.stringMatching(/its last 2 lines were cut/) }],
    });
    const ack = JSON.parse(lines().at(-1)!) as Record<string, unknown>;
    expect(ack).toEqual({
      at: expect.any(String),
      accepted: [{ line: 5, reason: expect.stringMatching(/were cut/) }],
      prev: expect.any(String),
    });
    const after = await pix(['journal', 'verify']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toMatch(/line 5: 1 damaged line accepted at .* \(line 5\)/);
    await pay(1, 10);

    // A line edited in the middle: accepted with its text; the same line edited again is damage again.
    const all = lines();
    const edited = all[0]!.replace('"amountCentavos":100,', '"amountCentavos":900,');
    rewrite([edited, ...all.slice(1)]);
    expect((await verify()).report.damaged.map((one) => one.line)).toEqual([2]);
    expect((await pix(['journal', 'verify', '--accept'])).code).toBe(0);
    expect((await verify()).code).toBe(0);
    await pay(1, 11);
    const again = lines();
    rewrite([again[0]!, again[1]!.replace('"state":"done"', '"state":"failed"'), ...again.slice(2)]);
    expect((await verify()).report.damaged.map((one) => one.line)).toEqual([2, 3]);

    // Nothing to accept: nothing appended.
    rewrite(again);
    const size = readFileSync(journalPath).length;
    const nothing = await pix(['journal', 'verify', '--accept']);
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toContain('no damaged line, nothing to accept');
    expect(readFileSync(journalPath).length).toBe(size);
  });
});
