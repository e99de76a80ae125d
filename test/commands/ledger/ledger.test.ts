/**
 * `pix ledger init|status|migrate` against a real PostgreSQL (test/helpers/postgres.ts), in-process on the
 * embedded sandbox. The URL is a secret: it never comes from argv and never shows in any output.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { eventFiles } from '../../../src/commands/shared/events.js';
import { attemptLines } from '../../../src/domain/event-log.js';
import { entryEvent } from '../../../src/domain/events.js';
import { fileEventStore } from '../../../src/events/stores.js';
import { JOURNAL_FILE } from '../../../src/journal/entries.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../src/journal/postgres/schema.js';
import { run } from '../../../src/main.js';
import { createContext } from '../../../src/wiring.js';
import { deferEach } from '../../helpers/cleanup.js';
import { createTestIO, type TestIOOptions } from '../../helpers/io.js';
import { clusterPerFile } from '../../helpers/postgres.js';

const TEAM_DOC = new URL('../../../docs/team.md', import.meta.url);
const deferred = deferEach();
const { suite, cluster } = clusterPerFile();
let databases = 0;

/** A database with a password in its URL, so a leak of the URL would show it. */
function database() {
  const name = `cmd_${process.pid}_${++databases}`;
  cluster().createDatabase(name);
  const url = cluster().url(name).replace('postgres://pix@', 'postgres://pix:Sekret-9f2@');
  return { name, url };
}

function setup() {
  const dir = deferred.dir();
  const pix = async (args: string[], env: Record<string, string> = {}, io: TestIOOptions = {}) => {
    const test = createTestIO(io);
    const code = await run(args, { io: test.io, env: { PIX_CONFIG_DIR: dir, ...env } });
    const result = { code, stdout: test.stdout(), stderr: test.stderr() };
    // Whatever the command, the password never reaches its output.
    expect(`${result.stdout}${result.stderr}`).not.toContain('Sekret-9f2');
    return result;
  };
  return { dir, pix };
}

