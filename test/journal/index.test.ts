/**
 * The journal's index file (src/journal/indexfile.ts): a payment on a long journal reads the lines after
 * the index, not the history — and the index is a cache, never the record. Missing, edited, from another
 * journal, or standing on a journal someone changed since: it is not believed, the journal is read whole
 * (a damaged journal is exit 8 as without an index), and a sound one gets a new index. The bytes pix reads
 * of journal.jsonl are counted through the storage module (the one place files are read).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { formatCheckpoint, GENESIS, lineDigest } from '../../src/journal/chain.js';
import { INDEX_SUFFIX } from '../../src/journal/indexfile.js';
import { deferEach } from '../helpers/cleanup.js';
import { pixWith } from '../helpers/pix.js';

const read = vi.hoisted(() => ({ bytes: 0 }));

vi.mock('../../src/storage/files.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/storage/files.js')>();
  return {
    ...real,
    readPrivateFrom: (...args: Parameters<typeof real.readPrivateFrom>) => {
      const tail = real.readPrivateFrom(...args);
      if (args[0].endsWith('journal.jsonl') && tail !== undefined) read.bytes += tail.bytes.length;
      return tail;
    },
  };
});

const { dir: tempDir } = deferEach();
let dir: string;
let journalPath: string;
let indexPath: string;
let checkpointPath: string;

beforeEach(() => {
  dir = tempDir();
  journalPath = join(dir, 'journal.jsonl');
  indexPath = `${journalPath}${INDEX_SUFFIX}`;
  checkpointPath = `${journalPath}.checkpoint`;
});

const pix = pixWith(() => ({ env: { PIX_CONFIG_DIR: dir } }));

let paid = 0;
/** One payment to a key of its own; resolves with the bytes of journal.jsonl it read. */
async function pay(expected = 0, key = `p${++paid}@example.com`, amount = `${paid}.01`) {
  read.bytes = 0;
  const result = await pix(['pay', 'key', key, '--amount', amount, '-y']);
  expect(result.code, result.stderr).toBe(expected);
  return { bytes: read.bytes, stderr: result.stderr };
}

const lines = () => readFileSync(journalPath, 'utf8').split('\n').slice(0, -1);

/**
 * `count` paid payments of two days ago on the account the journal's first line names, appended as pix
 * chains lines (each names the one before), and the checkpoint as a writer leaves it: a history no payment
 * today asks about.
 */
function appendHistory(count: number) {
  const before = lines();
  const first = JSON.parse(before[0]!) as Record<string, unknown>;
  const at = new Date(Date.now() - 2 * 86_400_000).toISOString();
  let prev = before.length === 0 ? GENESIS : lineDigest(before.at(-1)!);
  const added: string[] = [];
  const push = (record: object) => {
    const text = JSON.stringify({ ...record, prev });
    added.push(text);
    prev = lineDigest(text);
  };
  for (let n = 0; n < count; n++) {
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    push({
      id,
      at,
      kind: 'payment',
      state: 'sending',
      account: first.account,
      profile: first.profile,
      host: first.host,
      baseUrl: first.baseUrl,
      amountCentavos: 100 + n,
      payment: { method: 'key', key: `history-${n}@example.com` },
    });
    push({ id, at, state: 'done', transferId: `t-${n}` });
  }
  const all = [...before, ...added];
  const text = `${all.join('\n')}\n`;
  writeFileSync(journalPath, text);
  writeFileSync(
    checkpointPath,
    formatCheckpoint({ lines: all.length, bytes: Buffer.byteLength(text), last: prev }),
  );
  return Buffer.byteLength(text);
}

