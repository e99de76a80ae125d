/**
 * A throwaway PostgreSQL cluster for the shared ledger's tests: the machine's own server binaries
 * (`initdb`, `pg_ctl`; scripts/provision-postgres.sh installs them), a data directory in a temporary
 * folder, a free loopback port, trust authentication for one role, removed afterwards. initdb refuses
 * root: run as root, the cluster is made and run as the `postgres` user. No mock of the database.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';

/** The directory of initdb and pg_ctl, or undefined when the server is not installed. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  return found === '' ? undefined : join(found, '..');
}

/** Why the PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresMissing(): string | undefined {
  return postgresBin() === undefined
    ? 'PostgreSQL server binaries (initdb, pg_ctl) are not installed: run scripts/provision-postgres.sh'
    : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Cluster {
  port: number;
  /** `postgres://SUPERUSER@127.0.0.1:PORT/DATABASE` (the superuser is `pix` unless said), trusted: no password. */
  url(database?: string): string;
  /** Creates a database (owned by the superuser) and returns its URL. */
  createDatabase(name: string): string;
  /** Runs SQL in a database through psql; returns its unaligned output. */
  psql(sql: string, database?: string): string;
  /** Stops the server at once (as a crash would: `-m immediate`), or cleanly. */
  stop(mode?: 'immediate' | 'fast'): void;
  start(): void;
  /** Stops it and removes its directory. */
  remove(): void;
}

export interface ClusterOptions {
  /** The superuser's name (default `pix`); a test that runs docs/team.md as written needs its `pix` free. */
  superuser?: string;
  /**
   * Password authentication (scram-sha-256) over TCP for every role but the superuser, as a real server
   * asks it; default: trust for all (a password in a URL is then ignored).
   */
  passwords?: boolean;
}

/** Starts a cluster; call `remove()` (afterAll) to end it. */
export async function startPostgres(given: ClusterOptions = {}): Promise<Cluster> {
  const superuser = given.superuser ?? 'pix';
  const bin = postgresBin();
  if (bin === undefined) throw new Error(postgresMissing());
  const root = mkdtempSync(join(tmpdir(), 'pix-pg-'));
  const data = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
    chmodSync(root, 0o700);
  }
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
      cwd: root,
    });
    if (result.status !== 0) {
      throw new Error(
        `${tool} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`,
      );
    }
    return result.stdout;
  };
  run('initdb', [
    '-D',
    data,
    '-U',
    superuser,
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  if (given.passwords) {
    // The superuser as before; everyone else proves a password (pg_hba.conf is read top down).
    writeFileSync(
      join(data, 'pg_hba.conf'),
      `local all all trust\nhost all ${superuser} 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n`,
    );
  }
  const port = await freePort();
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const start = () => {
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(root, 'log'), '-w', '-t', '60', 'start']);
  };
  start();
  const url = (database = 'postgres') =>
    `postgres://${superuser}@127.0.0.1:${port}/${database}?sslmode=disable`;
  const psql = (sql: string, database = 'postgres') =>
    execFileSync('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url(database), '-c', sql], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
  let stopped = false;
  const cluster: Cluster = {
    port,
    url,
    createDatabase(name) {
      psql(`CREATE DATABASE "${name}" OWNER "${superuser}"`);
      return url(name);
    },
    psql,
    stop(mode = 'fast') {
      if (stopped) return;
      run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      stopped = true;
    },
    start() {
      if (!stopped) return;
      start();
      stopped = false;
    },
    remove() {
      try {
        cluster.stop('immediate');
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
  return cluster;
}

/**
 * One cluster for the tests of a file: started before them where PostgreSQL's server is installed and
 * removed after them. `missing` says why it is not (postgresMissing()), `suite` is `describe` or
 * `describe.skip` accordingly, and `cluster()` is the running cluster inside a test.
 */
export function clusterPerFile() {
  const missing = postgresMissing();
  let started: Cluster | undefined;
  beforeAll(async () => {
    if (missing === undefined) started = await startPostgres();
  });
  afterAll(() => started?.remove());
  const cluster = () => {
    if (started === undefined) throw new Error(missing ?? 'the cluster is started before the tests');
    return started;
  };
  return { missing, suite: missing === undefined ? describe : describe.skip, cluster };
}
