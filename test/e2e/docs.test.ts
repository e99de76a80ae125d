/**
 * The documentation cannot rot: every example shown in a command's `--help` and docs/ci.md's "Use in CI"
 * script are run through bash, with the built binary on PATH as `pix`, against the embedded sandbox (a
 * fresh directory and PIX_CONFIG_DIR per example). Each must exit 0, except the few in NOT_RUN below.
 *
 * Examples name things a reader would have at hand ("$CODE", customers.json, a profile called prod).
 * FIXTURES provides them, only to the examples that mention them, and says what each stands for; the ones
 * that make files are made once for all the examples that need them, each example running in a copy.
 *
 * The README's shell blocks are run by test/e2e/readme.test.ts, without fixtures: a README block defines
 * what it uses.
 */
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { wholeProgram } from '../../src/cli/load.js';
import { createContext } from '../../src/wiring.js';
import { type CliResult, exampleBin, runProcess } from '../helpers/cli.js';
import { createTestIO } from '../helpers/io.js';
import { tempDir } from '../helpers/temp.js';

const CI_DOC = fileURLToPath(new URL('../../docs/ci.md', import.meta.url));

/**
 * Examples that are shown but not run, each with its reason. Keep it small: an example that could run
 * against the sandbox belongs in the test, not here. Every entry must still be an example (checked below).
 */
const NOT_RUN = new Map<string, string>([
  [
    'PIX_CLIENT_SECRET=… pix login --profile prod --client-key my-key --base-url https://api.example.com',
    'needs a real account: login mints a token with the client credentials at that URL',
  ],
  [
    'pix login --client-key my-key          # asks for the secret',
    'needs input: asks for the secret at a terminal',
  ],
  ['pix sandbox serve --port 8080', 'a server: runs until Ctrl-C (test/sandbox covers serve)'],
  [
    'pix sandbox move-key loja@sandbox.pix.local --to other-state.json',
    'needs a second state that lacks the key; every fresh state has it (test/reliability/account-ledger.test.ts moves one)',
  ],
  [
    'pix account bind --participant 12345678 --branch 0001 --number 123456-7',
    'binds only an account that lists no key; the sandbox lists four (test/reliability/account-ledger.test.ts binds one)',
  ],
  [
    'pix account bind --participant 12345678 --branch 0001 --number 123456-7 --name "Empresa Ltda" --json',
    'binds only an account that lists no key; the sandbox lists four (test/reliability/account-ledger.test.ts binds one)',
  ],
  [
    'pix listen --forward-to http://127.0.0.1:3000/pix --backfill 1h',
    'runs until Ctrl-C, delivering to a receiver (test/e2e/listen.test.ts)',
  ],
  [
    'pix events resend evt_1a2b3c --forward-to http://127.0.0.1:3000/pix',
    'needs an event of pix listen and a receiver (test/e2e/listen.test.ts resends a dead letter)',
  ],
  ['pix statement --follow -o ndjson', 'runs until Ctrl-C (test/e2e/statement-follow.test.ts covers it)'],
  [
    'printf %s "$LEDGER_URL" | pix ledger init --url-stdin',
    'needs a PostgreSQL database (test/commands/ledger/ledger.test.ts starts one)',
  ],
  ['PIX_LEDGER_URL="$LEDGER_URL" pix ledger status', 'needs a PostgreSQL database (test/commands/ledger)'],
  ['pix ledger migrate --from file', 'needs a PostgreSQL database (test/commands/ledger/ledger.test.ts)'],
  [
    'printf %s "$LEDGER_URL" | pix ledger use --url-stdin',
    'needs a PostgreSQL database (test/commands/ledger/privilege.test.ts)',
  ],
  [
    'pix ledger use --url-file ledger-url',
    'needs a PostgreSQL database (test/commands/ledger/privilege.test.ts)',
  ],
  ['pix ledger migrate --from file --json', 'needs a PostgreSQL database (test/commands/ledger)'],
  [
    'pix schedule run                # a worker on the shared ledger',
    'a worker on a PostgreSQL ledger, until Ctrl-C (test/reliability/schedule-runners.test.ts)',
  ],
  [
    'pix schedule run',
    'a worker on a PostgreSQL ledger, until Ctrl-C (test/reliability/schedule-runners.test.ts)',
  ],
  [
    'pix schedule run --interval 1s -o ndjson >> payouts.ndjson',
    'a worker on a PostgreSQL ledger, until Ctrl-C (test/reliability/schedule-runners.test.ts)',
  ],
  [
    'pix sandbox serve --faults statement:503x2,transfer:timeout',
    'a server: runs until Ctrl-C (test/reliability/faults.test.ts covers --faults)',
  ],
  [
    'pix sandbox serve --max-page 100 --clock-skew 30s --order oldest --names upper-ascii',
    'a server: runs until Ctrl-C (test/sandbox/serversettings.test.ts covers the settings)',
  ],
]);