describe("the journal's index file", () => {
  it('a payment reads the lines after the index, not the history; a missing index is made again from the journal', async () => {
    await pay();
    const size = appendHistory(5_000);
    // The first payment after the history appeared reads it once, and leaves the index.
    expect((await pay()).bytes).toBeGreaterThanOrEqual(size);
    expect(JSON.parse(readFileSync(checkpointPath, 'utf8'))).toMatchObject({ seen: expect.any(String) });
    // The next ones read a few kilobytes: the lines since, and the line the index stands on.
    for (let n = 0; n < 3; n++) expect((await pay()).bytes).toBeLessThan(40_000);
    // Its questions are answered as before: the same payment within the window is refused (exit 8).
    const again = await pay(8, `p${paid}@example.com`, `${paid}.01`);
    expect(again.stderr).toContain('already paid');
    expect(again.bytes).toBeLessThan(40_000);
    // Missing: read whole again, and made again.
    rmSync(indexPath);
    expect((await pay()).bytes).toBeGreaterThanOrEqual(size);
    expect((await pay()).bytes).toBeLessThan(40_000);
  });

  it('an index edited by hand, or of another journal, is not believed: an unresolved payment still holds', async () => {
    await pay();
    appendHistory(2_000);
    await pay();
    // A payment whose outcome is unknown (its writer killed), on a key paid again below.
    const lastPaid = paid;
    const held = lines();
    const start = JSON.parse(held.at(-2)!) as Record<string, unknown>;
    writeFileSync(journalPath, `${held.slice(0, -1).join('\n')}\n`);
    writeFileSync(
      checkpointPath,
      formatCheckpoint({
        lines: held.length - 1,
        bytes: Buffer.byteLength(`${held.slice(0, -1).join('\n')}\n`),
        last: lineDigest(held.at(-2)!),
      }),
    );
    expect(start.state).toBe('sending');
    // Another pay makes the index hold the unresolved entry.
    await pay(8, `p${lastPaid}@example.com`, `${lastPaid}.01`);
    const index = readFileSync(indexPath, 'utf8');
    expect(index).toContain(String(start.id));
    // The entry taken out of the index by hand: its digest no longer holds.
    const [digest, body] = index.split('\n');
    const forged = JSON.parse(body!) as { state: { entries: { id: string }[] } };
    forged.state.entries = forged.state.entries.filter((entry) => entry.id !== start.id);
    writeFileSync(indexPath, `${digest}\n${JSON.stringify(forged)}\n`);
    const refused = await pay(8, `p${lastPaid}@example.com`, `${lastPaid}.01`);
    expect(refused.stderr).toContain('has no known outcome');
    expect(refused.bytes).toBeGreaterThan(500_000);
    // An index copied from another config directory (a journal of its own): not this journal's.
    const other = tempDir();
    for (const key of ['other@example.com', 'other2@example.com']) {
      expect(
        (await pix(['pay', 'key', key, '--amount', '1', '-y'], { env: { PIX_CONFIG_DIR: other } })).code,
      ).toBe(0);
    }
    const foreignIndex = readFileSync(join(other, `journal.jsonl${INDEX_SUFFIX}`));
    writeFileSync(indexPath, foreignIndex);
    const foreign = await pay(8, `p${lastPaid}@example.com`, `${lastPaid}.01`);
    expect(foreign.stderr).toContain('has no known outcome');
    expect(foreign.bytes).toBeGreaterThan(500_000);
    expect(readFileSync(indexPath)).not.toEqual(foreignIndex);
  });

  it('a journal changed by hand since its index (an amount edited, the size kept) is damage: exit 8, as without one', async () => {
    await pay();
    appendHistory(2_000);
    await pay();
    await pay();
    const all = lines();
    const at = all.findIndex((line) => line.includes('"amountCentavos":108,'));
    const edited = [...all];
    edited[at] = all[at]!.replace('"amountCentavos":108,', '"amountCentavos":908,');
    writeFileSync(journalPath, `${edited.join('\n')}\n`);
    // The line after it no longer follows it (chain.ts).
    const stopped = await pay(8);
    expect(stopped.stderr).toContain(`error: the journal is damaged: ${journalPath} line ${at + 2}: `);
    // And so it stays until the operator has looked.
    await pay(8);
    expect((await pix(['journal', 'verify', '--accept'])).code).toBe(0);
    await pay();
    expect((await pay()).bytes).toBeLessThan(40_000);
  });
});
