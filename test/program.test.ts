import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wholeProgram } from '../src/cli/load.js';
import { COMMANDS, type Entry } from '../src/cli/table.js';
import { completionModel } from '../src/commands/completion/script.js';
import { CONFIG_KEYS } from '../src/config/types.js';
import { createContext } from '../src/wiring.js';
import { createTestIO } from './helpers/io.js';
import { pix } from './helpers/pix.js';

/** Usage errors: typos get suggestions, missing arguments show the usage line, all exit 2 with nothing sent. */

describe('typos get suggestions', () => {
  it.each([
    [['statment'], "error: unknown command 'statment'\nhint: did you mean statement?\n"],
    [['charge', 'imediate'], "error: unknown command 'imediate'\nhint: did you mean immediate?\n"],
    [['pay', 'kye'], "error: unknown command 'kye'\nhint: did you mean key?\n"],
    [['sandbox', 'reste'], "error: unknown command 'reste'\nhint: did you mean reset?\n"],
    [
      ['balance'],
      "error: unknown command 'balance'\nhint: the API has no balance: `pix statement summary` sums a period and `pix close --day D` keeps the running balance from an opening one\n",
    ],
    [['statement', '--limt', '5'], "error: unknown option '--limt'\nhint: did you mean --limit?\n"],
    [['keys', '--ouptut', 'csv'], "error: unknown option '--ouptut'\nhint: did you mean --output?\n"],
  ])('pix %j', async (argv, stderr) => {
    const result = await pix(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(stderr);
  });

  it('a misspelt flag is reported even when a required flag is also missing', async () => {
    // Commander checks required options first; pix reports the typo, which is the real mistake.
    const result = await pix(['charge', 'immediate', '--amout', '10']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown option '--amout'\nhint: did you mean --amount?\n");
  });

  it('the start of a command name suggests it (pix stat → statement)', async () => {
    expect((await pix(['stat'])).stderr).toBe(
      "error: unknown command 'stat'\nhint: did you mean statement?\n",
    );
    expect((await pix(['co'])).stderr).toBe(
      "error: unknown command 'co'\nhint: did you mean one of: config, completion?\n",
    );
  });

  it('nothing close: points to --help of the level typed at', async () => {
    expect((await pix(['zzz'])).stderr).toBe(
      "error: unknown command 'zzz'\nhint: run 'pix --help' for its commands\n",
    );
    expect((await pix(['charge', 'zzz'])).stderr).toBe(
      "error: unknown command 'zzz'\nhint: run 'pix charge --help' for its commands\n",
    );
  });

  it('--json: the error and its hint as one JSON object on stderr', async () => {
    const result = await pix(['statment', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toEqual({
      error: { kind: 'usage', message: "unknown command 'statment'", hint: 'did you mean statement?' },
    });
  });
});

describe('a missing argument shows the usage line', () => {
  it.each([
    [['pay', 'key'], "error: missing required argument 'KEY'\nhint: usage: pix pay key [options] <KEY>\n"],
    [['pay', 'qr'], "error: missing required argument 'EMV'\nhint: usage: pix pay qr [options] <EMV>\n"],
    [
      ['emv', 'decode'],
      "error: missing required argument 'EMV'\nhint: usage: pix emv decode [options] <EMV>\n",
    ],
    [
      ['profile', 'use'],
      "error: missing required argument 'name'\nhint: usage: pix profile use [options] <name>\n",
    ],
    [
      ['config', 'set', 'time-zone'],
      "error: missing required argument 'value'\nhint: usage: pix config set [options] <key> <value>\n",
    ],
    // A charge, or --key: one of the two (pix's own usage error, with what each pays).
    [
      ['sandbox', 'pay'],
      'error: <charge-id>: name a charge, or --key KEY\nhint: pix sandbox pay CHARGE (its amount), or pix sandbox pay --key KEY --amount A (any amount)\n',
    ],
  ])('pix %j', async (argv, stderr) => {
    const result = await pix(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(stderr);
  });

  it('a flag without its value, a missing required flag, too many arguments', async () => {
    expect((await pix(['charge', 'immediate', '--amount'])).stderr).toBe(
      "error: option '--amount <reais>' argument missing\nhint: usage: pix charge immediate [options]\n",
    );
    const missingFlag = await pix(['pay', 'key', 'ana@example.com']);
    expect(missingFlag.code).toBe(2);
    expect(missingFlag.stderr).toBe(
      "error: required option '--amount <A>' not specified\nhint: usage: pix pay key [options] <KEY>\n",
    );
    expect((await pix(['profile', 'use', 'a', 'b'])).stderr).toBe(
      "error: too many arguments for 'use'. Expected 1 argument but got 2.\nhint: usage: pix profile use [options] <name>\n",
    );
  });
});

describe('a group without its subcommand', () => {
  it.each([['charge'], ['pay'], ['sandbox'], ['auth']])(
    'pix %s: its help on stderr, exit 2',
    async (group) => {
      const result = await pix([group]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`^Usage: pix ${group} \\[options\\] \\[command\\]`));
      expect(result.stderr).toContain('Commands:');
    },
  );

  it('pix --help and pix charge --help are not errors: stdout, exit 0', async () => {
    for (const argv of [['--help'], ['charge', '--help'], ['--version']]) {
      const result = await pix(argv);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).not.toBe('');
    }
  });
});

describe('every command teaches in its --help', () => {
  it('ends with examples and the exit codes it can return (every command and group of the tree)', async () => {
    const { deps } = createContext({ argv: [], io: createTestIO().io, env: {} });
    const program = await wholeProgram(deps);
    const paths = completionModel(program).map((node) => node.path);
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const result = await pix([...path, '--help']);
      expect(result.code, `pix ${path.join(' ')} --help`).toBe(0);
      expect(result.stdout.match(/^Examples:$/gm), `pix ${path.join(' ')} --help`).toHaveLength(1);
      expect(result.stdout, `pix ${path.join(' ')} --help`).toMatch(
        /\nExamples:\n(?: {2}\$ .+\n(?: {6}.+\n)*){2,}\nExit codes: 0 ok(?:, [1-9] [a-z_]+)+\n$/,
      );
    }
  });
});

describe('help shows what a subcommand inherits and goes as deep as asked', () => {
  it('pix statement list --help names the global flags under their own heading, after its own', async () => {
    const result = await pix(['statement', 'list', '--help']);
    expect(result.code).toBe(0);
    const [own, rest] = result.stdout.split('\nGlobal options (pix --help says what each does):\n');
    const inherited = rest?.split('\nExamples:\n')[0];
    expect(own).toContain('--limit <n>');
    expect(own).not.toContain('--json');
    for (const flag of ['--json', '-o/--output', '-p/--profile']) expect(inherited).toContain(flag);
    expect(inherited).not.toContain('--limit');
  });

  it("pix journal resolve --help: the list's flags (--limit, --all, --unresolved) are not listed, not even as global", async () => {
    const result = await pix(['journal', 'resolve', '--help']);
    expect(result.code).toBe(0);
    const [own, inherited] = result.stdout.split('\nGlobal options (pix --help says what each does):\n');
    expect(own).toContain('--paid');
    expect(inherited).toContain('--json');
    for (const flag of ['--limit', '--all', '--unresolved']) expect(result.stdout).not.toContain(flag);
    // `pix journal list --help` lists them, as its own.
    expect((await pix(['journal', 'list', '--help'])).stdout.split('\nGlobal options')[0]).toContain(
      '--unresolved',
    );
  });

  it.each([
    [['charge', 'immediate']],
    [['charge', 'duedate']],
    [['pay', 'qr']],
    [['statement']],
    [['charge']],
  ])('pix help %j is the same as its --help', async (path) => {
    const viaHelp = await pix(['help', ...path]);
    const viaFlag = await pix([...path, '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toMatch(new RegExp(`^Usage: pix ${path.join(' ')} \\[options\\]`));
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it('pix help alone is pix --help; an unknown name is a usage error at its level', async () => {
    expect((await pix(['help'])).stdout).toBe((await pix(['--help'])).stdout);
    const unknown = await pix(['help', 'charge', 'imediate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^error: unknown command 'imediate'\n/);
  });
});

describe('one command layout: commands/<noun>/<verb>.ts, each loaded by its own entry', () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  /**
   * Modules of a noun that are neither a verb nor its shared.ts: `statement --follow`, a due-date charge's
   * request, close's pack and `--list`, the steps of `pix listen` (its state, its sources), the completion
   * scripts' text, and how schedules' occurrences are found, judged under a policy and paid. What several nouns use is in shared/
   * (pay's machinery in shared/pay/), what they keep below the commands (src/events/, src/journal/).
   */
  const PARTS = [
    'charge/duedaterequest',
    'statement/follow',
    'close/pack',
    'close/closedlist',
    'listen/listener',
    'listen/sources',
    'completion/shells',
    'schedule/payment',
    'schedule/survey',
    'schedule/standing',
    'schedule/make',
  ];

  it('every file under src/commands/ is a verb the COMMANDS table loads, a shared.ts, a part, or shared/', () => {
    const source = readFileSync(join(root, 'src/cli/table.ts'), 'utf8');
    const loaded = [...source.matchAll(/import\('\.\.\/commands\/([^']+)\.js'\)/g)].map((match) => match[1]!);
    const files = readdirSync(join(root, 'src/commands'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.split('\\').join('/').replace(/\.ts$/, ''));
    expect(files.filter((file) => !file.includes('/'))).toEqual([]);
    const verbs = files.filter(
      (file) => !file.startsWith('shared/') && !file.endsWith('/shared') && !PARTS.includes(file),
    );
    expect(verbs.sort()).toEqual([...new Set(loaded)].sort());
    expect(loaded.length).toBe(new Set(loaded).size);
  });

  it('pix config --help names every key of CONFIG_KEYS, in order', async () => {
    const help = await pix(['config', '--help']);
    // Help wraps a long description at the terminal's width.
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      `Read and change the current profile's settings (keys: ${CONFIG_KEYS.join(', ')}) `,
    );
  });

  it('a noun runs its default verb when none is named: pix journal is pix journal list, pix keys pix keys list', async () => {
    const journal = await pix(['journal', '--unresolved', '--json']);
    expect(journal.code, journal.stderr).toBe(0);
    expect(journal.stdout).toBe((await pix(['journal', 'list', '--unresolved', '--json'])).stdout);
    expect(JSON.parse(journal.stdout)).toEqual({ total: 0, results: [] });
  });

  it("a flag belongs to one command: another verb's flag is exit 2 naming it and its owner", async () => {
    const show = await pix(['journal', 'show', 'abc', '--unresolved']);
    expect(show.code).toBe(2);
    expect(show.stderr).toBe(
      "error: unknown option '--unresolved'\nhint: --unresolved is a flag of `pix journal list`, not of `pix journal show`\n",
    );
    // Before the verb, the list's flags go to the default verb, which has no argument: nothing is ignored.
    const before = await pix(['statement', '--limit', '5', 'summary']);
    expect(before.code).toBe(2);
    expect(before.stderr).toMatch(/^error: too many arguments for 'list'/);
  });

  it('no entry of the table is both a verb (load) and a noun (children)', () => {
    const both: string[] = [];
    const visit = (entries: readonly Entry[], path: string[]) => {
      for (const entry of entries) {
        if (entry.load && entry.children) both.push([...path, entry.name].join(' '));
        visit(entry.children ?? [], [...path, entry.name]);
      }
    };
    visit(COMMANDS, []);
    expect(both).toEqual([]);
  });
});

describe('help as gh lays it out: commands first, inherited flags last and short', () => {
  it('pix sandbox --help: its commands come before a short block of the global options', async () => {
    const help = (await pix(['sandbox', '--help'])).stdout;
    const lines = help.split('\n');
    const commands = lines.indexOf('Commands:');
    const globals = lines.findIndex((line) => line.startsWith('Global options'));
    expect(commands).toBeGreaterThan(0);
    expect(commands).toBeLessThan(6);
    expect(globals).toBeGreaterThan(commands);
    // The global flags are named, not explained again (pix --help explains them): a few lines, not twenty.
    const block = lines.slice(globals, lines.indexOf('Examples:'));
    expect(block.filter((line) => line.trim() !== '').length).toBeLessThanOrEqual(4);
    expect(block.join(' ')).toContain('--json');
  });

  it('a verb lists its own flags, then the global ones in the same short block', async () => {
    const help = (await pix(['statement', 'list', '--help'])).stdout;
    const [own, rest] = help.split(/\nGlobal options/);
    expect(own).toContain('--counterparty <text>');
    expect(own).not.toContain('--json');
    expect(rest!.split('\nExamples:')[0]!.trim().split('\n').length).toBeLessThanOrEqual(4);
  });

  it('pix --help lists what an operator does most first: statement, charge and pay before login, config, api', async () => {
    const help = (await pix(['--help'])).stdout;
    const names = help
      .split('\nCommands:\n')[1]!
      .split('\n\n')[0]!
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0]);
    for (const first of ['statement', 'charge', 'pay']) {
      for (const later of ['login', 'config', 'api', 'listen']) {
        expect(names.indexOf(first), `${first} before ${later}`).toBeLessThan(names.indexOf(later));
      }
    }
  });

  it('pix alone is its help on stdout, exit 0 (as gh)', async () => {
    const alone = await pix([]);
    expect(alone.code).toBe(0);
    expect(alone.stderr).toBe('');
    expect(alone.stdout).toBe((await pix(['--help'])).stdout);
  });
});