suite('pix ledger', () => {
  it('init keeps a URL read from stdin in the profile; argv is refused; status and auth status show host and database', async () => {
    const { pix } = setup();
    const db = database();
    const argv = await pix(['config', 'set', 'ledger', db.url]);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toMatch(/a database URL is a secret and is never taken from the command line/);
    const init = await pix(['ledger', 'init', '--url-stdin', '--json'], {}, { stdin: `${db.url}\n` });
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout)).toEqual({
      ledger: `postgres://127.0.0.1:${cluster().port}/${db.name}`,
      from: 0,
      to: SCHEMA_VERSION,
      applied: MIGRATIONS.map((migration) => migration.version),
    });
    const again = await pix(['ledger', 'init']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`schema ${SCHEMA_VERSION}, up to date`);
    const status = await pix(['ledger', 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      backend: 'postgres',
      schema: SCHEMA_VERSION,
      entries: 0,
      leases: [],
      events: { made: 0, owed: 0, dead: 0 },
      listeners: [],
    });
    const auth = await pix(['auth', 'status', '--json']);
    expect(JSON.parse(auth.stdout).ledger).toEqual({
      value: `postgres://127.0.0.1:${cluster().port}/${db.name}`,
      source: 'profile',
    });
    // Back to the file ledger by name.
    expect((await pix(['config', 'set', 'ledger', 'file'])).code).toBe(0);
    expect(JSON.parse((await pix(['ledger', 'status', '--json'])).stdout).backend).toBe('file');
  });

  it('a schema newer than this pix: init refuses to touch it (exit 8), payments refuse (exit 6), nothing sent', async () => {
    const { pix } = setup();
    const db = database();
    const env = { PIX_LEDGER_URL: db.url };
    expect((await pix(['ledger', 'init'], env)).code).toBe(0);
    cluster().psql(
      `INSERT INTO pix_schema (version, what, applied_by) VALUES (99, 'future', 'test')`,
      db.name,
    );
    const init = await pix(['ledger', 'init'], env);
    expect(init.code).toBe(8);
    expect(init.stderr).toContain(
      `schema 99 is newer than this pix knows (${SCHEMA_VERSION}); nothing was changed`,
    );
    const pay = await pix(['pay', 'key', 'ana@example.com', '--amount', '1', '--yes'], env);
    expect(pay.code).toBe(6);
    expect(pay.stderr).toMatch(/has schema 99, newer than this pix knows/);
  });

  it("migrate --from file moves this machine's payments and charges; again imports nothing; the paid rows stay paid", async () => {
    const { dir, pix } = setup();
    const file = join(dir, 'rows.csv');
    writeFileSync(file, 'id,key,amount\nr1,ana@example.com,10.00\nr2,bruno@example.com,11.00\n');
    expect((await pix(['pay', 'batch', file, '--yes'])).code).toBe(0);
    const charge = await pix(['charge', 'immediate', '--amount', '7', '--no-qr', '--json']);
    expect(charge.code, charge.stderr).toBe(0);
    const db = database();
    const env = { PIX_LEDGER_URL: db.url };
    expect((await pix(['ledger', 'init'], env)).code).toBe(0);
    const first = await pix(['ledger', 'migrate', '--from', 'file', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    // With the account this directory learned (its bank details), and the credentials seen to reach it.
    expect(JSON.parse(first.stdout)).toMatchObject({
      entries: 3,
      imported: 3,
      present: 3,
      accounts: { accounts: 1, credentials: 1 },
    });
    const second = await pix(['ledger', 'migrate', '--from', 'file', '--json'], env);
    expect(JSON.parse(second.stdout)).toMatchObject({ entries: 3, imported: 0, present: 3 });
    const rerun = await pix(['pay', 'batch', file, '--yes', '-o', 'ndjson'], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(
      rerun.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).state),
    ).toEqual(['already_paid', 'already_paid']);
    const charges = await pix(['charge', 'list', '--json'], env);
    expect(JSON.parse(charges.stdout).results.map((c: { id: string }) => c.id)).toEqual([
      JSON.parse(charge.stdout).id,
    ]);
    const status = JSON.parse((await pix(['ledger', 'status', '--json'], env)).stdout);
    expect(status).toMatchObject({ entries: 3, payments: 2, charges: 1, unresolved: 0, accounts: 1 });
  });

  it('a ledger on an older schema (2, before accounts): payments refuse naming `pix ledger init` (exit 6, nothing sent); once migrated they pay', async () => {
    const { pix } = setup();
    const db = database();
    const env = { PIX_LEDGER_URL: db.url };
    // The schema as a pix of schema 2 left it: its migrations applied, accounts not there yet.
    const { SCHEMA_TABLE } = await import('../../../src/journal/postgres/schema.js');
    cluster().psql(SCHEMA_TABLE, db.name);
    for (const migration of MIGRATIONS.filter((m) => m.version <= 2)) {
      cluster().psql(
        `${migration.sql}; INSERT INTO pix_schema (version, what, applied_by) VALUES (${migration.version}, 'then', 'test')`,
        db.name,
      );
    }
    const before = await pix(['pay', 'key', 'ana@example.com', '--amount', '1', '--yes'], env);
    expect(before.code, before.stderr).toBe(6);
    expect(before.stderr).toContain(`has schema 2; this pix needs ${SCHEMA_VERSION}; nothing was sent`);
    expect(before.stderr).toMatch(/hint: run `pix ledger init` to migrate it/);
    expect(cluster().psql('SELECT count(*) FROM pix_journal', db.name).trim()).toBe('0');
    const status = await pix(['ledger', 'status', '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ schema: 2, accounts: null });
    const init = await pix(['ledger', 'init', '--json'], env);
    expect(JSON.parse(init.stdout)).toMatchObject({
      from: 2,
      to: SCHEMA_VERSION,
      applied: MIGRATIONS.filter((m) => m.version > 2).map((m) => m.version),
    });
    const after = await pix(['pay', 'key', 'ana@example.com', '--amount', '1', '--yes'], env);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse((await pix(['ledger', 'status', '--json'], env)).stdout)).toMatchObject({
      schema: SCHEMA_VERSION,
      payments: 1,
      accounts: 1,
    });
  });

  // Eight pix runs and two roles (9 s alone with the load average at 16 on two cores): a minute, as the
  // other multi-process tests have.
  it('runs with the least privilege docs/team.md grants: an owner runs init, a plain role pays and resolves', {
    timeout: 60_000,
  }, async () => {
    const { dir, pix } = setup();
    const name = `priv_${process.pid}_${++databases}`;
    const owner = `owner_${name}`;
    const runner = `runner_${name}`;
    cluster().psql(`CREATE ROLE ${owner} LOGIN; CREATE ROLE ${runner} LOGIN`);
    cluster().psql(`CREATE DATABASE ${name} OWNER ${owner}`);
    cluster().psql(
      `REVOKE ALL ON SCHEMA public FROM PUBLIC; GRANT ALL ON SCHEMA public TO ${owner}; GRANT USAGE ON SCHEMA public TO ${runner}`,
      name,
    );
    const as = (role: string) => cluster().url(name).replace('postgres://pix@', `postgres://${role}@`);
    expect((await pix(['ledger', 'init'], { PIX_LEDGER_URL: as(owner) })).code).toBe(0);
    // The grants of docs/team.md, as the owner gives them (the second heredoc of its least-privilege block).
    const grants = readFileSync(TEAM_DOC, 'utf8')
      .match(/^GRANT .* TO pix;$/gm)!
      .slice(1);
    expect(grants.length).toBe(16);
    execFileSync('psql', [
      '-X',
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-d',
      as(owner),
      '-c',
      grants.join('\n').replaceAll(' TO pix;', ` TO ${runner};`),
    ]);
    const env = { PIX_LEDGER_URL: as(runner) };
    const file = join(dir, 'rows.csv');
    writeFileSync(file, 'id,key,amount\nr1,ana@example.com,10.00\n');
    const paid = await pix(['pay', 'batch', file, '--yes'], env);
    expect(paid.code, paid.stderr).toBe(0);
    expect((await pix(['ledger', 'status', '--json'], env)).code).toBe(0);
    // pix listen's state: the account's signing secret is kept, its events listed.
    const secret = await pix(['listen', '--print-secret'], env);
    expect(secret.code, secret.stderr).toBe(0);
    expect((await pix(['events', 'list', '--json'], env)).code).toBe(0);
    // Scheduled payments: schedules kept, listed.
    const scheduled = await pix(
      ['schedule', 'create', '--key', 'ana@example.com', '--amount', '3', '--at', '+1d', '--yes'],
      env,
    );
    expect(scheduled.code, scheduled.stderr).toBe(0);
    expect((await pix(['schedule', 'list', '--json'], env)).code).toBe(0);
    // Nothing more than that: the runner can delete no row of the journal.
    const deletes = cluster().psql(`SELECT has_table_privilege('${runner}', 'pix_journal', 'DELETE')`, name);
    expect(deletes.trim()).toBe('f');
  });

  it("migrate --from file imports pix listen's event log: each event by id with its delivery, the cursor and the signing secret; again imports nothing", async () => {
    const { dir, pix } = setup();
    // A listener of this directory made three events and delivered one (the file store, as pix listen does).
    const test = createTestIO();
    const { deps } = createContext({ argv: [], io: test.io, env: { PIX_CONFIG_DIR: dir } });
    const files = await eventFiles(deps);
    const store = fileEventStore(files, deps);
    const context = { account: files.account.id, profile: files.profile };
    const made = ['e-1', 'e-2', 'e-3'].map((id) =>
      entryEvent({ id, type: 'INCOME', confirmedAt: '2026-11-25T11:00:00Z', amount: 1 }, context),
    );
    await store.restore();
    await store.record(made);
    await store.write(attemptLines(made[0]!.id, '2026-11-25T11:00:01.000Z', { ok: true, status: 200 }));
    await store.checkpoint({ statement: { recent: ['e-3'] }, journal: null, at: '2026-11-25T11:00:02.000Z' });
    const secret = await store.secret();
    const db = database();
    const env = { PIX_LEDGER_URL: db.url };
    expect((await pix(['ledger', 'init'], env)).code).toBe(0);
    const first = await pix(['ledger', 'migrate', '--from', 'file', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).events).toEqual({ logs: 1, events: 3, imported: 3, present: 3 });
    const second = await pix(['ledger', 'migrate', '--from', 'file', '--json'], env);
    expect(JSON.parse(second.stdout).events).toEqual({ logs: 1, events: 3, imported: 0, present: 3 });
    // The same events, byte for byte, with their delivery; the cursor and the secret are the account's now.
    expect(
      cluster().psql('SELECT body, state FROM pix_events ORDER BY seq', db.name).trim().split('\n'),
    ).toEqual(made.map((event, n) => `${JSON.stringify(event)}|${n === 0 ? 'delivered' : 'pending'}`));
    expect(cluster().psql(`SELECT cursor->'statement'->>'recent' FROM pix_listen`, db.name).trim()).toBe(
      '["e-3"]',
    );
    const printed = await pix(['listen', '--print-secret'], env);
    expect(printed.stdout.trim()).toBe(secret);
    const listed = await pix(['events', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout).results.map((event: { id: string }) => event.id)).toEqual(
      made.map((event) => event.id).reverse(),
    );
    const status = JSON.parse((await pix(['ledger', 'status', '--json'], env)).stdout);
    expect(status.events).toEqual({ made: 3, owed: 2, dead: 0 });
  });

  it('migrate refuses a file journal with a damaged line (exit 8), importing nothing', async () => {
    const { dir, pix } = setup();
    expect((await pix(['pay', 'key', 'ana@example.com', '--amount', '1', '--yes'])).code).toBe(0);
    appendFileSync(join(dir, JOURNAL_FILE), '{"id": "x", "state": "weird"}\n');
    const db = database();
    const env = { PIX_LEDGER_URL: db.url };
    expect((await pix(['ledger', 'init'], env)).code).toBe(0);
    const migrate = await pix(['ledger', 'migrate', '--from', 'file'], env);
    expect(migrate.code).toBe(8);
    expect(migrate.stderr).toMatch(/the file journal is damaged: .*journal.jsonl line 3: /);
    expect(cluster().psql('SELECT count(*) FROM pix_journal', db.name).trim()).toBe('0');
  });
});