/**
 * A static BR Code without an amount (the payer chooses it); its key is a random key (EVP) and it names the
 * key's owner in the sandbox, as a real merchant's code does: a code naming someone else is refused under
 * --yes (confirmation of payee), which test/commands/pay/payee.test.ts holds.
 */
const STATIC_CODE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5921Eduarda Rocha Almeida6008BRASILIA62070503***63040A9E';

/** A due-date charge body with the API's field names (API §4.3), as a user keeps in a file. */
const DUEDATE_BODY = {
  duedate: '2030-12-10',
  amount: 150,
  debtor: { name: 'Ana Souza', cpf: '12345678909', city: 'São Paulo', state: 'SP' },
  amountFine: { modality: 'PERCENT', amountPerc: 2 },
};

/** The team of the approvals' examples: keys, a policy naming them approved by its admins, a batch file. */
const TEAM = [
  "mkdir -p -m 700 .ssh && ssh-keygen -q -t ed25519 -N '' -C me@example.com -f .ssh/id_ed25519",
  "ssh-keygen -q -t ecdsa -N '' -C bob@example.com -f .ssh/id_ecdsa && ssh-keygen -q -t ed25519 -N '' -f carol",
  'git init -q && git config user.name Me && git config user.email me@example.com',
  'git config gpg.format ssh && git config user.signingkey "$HOME/.ssh/id_ed25519"',
  `printf '${JSON.stringify({
    'pix-policy': 1,
    approvers: {
      me: { groups: ['finance', 'admins'], keys: ['me@example.com %s'] },
      bob: { groups: ['finance', 'admins'], keys: ['%s'] },
      carol: { groups: ['finance'], keys: ['%s'] },
    },
    rules: [{ name: 'every plan', require: '2 of finance' }],
  })}\\n' "$(cat .ssh/id_ed25519.pub)" "$(cat .ssh/id_ecdsa.pub)" "$(cat carol.pub)" > pix-policy.json`,
  'pix policy approve pix-policy.json >/dev/null 2>&1 && pix policy approve pix-policy.json --key .ssh/id_ecdsa >/dev/null 2>&1',
  'pix config set policy pix-policy.json && { [ -f payouts.csv ] || pix sandbox batch-file --rows 3 > payouts.csv 2>/dev/null; }',
];

interface Fixture {
  /** Whether the example needs it. */
  wanted: (example: string) => boolean;
  /** What it stands for in the reader's world. */
  meaning: string;
  /**
   * bash that makes files and configuration, run once for all the examples that need the same such fixtures,
   * in a directory of its own that each of them then gets a copy of (see templateFor); must succeed. A
   * variable it sets does not reach the example: that is `setup`'s.
   */
  makes?: string;
  /** bash run before the example (in the example's directory, with its PIX_CONFIG_DIR); must succeed. */
  setup?: string;
  /** Files written into the example's directory. */
  files?: Record<string, string>;
}

const mentions = (word: string) => (example: string) => new RegExp(`\\$\\{?${word}\\b`).test(example);

