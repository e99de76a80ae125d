/**
 * The spill file trusted only as far as it can be checked (journal/postgres/spill.ts): chained and
 * checkpointed like the journal, and a spilled outcome written to the database only where the database
 * agrees it is awaited. The file's rules in-process; on a real PostgreSQL, a spill edited by hand and a spill
 * the database contradicts stop payments (exit 8), `pix ledger status` names them, and the database is left
 * as it was.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_SUFFIX } from '../../src/journal/chain.js';
import type { JournalEntry } from '../../src/journal/entries.js';
import { openPool } from '../../src/journal/postgres/connect.js';
import { migrateSchema } from '../../src/journal/postgres/schema.js';
import {
  drain,
  judgeSpilled,
  readSpill,
  SPILL_FILE,
  type SpilledChange,
  spill,
  spillPath,
} from '../../src/journal/postgres/spill.js';
import { openPostgresJournal } from '../../src/journal/postgres/store.js';
import type { Account } from '../../src/journal/rules.js';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { SYSTEM } from '../../src/system.js';
import { deferEach } from '../helpers/cleanup.js';
import { pix as runPix } from '../helpers/pix.js';
import { clusterPerFile } from '../helpers/postgres.js';

const deferred = deferEach();
const { suite, cluster } = clusterPerFile();

const change = (id: string, state = 'done', db = 'postgres://127.0.0.1:5432/pix'): SpilledChange => ({
  db,
  op: 'finish',
  id,
  line: { id, at: '2026-03-10T10:00:00.000Z', state },
});

describe('the spill file: chained and checkpointed', () => {
  it('as written it is sound; an edited, removed or cut line is damage; a torn last write and a rewrite cut short are not', async () => {
    const dir = deferred.dir();
    for (const id of ['e1', 'e2', 'e3']) await spill(dir, change(id), SYSTEM);
    const path = spillPath(dir);
    const sound = readSpill(path);
    expect(sound.damage).toBeUndefined();
    expect(sound.changes.map((c) => c.id)).toEqual(['e1', 'e2', 'e3']);
    const text = readFileSync(path, 'utf8');
    const damageOf = (edited: string) => {
      writeFileSync(path, edited);
      const found = readSpill(path).damage;
      writeFileSync(path, text);
      return found;
    };
    // `done` edited to `failed` on the first line: the next line no longer follows it.
    expect(damageOf(text.replace('"done"', '"failed"'))).toMatchObject({ line: 2 });
    // … on the last line: it is not the line its checkpoint recorded.
    const lines = text.trimEnd().split('\n');
    expect(
      damageOf(`${[...lines.slice(0, 2), lines[2]!.replace('"done"', '"failed"')].join('\n')}\n`),
    ).toMatchObject({
      line: 3,
      reason: expect.stringMatching(/not the one its checkpoint recorded/),
    });
    expect(damageOf(`${[lines[0], lines[2]].join('\n')}\n`)?.reason).toMatch(/does not follow line 1/);
    expect(damageOf(`${lines.slice(0, 2).join('\n')}\n`)?.reason).toMatch(/its last line was cut/);
    expect(damageOf('')?.reason).toMatch(/its last 3 lines were cut/);
    expect(damageOf(`${text}{"db":"postgres://127.0.0.1:5432/pix","op":"fin`)).toBeUndefined();
    // A line added by hand, without a chain, after chained ones.
    expect(damageOf(`${text}${JSON.stringify(change('forged', 'failed'))}\n`)?.reason).toMatch(
      /it has no prev, and the chain starts at line 1/,
    );
    // A rewrite cut short after its next checkpoint and file, before the rename: sound.
    await drain(dir, 'postgres://127.0.0.1:5432/pix', SYSTEM, async (c) =>
      c.id === 'e1' ? 'applied' : 'stop',
    );
    expect(readSpill(path).changes.map((c) => c.id)).toEqual(['e2', 'e3']);
    const rewritten = readFileSync(path, 'utf8');
    const checkpoint = readFileSync(`${path}${CHECKPOINT_SUFFIX}`, 'utf8');
    writeFileSync(`${path}${CHECKPOINT_SUFFIX}.next`, checkpoint);
    writeFileSync(
      `${path}${CHECKPOINT_SUFFIX}`,
      readFileSync(`${path}${CHECKPOINT_SUFFIX}`, 'utf8').replace(/"lines":2/, '"lines":3'),
    );
    writeFileSync(path, rewritten);
    expect(readSpill(path).damage).toBeUndefined();
  });

  it('lines of an earlier pix (no chain) are taken as they are', () => {
    const dir = deferred.dir();
    writeFileSync(join(dir, SPILL_FILE), `${JSON.stringify(change('old'))}\n`);
    expect(readSpill(spillPath(dir))).toMatchObject({ changes: [{ id: 'old' }] });
    expect(readSpill(spillPath(dir)).damage).toBeUndefined();
  });

  it('a spilled outcome is written only where the database still awaits it', () => {
    const c = change('e1', 'done');
    expect(judgeSpilled(c, { state: 'sending', resolution: null })).toBe('apply');
    expect(judgeSpilled(c, { state: 'unknown', resolution: null })).toBe('apply');
    expect(judgeSpilled(c, { state: 'unknown', resolution: 'paid' })).toBe('apply');
    expect(judgeSpilled(c, { state: 'done', resolution: null })).toBe('done');
    expect(judgeSpilled(c, { state: 'unknown', resolution: 'not-paid' })).toMatch(
      /ended done here, but was resolved not-paid on the ledger/,
    );
    expect(judgeSpilled(c, { state: 'failed', resolution: null })).toMatch(/ended done here, but is failed/);
    expect(judgeSpilled(change('e1', 'failed'), { state: 'unknown', resolution: 'paid' })).toMatch(
      /resolved paid/,
    );
    expect(judgeSpilled(c, undefined)).toMatch(/is not in the database/);
  });
});

suite('the spill file on a shared ledger', { timeout: 60_000 }, () => {
  async function setup() {
    const name = `spill_${process.pid}_${Math.floor(performance.now())}`;
    const url = cluster().createDatabase(name);
    const pool = openPool(url, {});
    await migrateSchema(pool.sql, 'test');
    await pool.sql.end();
    const dir = deferred.dir();
    const server = await startSandboxServer({ port: 0, stateFile: join(dir, 'state.json') });
    deferred.defer(() => server.close());
    const env = {
      PIX_CONFIG_DIR: dir,
      HOME: dir,
      PIX_BASE_URL: server.url,
      PIX_TOKEN: 'spill',
      PIX_LEDGER_URL: url,
    };
    const pix = (args: string[]) => runPix(args, { env });
    const shown = await pix(['account', '--json']);
    const account: Account = {
      id: (JSON.parse(shown.stdout) as { id: string }).id,
      profile: 'sandbox',
      baseUrl: server.url,
      host: new URL(server.url).host,
      legacy: [],
      formerIds: [],
    };
    // A claim left sending by a process that is gone (its outcome lost with the database, as it were).
    const other = openPostgresJournal({
      url,
      dir: deferred.dir(),
      clock: SYSTEM.clock,
      processes: { pid: 2 ** 22 + 5, alive: () => false },
      system: SYSTEM,
    });
    deferred.defer(() => other.close());
    const claim = await other.claim(
      {
        kind: 'payment',
        account: account.id,
        profile: 'p',
        host: account.host,
        amountCentavos: 1234,
        payment: { method: 'key', key: 'ana@example.com' },
      },
      { account, query: { method: 'key', key: 'ana@example.com', amountCentavos: 1234 } },
    );
    const entry = claim.entry as JournalEntry;
    const db = `postgres://127.0.0.1:${cluster().port}/${name}`;
    const row = () =>
      cluster()
        .psql(
          `SELECT state || ' ' || coalesce(resolution, '-') FROM pix_journal WHERE id = '${entry.id}'`,
          name,
        )
        .trim();
    const transfers = () => server.requests.filter((r) => r.endpoint === 'transfer').length;
    const pay = () =>
      pix(['pay', 'key', 'ana@example.com', '--amount', '12,34', '--yes', '--duplicate-window', '0']);
    return { dir, pix, entry, db, row, transfers, pay };
  }

  it('a sound spill is written first: the payment is done there, and the same payment is refused as paid', async () => {
    const s = await setup();
    await spill(s.dir, change(s.entry.id, 'done', s.db), SYSTEM);
    const again = await s.pay();
    expect(again.code, again.stderr).toBe(8);
    expect(again.stderr).toMatch(/already paid/);
    expect(s.row()).toBe('done -');
    expect(readFileSync(spillPath(s.dir), 'utf8')).toBe('');
  });

  it('a spill edited by hand (done → failed) is exit 8 and named by pix ledger status; the database is left as it was, nothing is paid', async () => {
    const s = await setup();
    await spill(s.dir, change(s.entry.id, 'done', s.db), SYSTEM);
    const path = spillPath(s.dir);
    writeFileSync(path, readFileSync(path, 'utf8').replace('"done"', '"failed"'));
    const paid = await s.pay();
    expect(paid.code, paid.stderr).toBe(8);
    expect(paid.stderr).toMatch(
      /the ledger spill file cannot be trusted: \S+ledger-spill\.jsonl line 1: .*; nothing was sent/,
    );
    expect(s.transfers()).toBe(0);
    expect(s.row()).toBe('sending -');
    const status = await s.pix(['ledger', 'status', '--json']);
    expect(status.code).toBe(8);
    expect(JSON.parse(status.stdout).spillProblem).toMatch(
      /ledger-spill\.jsonl line 1: the last line is not the one its checkpoint recorded/,
    );
    // Readers still read, with a warning.
    const listed = await s.pix(['journal', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toMatch(/warning: the ledger spill file cannot be trusted/);
  });

  it('a spilled outcome the database contradicts (resolved not paid there) is exit 8, named, and not written', async () => {
    const s = await setup();
    const resolved = await s.pix(['journal', 'resolve', s.entry.id.slice(0, 8), '--not-paid']);
    expect(resolved.code, resolved.stderr).toBe(0);
    await spill(s.dir, change(s.entry.id, 'done', s.db), SYSTEM);
    const paid = await s.pay();
    expect(paid.code, paid.stderr).toBe(8);
    expect(paid.stderr).toMatch(
      new RegExp(
        `journal entry ${s.entry.id} ended done here, but was resolved not-paid on the ledger; nothing was sent`,
      ),
    );
    expect(s.transfers()).toBe(0);
    expect(s.row()).toBe('unknown not-paid');
    const status = await s.pix(['ledger', 'status']);
    expect(status.code).toBe(8);
    expect(status.stdout).toMatch(
      /spill problem\s+journal entry \S+ ended done here, but was resolved not-paid/,
    );
  });
});
