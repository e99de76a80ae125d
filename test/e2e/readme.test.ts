/**
 * The README's shell examples run as a reader copies them (the mechanism: test/helpers/shellblocks.ts). Each
 * block (```sh, ```bash, ```shell, or the `$ `
 * lines of a ```console session) is pasted whole into bash on a pseudo-terminal (a question gets its `y`),
 * in a fresh HOME (so ~/.config/pix is new: a fresh embedded sandbox), with `pix` and `npx pix` the built
 * binary. Blocks share nothing: a block defines every variable and file it uses (`set -u` catches one that
 * does not). The block runs under `set -euo pipefail`, so every line must exit 0, and none may show an
 * empty statement or ledger (`no entries …`: a range a fresh sandbox has nothing in). No request leaves the
 * machine: HTTPS_PROXY points at a closed loopback port (pix never proxies loopback).
 *
 * Not run: a line whose comment says `# template: …` (a form to fill in with your own account or files,
 * visibly so), and the few lines of NOT_RUN, each with its reason. Both lists are checked whole, so a new
 * line that cannot run must be marked and counted here.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { exampleBin, pool } from '../helpers/cli.js';
import { type Block, documentBlocks, linesScript, NOT_SHELL, runs, SHELL } from '../helpers/shellblocks.js';
import { tempDir } from '../helpers/temp.js';
import { type PtyResult, runOnPty } from '../helpers/terminal.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** README lines shown but not run (besides `# template:` lines), by command without its comment, each with its reason. */
const NOT_RUN = new Map<string, string>([
  [
    'npm install && npx pix statement',
    'the set-up promise: scripts/check-readme-setup.mjs runs it in a fresh clone, HOME empty (.ci/run)',
  ],
  ['npm install && npm test', 'the set-up promise: .ci/run runs it on a clean clone'],
  [
    'npm install && npm install -g .',
    'installs globally: scripts/check-readme-setup.mjs runs it in a fresh clone (.ci/run)',
  ],
  ['pix statement --follow', 'a live view until Ctrl-C (test/e2e/statement-follow.test.ts)'],
  [
    'pix statement --follow -o ndjson | jq -c .',
    'a live view until Ctrl-C (test/e2e/statement-follow.test.ts)',
  ],
  [
    'pix statement --follow --limit 0 --interval 10s',
    'a live view until Ctrl-C (test/e2e/statement-follow.test.ts)',
  ],
  [
    'pix charge immediate --amount 10 --wait',
    'waits for a payer nobody plays here (test/e2e/charge-wait.test.ts)',
  ],
  ['pix sandbox serve --port 8080', 'a server until Ctrl-C (test/sandbox covers serve)'],
  ['pix listen', 'a listener until Ctrl-C (test/e2e/listen.test.ts)'],
  ['pix listen --forward-to http://127.0.0.1:3000/pix', 'a listener until Ctrl-C (test/e2e/listen.test.ts)'],
  ['pix listen --exec ./on-event.sh --backfill 24h', 'a listener until Ctrl-C (test/e2e/listen.test.ts)'],
]);

/** The lines marked `# template:`, all of them: one more must be added here, on purpose. */
const TEMPLATES = [
  'echo "$TOKEN" | pix login --with-token --base-url https://api.example.com',
  'echo "$TOKEN" | pix login --with-token --base-url https://api.example.com',
  'PIX_CLIENT_SECRET=… pix login --profile prod --client-key my-key --base-url https://api.example.com',
  'pix login --profile prod --client-key my-key --tls-cert client.pem --tls-key client.key',
  'pix pay batch payouts.csv --plan plans/2026-03.json && git add plans && git commit -m "payouts March" && git push',
  'pix plan show plans/2026-03.json && pix plan approve plans/2026-03.json && git add plans && git commit -m approve && git push',
  'pix plan approve plans/2026-03.json --key ~/.ssh/id_ed25519_sk',
  'pix plan execute plans/2026-03.json --yes -o ndjson > report.ndjson',
  'pix sandbox move-key loja@sandbox.pix.local --to other.json',
  'pix pay batch pagamentos.xlsx --dry-run',
  'man pix-statement',
  'printf %s "$OWNER_URL" | pix ledger init --url-stdin',
  'printf %s "$LEDGER_URL" | pix ledger use --url-stdin',
  'pix ledger migrate --from file',
  'pix ledger status',
];

/** What pix says for an empty list: an example showing it on a fresh sandbox shows nothing (a month with no entries). */
const EMPTY = /\bno entries\b|\bno charges in the ledger\b/;

const runsHere = runs(NOT_RUN);

/** The block as one bash script: each line that runs, in order, naming its README line when it fails. */
const blockScript = (block: Block) => linesScript('README.md', block.lines, NOT_RUN);

const blocks = documentBlocks(README);
const shellBlocks = blocks.filter((block) => SHELL.has(block.lang));
const withLines = shellBlocks.filter((block) => block.lines.some(runsHere));
/** The block that serves the sandbox on port 8080 runs only when the port is free (else it is said so). */
const servesOn8080 = (block: Block) =>
  block.lines.some((line) => line.command.includes('serve --port 8080 &'));
const portFree = await new Promise<boolean>((resolve) => {
  const probe = createServer()
    .once('error', () => resolve(false))
    .listen(8080, '127.0.0.1', () => probe.close(() => resolve(true)));
});
const runnable = withLines.filter((block) => portFree || !servesOn8080(block));
const results = new Map<Block, PtyResult & { home: string }>();
let root: string;