const FIXTURES: Fixture[] = [
  {
    wanted: (example) => mentions('CODE')(example) || /\bpbpaste\b/.test(example),
    meaning: 'CODE: a copied copy-and-paste code, here from a fresh sandbox charge (pbpaste prints it)',
    setup: 'CODE=$(pix charge immediate --amount 10 | cut -f11) && export CODE',
  },
  {
    wanted: mentions('CHARGE_ID'),
    meaning: 'CHARGE_ID: the id of a charge created on the sandbox',
    setup: 'CHARGE_ID=$(pix charge immediate --amount 10 | cut -f1)',
  },
  {
    wanted: mentions('STATIC_CODE'),
    meaning: 'STATIC_CODE: a static BR Code whose payer chooses the amount',
    setup: `STATIC_CODE='${STATIC_CODE}'`,
  },
  {
    wanted: mentions('SCHEDULE'),
    meaning:
      'SCHEDULE: the id of a schedule of R$ 10,00 every 10th, made on 5 March 2026 (sandbox clock); the clock then on 11 March, its first occurrence missed',
    makes:
      'pix sandbox clock --set 2026-03-05T10:00:00-03:00 >/dev/null 2>&1 && pix schedule create --key ana@example.com --amount 10 --every 10 --count 3 --yes > .schedule-id 2>/dev/null && pix sandbox clock --set 2026-03-11T09:00:00-03:00 >/dev/null 2>&1',
    setup: 'SCHEDULE=$(cat .schedule-id)',
  },
  {
    wanted: mentions('TOKEN'),
    meaning: 'TOKEN: a bearer token (login --with-token stores it without a request)',
    setup: 'TOKEN=docs-example-token-0123456789',
  },
  {
    wanted: (example) => /--profile prod\b|profile (use|delete|rename) prod\b/.test(example),
    meaning: 'a profile named prod, logged in with a token; the current profile stays sandbox',
    makes:
      'printf "prod-token-0123456789\\n" | pix login --profile prod --with-token --base-url https://api.example.com 2>/dev/null && pix profile use sandbox 2>/dev/null',
  },
  {
    wanted: (example) => /\bpix journal (show|resolve) 1a2b/.test(example),
    meaning:
      'journal entry 1a2b3c4d…: a payment by key whose outcome is unknown (pix was killed after it left)',
    makes: `mkdir -p -m 700 pix-config && printf '%s\\n%s\\n' '${JSON.stringify({
      id: '1a2b3c4d-0000-4000-8000-000000000001',
      at: '2026-11-20T13:00:00.000Z',
      kind: 'payment',
      state: 'sending',
      profile: 'sandbox',
      host: 'sandbox',
      amountCentavos: 1500,
      receiver: 'Ana Souza',
      payment: { method: 'key', key: 'ana@example.com' },
    })}' '${JSON.stringify({ id: '1a2b3c4d-0000-4000-8000-000000000001', at: '2026-11-20T13:00:31.000Z', state: 'unknown', reason: 'network' })}' > pix-config/journal.jsonl`,
  },
  {
    wanted: (example) => /\bpix pay batch payouts\.|--file payouts\./.test(example),
    meaning: 'payouts.csv / payouts.ndjson: sample batch files the sandbox can pay (pix sandbox batch-file)',
    makes:
      'pix sandbox batch-file --rows 3 > payouts.csv 2>/dev/null && pix sandbox batch-file --rows 3 --format ndjson > payouts.ndjson 2>/dev/null',
  },
  {
    wanted: (example) => /\bfornecedores\.csv\b/.test(example),
    meaning:
      "fornecedores.csv: a supplier file with the ERP's own headers (Chave PIX, Valor, CNPJ) and an id",
    makes:
      "printf 'id;Chave PIX;Valor;CNPJ;Centro de custo\\nf-001;ana@example.com;10,00;;obra 7\\n' > fornecedores.csv",
  },
  {
    wanted: (example) => /payouts\.plan\.json|pix-policy\.json/.test(example),
    meaning:
      'a git repository with keys in ~/.ssh (me: git signs with ~/.ssh/id_ed25519; bob: ~/.ssh/id_ecdsa), pix-policy.json naming us and carol (2 of finance a plan), approved by us both, and payouts.plan.json made by carol and approved by us both',
    makes: [
      ...TEAM,
      "pix pay batch payouts.csv --plan payouts.plan.json --signing-key carol --by 'Carol <carol@example.com>' >/dev/null 2>&1",
      'pix plan approve payouts.plan.json >/dev/null 2>&1 && pix plan approve payouts.plan.json --key .ssh/id_ecdsa >/dev/null 2>&1',
    ].join(' && '),
  },
  {
    wanted: (example) => /rent\.plan\.json/.test(example),
    meaning:
      'the same team, and rent.plan.json: a standing plan of a schedule (pix schedule create … --plan) made by carol and approved by me and bob',
    makes: [
      ...TEAM,
      'pix schedule create --key ana@example.com --amount 1500 --every 10 --count 12 --plan rent.plan.json --signing-key carol >/dev/null 2>&1',
      'pix plan approve rent.plan.json >/dev/null 2>&1 && pix plan approve rent.plan.json --key .ssh/id_ecdsa >/dev/null 2>&1',
    ].join(' && '),
  },
  {
    wanted: mentions('ENTRY'),
    meaning: 'ENTRY: the id of a statement entry',
    setup: "ENTRY=$(pix statement --from -30d --limit 1 --jq '.results[0].id')",
  },
  {
    wanted: mentions('PAYMENT'),
    meaning: 'PAYMENT: the journal id of a payment made on the sandbox',
    setup:
      "pix pay key ana@example.com --amount 10 --yes >/dev/null 2>&1 && PAYMENT=$(pix journal --jq '.results[0].id')",
  },
  {
    wanted: (example) => example.includes('paid.csv'),
    meaning: 'paid.csv: a batch file pix pay batch paid',
    makes:
      'pix sandbox batch-file --rows 3 > paid.csv 2>/dev/null && pix pay batch paid.csv --yes >/dev/null 2>&1',
  },
  {
    wanted: (example) => example.includes('receber.csv'),
    meaning: "receber.csv: an ERP's receivables, exported as a Portuguese spreadsheet saves CSV",
    files: {
      'receber.csv':
        'Documento;Cliente;CNPJ;Vencimento;Valor\r\nNF-1042;Mercado Bom Preço Ltda;04.252.011/0001-10;10/03/2026;R$ 1.250,00\r\n',
    },
  },
  {
    wanted: (example) => example.includes('charge.json'),
    meaning: 'charge.json: a due-date charge request (API §4.3)',
    files: { 'charge.json': `${JSON.stringify(DUEDATE_BODY, null, 2)}\n` },
  },
  {
    wanted: (example) => example.includes('customers.json'),
    meaning: 'customers.json: an array of due-date charge requests',
    files: {
      'customers.json': `${JSON.stringify([
        DUEDATE_BODY,
        { ...DUEDATE_BODY, amount: 89.9, debtor: { name: 'Bruno Lima', cpf: '52998224725' } },
      ])}\n`,
    },
  },
  {
    wanted: (example) => example.includes('code.txt'),
    meaning: 'code.txt: a BR Code saved to a file',
    files: { 'code.txt': `${STATIC_CODE}\n` },
  },
];

