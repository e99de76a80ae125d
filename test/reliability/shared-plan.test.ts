/**
 * Two machines, one approved plan (docs/team.md, docs/approvals.md): two config directories on one
 * PostgreSQL ledger run `pix plan execute` of the same plan at once against one sandbox, and again until
 * both exit 0. A plan's rows are claimed in the shared ledger like any batch row (commands/plan/execute.ts
 * pays through payBatchRows, whose claims are the store's: journal/postgres/store.ts): each row is paid
 * once, of its approved amount, whichever machine paid it, and a run after both pays nothing. A real
 * server started by the test (test/helpers/postgres.ts).
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSandboxState } from '../../src/sandbox/store.js';
import { approvalsWorld, type World } from '../helpers/approvals.js';
import { BIN, NODE, runProcess, tempConfigDir } from '../helpers/cli.js';
import { type Cluster, postgresMissing, startPostgres } from '../helpers/postgres.js';

const missing = postgresMissing();
let cluster: Cluster | undefined;
let world: World | undefined;
beforeAll(async () => {
  if (missing === undefined) cluster = await startPostgres();
});
afterAll(async () => {
  await world?.close();
  cluster?.remove();
});

const ROWS = 40;

describe.skipIf(missing !== undefined)('two machines execute one approved plan on a shared ledger', () => {
  it('each row is paid once, of its approved amount; a run after both pays nothing', async () => {
    world = await approvalsWorld(undefined, { latencyMs: 20 });
    const w = world;
    // The ledger kept in the profile (pix ledger init --url-file), then the profile copied to machine b.
    const urlFile = join(w.repo, 'ledger-url');
    writeFileSync(urlFile, cluster!.createDatabase('plans'));
    const init = await w.pix(['ledger', 'init', '--url-file', urlFile]);
    expect(init.code, init.stderr).toBe(0);
    const other = tempConfigDir();
    copyFileSync(join(w.dir, 'config.json'), join(other, 'config.json'));
    const amounts = Array.from({ length: ROWS }, (_, n): [string, string] => [`r${n + 1}`, `${n + 1}.25`]);
    const file = w.batchFile('payouts.csv', amounts);
    const plan = join(w.repo, 'payouts.plan.json');
    await w.make(file, plan);
    await w.approve(plan, 'ana');
    await w.approve(plan, 'bruno');

    const execute = (dir: string) =>
      runProcess(NODE, [BIN, 'plan', 'execute', plan, '--yes', '-o', 'ndjson', '--concurrency', '4'], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: w.repo,
          PIX_CONFIG_DIR: dir,
          PIX_PROFILE: 'prod',
          PIX_TOKEN: 'approvals-token',
        },
        cwd: w.repo,
        timeoutMs: 120_000,
      });
    const paid = new Map<string, number>();
    const count = (stdout: string) => {
      for (const line of stdout.trim().split('\n').filter(Boolean)) {
        const row = JSON.parse(line) as { id: string; state: string };
        if (row.state === 'paid') paid.set(row.id, (paid.get(row.id) ?? 0) + 1);
      }
    };
    let pending = [w.dir, other];
    for (let round = 0; pending.length > 0 && round < 5; round++) {
      const runs = await Promise.all(pending.map(execute));
      // Each run ends paid (0), or holding rows the other machine is paying (8): never an error of its own.
      for (const run of runs) expect([0, 8], run.stderr).toContain(run.code);
      for (const run of runs) count(run.stdout);
      pending = pending.filter((_, n) => runs[n]!.code !== 0);
    }
    expect(pending).toEqual([]);
    // Exactly one transfer per row, each of the row's amount in centavos (every amount is a row's own), and every row
    // reported paid by one machine once.
    const sent = Object.values(readSandboxState(join(w.dir, 'sandbox-state.json'))?.transfers ?? {});
    const byAmount = (a: number, b: number) => a - b;
    expect(sent.map((transfer) => transfer.amount).sort(byAmount)).toEqual(
      amounts.map(([, amount]) => Math.round(Number(amount) * 100)).sort(byAmount),
    );
    expect(paid.size).toBe(ROWS);
    expect([...paid.values()].every((times) => times === 1)).toBe(true);
    const again = await execute(other);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/"state":"paid"/);
    expect(w.server.requests.filter((request) => request.endpoint === 'transfer')).toHaveLength(ROWS);
    // Four pix runs of 40 rows at 20 ms each (4 s alone): a limit far from that on a busy 2-core machine.
  }, 120_000);
});
