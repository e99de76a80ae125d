/**
 * The guides of docs/ run as a reader follows them (the README's mechanism: test/helpers/shellblocks.ts):
 * docs/approvals.md and docs/team.md, each from nothing to a paid, approved plan on two machines (two config
 * directories), their shell blocks in order in one bash on a pseudo-terminal, a fresh HOME, `pix` the built
 * binary. docs/team.md is given what it says a reader has at hand: `ADMIN_URL`, a superuser of a PostgreSQL
 * server (a throwaway one here, asking passwords of every other role, as a real one does). No request leaves
 * the machine.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleBin } from '../helpers/cli.js';
import { type Cluster, postgresMissing, startPostgres } from '../helpers/postgres.js';
import { documentBlocks, linesScript, runs, SHELL } from '../helpers/shellblocks.js';
import { tempDir } from '../helpers/temp.js';
import { runOnPty } from '../helpers/terminal.js';

const doc = (name: string) => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));

interface Guide {
  file: string;
  /** Lines shown but not run, by command without its comment, with the reason. */
  notRun: Map<string, string>;
  /** The lines marked `# template:`, all of them. */
  templates: string[];
}

const GUIDES: Record<'approvals' | 'team', Guide> = {
  approvals: {
    file: doc('approvals.md'),
    notRun: new Map(),
    templates: [
      `printf 'approve %s\\nat: %s\\n' "$(jq -r .id payouts.plan.json)" "$(jq -r .at payouts.plan.json.approvals/SHA256-….json)" | ssh-keygen -Y verify -f allowed_signers -I ana@example.com -n pix-plan -s <(jq -r .signature payouts.plan.json.approvals/SHA256-….json)`,
    ],
  },
  team: { file: doc('team.md'), notRun: new Map(), templates: [] },
};

/** Runs a guide's shell blocks, in order, in one shell; the HOME it ran in and what the terminal showed. */
async function follow(guide: Guide, env: Record<string, string> = {}) {
  const root = tempDir('pix-guide-');
  const home = mkdtempSync(join(root, 'home-'));
  const lines = documentBlocks(guide.file)
    .filter((block) => SHELL.has(block.lang))
    .flatMap((block) => block.lines);
  const result = await runOnPty([], {
    env: {
      PATH: `${exampleBin(join(root, 'bin'))}:${process.env.PATH ?? ''}`,
      HOME: home,
      SHELL: '/bin/bash',
      LANG: 'C.UTF-8',
      CI: 'true',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      ...env,
    },
    columns: 120,
    rows: 40,
    shell: linesScript(guide.file.replace(/^.*\/docs\//, 'docs/'), lines, guide.notRun),
    steps: Array.from({ length: 10 }, () => ({ after: '[y/N]', send: 'y\r' })),
    timeoutMs: 150_000,
  });
  return { ...result, home, screen: result.lines.join('\n'), lines: result.lines, all: lines };
}

describe('each guide says what it does not run, exactly', () => {
  it.each(Object.entries(GUIDES))('%s', (_name, guide) => {
    const all = documentBlocks(guide.file)
      .filter((block) => SHELL.has(block.lang))
      .flatMap((block) => block.lines);
    expect(all.length).toBeGreaterThan(10);
    expect(all.filter((line) => line.template).map((line) => line.command)).toEqual(guide.templates);
    for (const command of guide.notRun.keys()) expect(all.map((line) => line.command)).toContain(command);
    expect(all.filter((line) => !runs(guide.notRun)(line))).toHaveLength(
      guide.templates.length + guide.notRun.size,
    );
  });
});

describe('docs/approvals.md, from nothing to a paid plan on two machines (files only)', () => {
  it('runs as written: the policy bound, a plain payment refused, the plan made, approved, paid once', async () => {
    const ran = await follow(GUIDES.approvals);
    expect(ran.code, ran.lines.slice(-15).join('\n')).toBe(0);
    expect(ran.screen).toMatch(/refused \(8\): plans only/);
    expect(ran.screen).toMatch(/carla made this plan \(their key signed it\)/);
    const journal = readFileSync(join(ran.home, 'ci', 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { state?: string });
    expect(journal.filter((line) => line.state === 'done')).toHaveLength(3);
    expect(ran.screen).toMatch(/already_paid/);
  }, 180_000);
});

const missing = postgresMissing();
let cluster: Cluster | undefined;
beforeAll(async () => {
  if (missing === undefined) cluster = await startPostgres({ superuser: 'postgres', passwords: true });
});
afterAll(() => cluster?.remove());

describe.skipIf(missing !== undefined)(
  'docs/team.md, from nothing to a paid plan on two machines sharing a ledger',
  () => {
    it('runs as written: roles and grants, the owner init, ledger use, the policy on the ledger, a plan paid once', async () => {
      const ran = await follow(GUIDES.team, { ADMIN_URL: cluster!.url('postgres') });
      expect(ran.code, ran.lines.slice(-15).join('\n')).toBe(0);
      expect(ran.screen).toMatch(/refused \(8\): plans only/);
      expect(ran.screen).toMatch(/approved: ready to execute|done/);
      const done = cluster!
        .psql("SELECT count(*) FROM pix_journal WHERE state = 'done'", 'pix_ledger')
        .trim();
      expect(done).toBe('3');
      // The runtime role's URL is in both machines' profiles; the owner's in the owner's alone.
      for (const machine of ['ci', 'laptop']) {
        expect(readFileSync(join(ran.home, machine, 'config.json'), 'utf8')).toMatch(
          /postgres:\/\/pix:p%40ss-S3cret@/,
        );
      }
    }, 180_000);
  },
);