interface Ran extends CliResult {
  dir: string;
}

/** Made once for the file (removed after it): the examples' directories and the `pix` they find on PATH. */
const root = tempDir('pix-docs-');
const binDir = exampleBin(join(root, 'bin'));
// pbpaste (macOS) prints the clipboard; here the clipboard holds $CODE.
writeFileSync(join(binDir, 'pbpaste'), '#!/bin/sh\nprintf \'%s\\n\' "$CODE"\n');
chmodSync(join(binDir, 'pbpaste'), 0o755);

/**
 * A directory the `makes` fixtures were run in once, and the files in which they wrote its path (git's
 * signing key, the policy's path in pix's config): a copy gets its own path written there instead.
 */
interface Template {
  dir: string;
  withPath: string[];
}

/** Runs `script` with bash in a fresh directory that is also HOME, with a fresh PIX_CONFIG_DIR. */
async function runBash(
  script: string,
  files: Record<string, string> = {},
  template?: Template,
  timeoutMs = 50_000,
): Promise<Ran> {
  const dir = mkdtempSync(join(root, 'example-'));
  if (template !== undefined) copyTemplate(template, dir);
  mkdirSync(join(dir, '.config', 'fish', 'completions'), { recursive: true }); // as installing fish does
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  const result = await runProcess('bash', ['-c', script], {
    cwd: dir,
    env: {
      PATH: `${binDir}:${process.env.PATH ?? ''}`,
      HOME: dir,
      PIX_CONFIG_DIR: join(dir, 'pix-config'),
      LANG: 'C.UTF-8',
    },
    timeoutMs,
  });
  return { ...result, dir };
}