beforeAll(async () => {
  root = tempDir('pix-readme-');
  const binDir = exampleBin(join(root, 'bin'));
  const parallel = Math.max(2, Math.min(8, cpus().length));
  await pool(runnable, parallel, async (block) => {
    const home = mkdtempSync(join(root, 'home-'));
    mkdirSync(join(home, '.config', 'fish', 'completions'), { recursive: true }); // as installing fish does
    const result = await runOnPty([], {
      env: {
        PATH: `${binDir}:${process.env.PATH ?? ''}`,
        HOME: home,
        SHELL: '/bin/bash',
        LANG: 'C.UTF-8',
        CI: 'true',
        // Nothing leaves the machine: every non-loopback request goes to a closed port.
        HTTPS_PROXY: 'http://127.0.0.1:9',
        HTTP_PROXY: 'http://127.0.0.1:9',
      },
      columns: 100,
      rows: 40,
      shell: blockScript(block),
      steps: Array.from({ length: 10 }, () => ({ after: '[y/N]', send: 'y\r' })),
      timeoutMs: 90_000,
    });
    results.set(block, { ...result, home });
  });
}, 240_000);

describe('the README shell examples', () => {
  it('are found: every shell block, the console session among them; no other kind of block', () => {
    expect(shellBlocks.length).toBeGreaterThan(20);
    expect(shellBlocks.flatMap((block) => block.lines).length).toBeGreaterThan(80);
    expect(shellBlocks.some((block) => block.lang === 'console')).toBe(true);
    for (const block of blocks) {
      expect(
        SHELL.has(block.lang) || NOT_SHELL.has(block.lang),
        `README.md:${block.at}: \`\`\`${block.lang}`,
      ).toBe(true);
    }
  });

  it('the lines not run are exactly the templates and NOT_RUN, each still in the README', () => {
    const all = shellBlocks.flatMap((block) => block.lines);
    const commands = all.map((line) => line.command);
    for (const command of NOT_RUN.keys()) expect(commands, command).toContain(command);
    const templates = all.filter((line) => line.template);
    for (const line of templates) expect(line.text, `README.md:${line.at}`).toMatch(/#\s*template: \S/);
    expect(templates.map((line) => line.command)).toEqual(TEMPLATES);
    expect(all.filter((line) => !runsHere(line))).toHaveLength(TEMPLATES.length + NOT_RUN.size);
  });

  it('every block runs as written against a fresh embedded sandbox (exit 0, on a terminal)', (context) => {
    const failures: string[] = [];
    for (const block of runnable) {
      const ran = results.get(block)!;
      const empty = ran.lines.find((line) => EMPTY.test(line));
      if (ran.code === 0 && empty === undefined) continue;
      const shown = ran.lines.filter((line) => line.trim() !== '').slice(-10);
      const what = ran.code === 0 ? `showed nothing to see: ${empty}` : `exit ${ran.code}`;
      failures.push(`README.md:${block.at} (\`\`\`${block.lang})\n  ${what}\n    ${shown.join('\n    ')}`);
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
    if (!portFree)
      context.skip('port 8080 is taken: the README block that serves the sandbox on it was not run');
  });

  it('blocks that claim a result really give it', () => {
    const ran = (command: string) => {
      const block = runnable.find((candidate) => candidate.lines.some((line) => line.command === command));
      expect(block, `still a README line: ${command}`).toBeDefined();
      const result = results.get(block!)!;
      return { screen: result.lines.join('\n'), home: result.home };
    };
    expect(ran('pix keys').screen).toContain('loja@sandbox.pix.local');
    expect(ran('pix pay batch payouts.csv --dry-run').screen).toMatch(
      /batch: 50 paid; R\$ [\d.,]+ paid in this run/,
    );
    const rows = (home: string, file: string) =>
      readFileSync(join(home, file), 'utf8').trimEnd().split('\n').length;
    expect(rows(ran('pix statement --from -60d --limit 20').home, 'statement.csv')).toBeGreaterThan(10); // a header and the entries
    const exports = ran('pix statement --from -30d --all -o xlsx --output-file extrato.xlsx').home;
    expect(readFileSync(join(exports, 'extrato.xlsx')).subarray(0, 2).toString()).toBe('PK');
    expect(readFileSync(join(exports, 'extrato.ofx'), 'utf8').match(/<STMTTRN>/g)?.length).toBeGreaterThan(
      10,
    );
    expect(rows(exports, 'extrato.csv')).toBeGreaterThan(10);
    if (portFree) {
      const served = ran('pix sandbox serve --port 8080 &').home; // the fresh account's 36 entries, read over HTTP
      expect(readFileSync(join(served, 'statement.ndjson'), 'utf8').trimEnd().split('\n')).toHaveLength(36);
    }
    // Money in scripts keeps its two decimals, summed in centavos (a float sum printed 1414.3999999999999).
    const scripting = ran("pix journal --all --unresolved --jq '.results[].id'").screen;
    expect(scripting).toMatch(/^\d+\.\d{2}$/m);
    expect(scripting).not.toMatch(/\d\.\d*(?:9{6}|0{6}[1-9])/);
    const completion = ran('source <(pix completion bash)').home;
    expect(readFileSync(join(completion, '.zfunc', '_pix'), 'utf8')).toMatch(/^#compdef pix/);
    expect(readFileSync(join(completion, '.config', 'fish', 'completions', 'pix.fish'), 'utf8')).toContain(
      'complete -c pix',
    );
  });
});
