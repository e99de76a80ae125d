/**
 * Least privilege that works, on a real PostgreSQL that asks passwords (scram-sha-256): the roles and the
 * grants of docs/team.md exactly, the owner's one `pix ledger init`, the runtime role keeping its URL with
 * `pix ledger use` (creating nothing), paying, and unable to create or drop; each way a database can refuse
 * told apart with its own hint; the password taken from the URL alone (never PGPASSWORD); a URL that does
 * not read (an `@` in a password) never shown in any part. In-process pix on the embedded sandbox, and the
 * built binary where the process's own environment matters (PGPASSWORD).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../../src/journal/postgres/schema.js';
import { run } from '../../../src/main.js';
import { deferEach } from '../../helpers/cleanup.js';
import { runCli } from '../../helpers/cli.js';
import { createTestIO } from '../../helpers/io.js';
import { type Cluster, postgresMissing, startPostgres } from '../../helpers/postgres.js';

const TEAM_DOC = readFileSync(new URL('../../../docs/team.md', import.meta.url), 'utf8');
const missing = postgresMissing();
let cluster: Cluster | undefined;
beforeAll(async () => {
  if (missing === undefined) cluster = await startPostgres({ superuser: 'admin', passwords: true });
});
afterAll(() => cluster?.remove());
const deferred = deferEach();

/** The runtime role's password: an `@`, a `/` and a `:` in it, as a generated one may have. */
const RUNNER_PASSWORD = 'p@ss-S3cr3t/x:9';
const OWNER_PASSWORD = 'owner-Pw-7Qd';
/** Every part of the password a leak could show. */
const PARTS = ['p@ss', 'S3cr3t', 'ss-S3', 'owner-Pw'];

function setup() {
  const dir = deferred.dir();
  const pix = async (args: string[], env: Record<string, string> = {}, stdin?: string) => {
    const test = createTestIO(stdin === undefined ? {} : { stdin });
    const code = await run(args, {
      io: test.io,
      env: { PIX_CONFIG_DIR: dir, PATH: process.env.PATH ?? '', ...env },
    });
    const result = { code, stdout: test.stdout(), stderr: test.stderr() };
    for (const part of PARTS) expect(`${result.stdout}${result.stderr}`, args.join(' ')).not.toContain(part);
    return result;
  };
  return { dir, pix };
}

/** The SQL of docs/team.md's least-privilege block: the administrator's heredoc, and the owner's grants. */
function teamSql(): { admin: string[]; grants: string[] } {
  const section = /### The role pix needs[\s\S]*?```sh\n([\s\S]*?)```/.exec(TEAM_DOC)![1]!;
  const heredocs = [...section.matchAll(/<<'SQL'[^\n]*\n([\s\S]*?)\nSQL\n/g)].map((match) =>
    match[1]!.split('\n'),
  );
  expect(heredocs).toHaveLength(2);
  return { admin: heredocs[0]!, grants: heredocs[1]! };
}

const encode = (text: string) => encodeURIComponent(text);