function copyTemplate(template: Template, dir: string): void {
  cpSync(template.dir, dir, { recursive: true });
  for (const file of template.withPath) {
    const path = join(dir, file);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll(template.dir, dir));
  }
}

/**
 * The examples that need the same `makes` fixtures share one run of them (the team's keys, policy and
 * approved plan took 5-7 s of each of 22 examples on a busy machine): the first example to need a set makes
 * its template, the others wait for it, and each runs in a copy of it, so none sees another's doings.
 */
const templates = new Map<string, Promise<Template>>();

function templateFor(used: Fixture[]): Promise<Template> | undefined {
  const making = used.filter((fixture) => fixture.makes !== undefined);
  if (making.length === 0) return undefined;
  const key = making.map((fixture) => fixture.meaning).join('\n');
  let template = templates.get(key);
  if (template === undefined) {
    template = makeTemplate(making);
    templates.set(key, template);
  }
  return template;
}

async function makeTemplate(making: Fixture[]): Promise<Template> {
  const ran = await runBash(
    ['set -o pipefail', ...making.map((fixture) => orSay(fixture.makes!, fixture))].join('\n'),
  );
  if (ran.code !== 0) throw new Error(`exit ${ran.code} making the fixtures\nstderr: ${ran.stderr.trim()}`);
  const withPath = readdirSync(ran.dir, { recursive: true })
    .map(String)
    .filter((file) => statSync(join(ran.dir, file)).isFile())
    .filter((file) => {
      const text = readFileSync(join(ran.dir, file), 'utf8');
      return text.includes(ran.dir) && !text.includes('\0'); // text only: git's objects are never rewritten
    });
  return { dir: ran.dir, withPath };
}

const orSay = (bash: string, fixture: Fixture) =>
  `${bash} || { echo "fixture failed: ${fixture.meaning}" >&2; exit 99; }`;

/** The example with its fixtures: setup lines that must each succeed, then the example under pipefail. */
function exampleScript(example: string): {
  script: string;
  files: Record<string, string>;
  template: Promise<Template> | undefined;
} {
  const used = FIXTURES.filter((fixture) => fixture.wanted(example));
  const setup = used.flatMap((fixture) =>
    fixture.setup === undefined ? [] : [orSay(fixture.setup, fixture)],
  );
  const files = Object.assign({}, ...used.map((fixture) => fixture.files ?? {}));
  return { script: ['set -o pipefail', ...setup, example].join('\n'), files, template: templateFor(used) };
}

/** The `Examples:` block of one help text: `  $ ` starts an example, deeper-indented lines continue it. */
function parseExamples(help: string): string[] {
  const block = /\nExamples:\n([\s\S]*?)(?:\n\n|$)/.exec(help)?.[1] ?? '';
  const examples: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('  $ ')) examples.push(line.slice(4));
    else if (/^ {4,}\S/.test(line) && examples.length > 0) examples[examples.length - 1] += `\n${line}`;
  }
  return examples;
}