describe.skipIf(missing !== undefined)('the least privilege of docs/team.md, end to end', () => {
  let port = 0;
  let ownerUrl = '';
  let runnerUrl = '';
  const url = (role: string, password: string | undefined, database = 'pix_ledger') =>
    `postgres://${role}${password === undefined ? '' : `:${encode(password)}`}@127.0.0.1:${port}/${database}?sslmode=disable`;
  const psqlAs = (target: string, sql: string) =>
    spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', target, '-c', sql], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });

  beforeAll(() => {
    const c = cluster!;
    port = c.port;
    ownerUrl = url('pix_owner', OWNER_PASSWORD);
    runnerUrl = url('pix', RUNNER_PASSWORD);
    // The administrator runs docs/team.md as written, the passwords filled in; `\c` as psql does.
    const { admin } = teamSql();
    const script = admin
      .join('\n')
      .replace("PASSWORD 'owner-S3cret'", `PASSWORD '${OWNER_PASSWORD}'`)
      .replace("PASSWORD 'p@ss-S3cret'", `PASSWORD '${RUNNER_PASSWORD}'`);
    expect(script).toContain(RUNNER_PASSWORD);
    execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', c.url('postgres')], {
      input: script,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
  });

  it('the runtime role cannot init, is told apart from a missing schema, keeps its URL with `ledger use`, pays, and cannot create or drop', async () => {
    const { dir, pix } = setup();
    // Before the owner's init: the schema is not there.
    const early = await pix(['ledger', 'use', '--url-stdin'], {}, runnerUrl);
    expect(early.code).toBe(6);
    expect(early.stderr).toMatch(
      /^error: the shared ledger postgres:\/\/127\.0\.0\.1:\d+\/pix_ledger has no pix schema; nothing was kept\nhint: the schema's owner runs `pix ledger init` once/,
    );
    // The runtime role may not create tables: init says so, and what to run instead.
    const init = await pix(['ledger', 'init', '--url-stdin'], {}, runnerUrl);
    expect(init.code).toBe(6);
    expect(init.stderr).toMatch(
      /^error: the shared ledger postgres:\/\/127\.0\.0\.1:\d+\/pix_ledger refused role "pix" \(permission denied for schema public\); nothing was sent\nhint: init creates and migrates pix's tables: run it as the role that owns the schema \(docs\/team\.md\); to keep this URL in the profile without creating anything: `pix ledger use --url-stdin`/,
    );
    // The owner's one-off.
    const owner = setup();
    expect((await owner.pix(['ledger', 'init', '--url-stdin'], {}, ownerUrl)).code).toBe(0);
    // Before the grants: a grant is missing, and said so.
    const ungranted = await pix(['ledger', 'use', '--url-stdin'], {}, runnerUrl);
    expect(ungranted.code).toBe(6);
    expect(ungranted.stderr).toMatch(
      /refused role "pix" \(permission denied for table pix_schema\); nothing was sent\nhint: the role lacks a grant of docs\/team\.md/,
    );
    // The owner gives exactly docs/team.md's grants.
    const granted = psqlAs(ownerUrl, teamSql().grants.join('\n'));
    expect(granted.status, granted.stderr).toBe(0);
    const used = await pix(['ledger', 'use', '--url-stdin', '--json'], {}, runnerUrl);
    expect(used.code, used.stderr).toBe(0);
    expect(JSON.parse(used.stdout)).toEqual({
      ledger: `postgres://127.0.0.1:${port}/pix_ledger`,
      schema: SCHEMA_VERSION,
      profile: 'sandbox',
    });
    // The URL is kept in the profile (0600), nothing in the database changed by it.
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config.profiles.sandbox.ledger).toBe(runnerUrl);
    const paid = await pix(['pay', 'key', 'ana@example.com', '--amount', '10', '--yes']);
    expect(paid.code, paid.stderr).toBe(0);
    const status = await pix(['ledger', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      backend: 'postgres',
      schema: SCHEMA_VERSION,
      payments: 1,
    });
    // The runtime role can create nothing and drop nothing, delete no row.
    expect(psqlAs(runnerUrl, 'CREATE TABLE mine (a int)').stderr).toMatch(
      /permission denied for schema public/,
    );
    expect(psqlAs(runnerUrl, 'DROP TABLE pix_journal').stderr).toMatch(/must be owner of table pix_journal/);
    expect(psqlAs(runnerUrl, 'DELETE FROM pix_journal').stderr).toMatch(
      /permission denied for table pix_journal/,
    );
  });

  it('a wrong password, PGPASSWORD instead of one, a database that is not there, a server not there: each told apart', async () => {
    const { pix } = setup();
    const wrong = await pix(['ledger', 'use', '--url-stdin'], {}, url('pix', 'not-the-password'));
    expect(wrong.code).toBe(6);
    expect(wrong.stderr).toMatch(
      /^error: the shared ledger postgres:\/\/127\.0\.0\.1:\d+\/pix_ledger refused the login of role "pix" \(password authentication failed for user "pix"\); nothing was sent\nhint: check the user and password in the ledger's URL: pix takes the password from the URL alone, never PGPASSWORD or ~\/\.pgpass/,
    );
    // The right password in PGPASSWORD (and libpq's other variables), none in the URL: the URL's (none) is
    // what is sent. The built binary, so the variables are the process's own, where the driver would look.
    const fromEnv = await runCli(['ledger', 'use', '--url-stdin'], {
      env: {
        PIX_CONFIG_DIR: deferred.dir(),
        PGPASSWORD: RUNNER_PASSWORD,
        PGUSER: 'pix_owner',
        PGHOST: '203.0.113.9',
        PGDATABASE: 'postgres',
      },
      stdin: url('pix', undefined),
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(6);
    expect(fromEnv.stderr).toMatch(
      /the shared ledger postgres:\/\/127\.0\.0\.1:\d+\/pix_ledger refused the login of role "pix" \(password authentication failed for user "pix"\)/,
    );
    const noDatabase = await pix(
      ['ledger', 'use', '--url-stdin'],
      {},
      url('pix', RUNNER_PASSWORD, 'nowhere'),
    );
    expect(noDatabase.code).toBe(6);
    expect(noDatabase.stderr).toMatch(
      /\/nowhere has no such database \(database "nowhere" does not exist\); nothing was sent\nhint: check the database's name/,
    );
    const closed = `postgres://pix:${encode(RUNNER_PASSWORD)}@127.0.0.1:9/pix_ledger?sslmode=disable&connect_timeout=2`;
    const unreachable = await pix(['ledger', 'use', '--url-stdin'], {}, closed);
    expect(unreachable.code).toBe(6);
    expect(unreachable.stderr).toMatch(
      /postgres:\/\/127\.0\.0\.1:9\/pix_ledger could not be reached \(.*ECONNREFUSED.*\); nothing was sent\nhint: the statement can still be read; payments wait until the database answers/,
    );
  });

  it('an unencoded @ in the password: exit 2, no part of the URL shown or looked up, in use, init, status and auth status', async () => {
    const { pix } = setup();
    const raw = `postgres://pix:${RUNNER_PASSWORD.replace('/', '%2F')}@127.0.0.1:${port}/pix_ledger`;
    for (const args of [
      ['ledger', 'use', '--url-stdin'],
      ['ledger', 'init', '--url-stdin'],
    ]) {
      const refused = await pix(args, {}, raw);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr, args.join(' ')).toBe(
        "error: --url-stdin: the ledger URL has an '@' besides the one before its host: write an @ : / ? # of its user or password as %40 %3A %2F %3F %23 (the URL is not shown: it may hold a password)\nhint: docs/team.md shows the URL pix takes\n",
      );
    }
    const status = await pix(['ledger', 'status', '--json'], { PIX_LEDGER_URL: raw });
    expect(status.code).toBe(2);
    expect(status.stdout).toBe('');
    const auth = await pix(['auth', 'status', '--json'], { PIX_LEDGER_URL: raw });
    expect(JSON.parse(auth.stdout).ledger.value).toBe('postgres://(a URL pix cannot read)');
    // Encoded, the same password works.
    const encoded = await pix(['ledger', 'use', '--url-stdin'], {}, url('pix', RUNNER_PASSWORD));
    expect(encoded.code, encoded.stderr).toBe(0);
  });
});