/** Every command's help, as `pix … --help` prints it (Commander tree with every module loaded). */
async function helpTexts(): Promise<Map<string, string>> {
  const test = createTestIO();
  const { deps } = createContext({
    argv: [],
    io: test.io,
    env: { PIX_CONFIG_DIR: join(root, 'help-config') },
  });
  const { program } = await wholeProgram(deps);
  const texts = new Map<string, string>();
  const visit = (command: Command, path: string[]) => {
    let text = '';
    command.configureOutput({ writeOut: (chunk) => (text += chunk) });
    command.outputHelp();
    texts.set(['pix', ...path].join(' '), text);
    for (const sub of command.commands) if (sub.name() !== 'help') visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return texts;
}

/** The first ```bash block under the heading `## Use in CI` of docs/ci.md (the README points to it). */
function ciScript(): string {
  const doc = readFileSync(CI_DOC, 'utf8');
  const section = /\n## Use in CI\n([\s\S]*?)(?=\n## |$)/.exec(doc)?.[1];
  if (section === undefined) throw new Error('docs/ci.md has no "## Use in CI" section');
  const script = /```bash\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (script === undefined) throw new Error('the "Use in CI" section has no ```bash block');
  return script;
}

/** Every example of every command's help, with the commands that show it, read as the help is built. */
const examples = new Map<string, string[]>();
for (const [command, help] of await helpTexts()) {
  for (const example of parseExamples(help))
    examples.set(example, [...(examples.get(example) ?? []), command]);
}

/** What some examples must have done besides exiting 0: written a file, printed a result. */
const DID = new Map<string, (ran: Ran) => void>([
  [
    'pix statement --all -o csv > statement.csv',
    (ran) =>
      expect(readFileSync(join(ran.dir, 'statement.csv'), 'utf8')).toMatch(/^confirmedAt,type,amount,fee,/),
  ],
  [
    'pix charge immediate --amount 10 --qr-png - > qr.png',
    (ran) => expect(readFileSync(join(ran.dir, 'qr.png')).subarray(1, 4).toString()).toBe('PNG'),
  ],
  ["pix keys --json | jq -r '.result[].id'", (ran) => expect(ran.stdout.trim().split('\n')).toHaveLength(4)],
]);

describe('the examples of --help', () => {
  it('are found in every command (the walk reads the real help)', () => {
    expect(examples.size).toBeGreaterThan(40);
    const commands = new Set([...examples.values()].flat());
    for (const command of ['pix', 'pix statement', 'pix charge duedate', 'pix pay qr', 'pix sandbox clock']) {
      expect(commands).toContain(command);
    }
  });

  it('the not-run list and the checked examples name only examples that still exist', () => {
    for (const example of [...NOT_RUN.keys(), ...DID.keys()])
      expect([...examples.keys()], example).toContain(example);
  });

  // One test an example, two at a time (the e2e tier's maxConcurrency), each with its own minute (killed at 50 s): a busy machine
  // slows every example alike, and no one waits on the sum of them (one hook running them all took 444 s
  // of its 480 at a load of 10).
  describe.concurrent('every other example exits 0 against the sandbox', () => {
    for (const [example, commands] of examples) {
      if (NOT_RUN.has(example)) continue;
      it(`${commands.join(', ')}: ${example}`, { timeout: 60_000 }, async () => {
        const { script, files, template } = exampleScript(example);
        const ran = await runBash(script, files, await template);
        expect(ran.code, `exit ${ran.code}\nstderr: ${ran.stderr.trim()}`).toBe(0);
        DID.get(example)?.(ran);
      });
    }
  });
});

describe('the "Use in CI" script (docs/ci.md)', () => {
  it('runs to the end with exit 0 against the sandbox and printed what it claims: the charge, the payment, its settlement, the export', {
    timeout: 60_000,
  }, async () => {
    const ran = await runBash(ciScript());
    expect(ran.code, `stderr:\n${ran.stderr}\nstdout:\n${ran.stdout}`).toBe(0);
    const { stdout, dir } = ran;
    expect(stdout).toMatch(/^created charge [0-9a-f-]{36}$/m);
    const transfer = /^paid: transfer ([0-9a-f-]{36}) PENDING$/m.exec(stdout)?.[1];
    expect(transfer, stdout).toBeDefined();
    expect(stdout).toContain(`\nconfirmed: ${transfer}\n`);
    const exported = /^exported (\d+) statement entries to statement\.csv$/m.exec(stdout);
    expect(exported, stdout).not.toBeNull();
    const rows = readFileSync(join(dir, 'statement.csv'), 'utf8').trimEnd().split('\r\n');
    expect(rows[0]).toBe(
      'confirmedAt,type,amount,fee,method,counterpartyName,counterpartyDocument,counterpartyBank,status,id',
    );
    expect(rows.length - 1).toBe(Number(exported![1]));
    // The payment of the account's own charge: out, and the charge's money in; the second charge paid.
    const outcome = rows.filter((row) => row.endsWith(`,CONFIRMED,${transfer}`));
    expect(outcome).toHaveLength(1);
    expect(outcome[0]).toContain(',OUTCOME,-12.34,');
    expect(rows.some((row) => row.includes(',INCOME,12.34,'))).toBe(true);
    expect(rows.some((row) => row.includes(',INCOME,50.00,'))).toBe(true);
  });
});
