/**
 * One description per command: a verb says what it is in its own file (`verb`, commands/<noun>/<verb>.ts),
 * and the command table (cli/verbs.ts, made by the build), `--help`, shell completion and the man page all
 * say the same. Each verb's fields, formats and exit kinds are derived here from its file alone and
 * compared with what each of those shows.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  commandFiles,
  MAP_FILE,
  type ResolvedVerb,
  renderCommandMap,
  renderVerbs,
  resolveVerb,
  VERBS_FILE,
  withCommandMap,
} from '../../scripts/build/verbs.mjs';
import { wholeProgram } from '../../src/cli/load.js';
import { COMMANDS, type Entry } from '../../src/cli/table.js';
import { completionModel } from '../../src/commands/completion/script.js';
import { outputHelp, type VerbDescription } from '../../src/commands/shared/help.js';
import { recordFieldNames } from '../../src/commands/shared/recordfields.js';
import { EXIT_CODES } from '../../src/errors.js';
import { manPages } from '../../src/manpages.js';
import { createContext } from '../../src/wiring.js';
import { createTestIO } from '../helpers/io.js';

/** Every file of the nouns' folders, loaded: `verb` and `register` where it is a verb. */
const modules = new Map<string, { verb?: VerbDescription; register?: unknown }>();
for (const file of commandFiles()) {
  const url = new URL(`../../src/commands/${file}.ts`, import.meta.url).href;
  modules.set(file, await import(/* @vite-ignore */ url));
}

/** What each verb's own file says, its fields as names. */
const described = new Map<string, ResolvedVerb>();
for (const [file, module] of modules) {
  if (module.verb !== undefined) described.set(file, resolveVerb(module.verb, recordFieldNames));
}

/** The verbs of the table, by their path: `['keys', 'list']` for keys/list. */
function tableVerbs(): Array<{ path: string[]; file: string }> {
  const found: Array<{ path: string[]; file: string }> = [];
  const visit = (entries: readonly Entry[], path: string[]) => {
    for (const entry of entries) {
      if (entry.file !== undefined) found.push({ path: [...path, entry.name], file: entry.file });
      visit(entry.children ?? [], [...path, entry.name]);
    }
  };
  visit(COMMANDS, []);
  return found;
}

describe('the command table is made from the verb files', () => {
  it('cli/verbs.ts is what the verb files say (npm run build makes it again)', () => {
    expect(described.size).toBeGreaterThan(60);
    const fresh = renderVerbs([...described].map(([file, verb]) => ({ file, verb })));
    expect(readFileSync(VERBS_FILE, 'utf8')).toBe(fresh);
  });

  it("every file of a noun's folder is a verb (it exports verb and register) the table places once, or a part (neither)", () => {
    const halfVerbs = [...modules]
      .filter(([, module]) => (module.verb === undefined) !== (module.register === undefined))
      .map(([file]) => file);
    expect(halfVerbs).toEqual([]);
    const placed = tableVerbs().map(({ file }) => file);
    expect(placed.length).toBe(new Set(placed).size);
    expect([...placed].sort()).toEqual([...described.keys()].sort());
  });
});

const { deps } = createContext({
  argv: [],
  io: createTestIO().io,
  env: { PIX_CONFIG_DIR: '/nonexistent/pix' },
});
const tree = await wholeProgram(deps);
const nodes = completionModel(tree);
const pages = await manPages('0.0.0-test', readFileSync(new URL('../../README.md', import.meta.url), 'utf8'));

function commandAt(path: readonly string[]): Command {
  let at = tree.program;
  for (const name of path) at = at.commands.find((command) => command.name() === name)!;
  return at;
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), getOutHelpWidth: () => 80 });
  command.outputHelp();
  return text;
}

describe("every verb's fields, formats and exit kinds, from its file, are what --help, completion and its man page show", () => {
  it.each(tableVerbs().map(({ path, file }) => [path.join(' '), path, file] as const))(
    'pix %s',
    (_name, path, file) => {
      const verb = described.get(file)!;
      const formats = verb.formats ?? ['table', 'json'];
      const names = verb.fields === true ? true : verb.fields && [...verb.fields, ...(verb.columns ?? [])];
      const codes = verb.exits.map((kind) => `${EXIT_CODES[kind]} ${kind}`);

      const help = helpOf(commandAt(path));
      expect(help).toContain(outputHelp(formats, names).join('\n'));
      expect(help).toMatch(new RegExp(`\\nExit codes: ${['0 ok', ...codes].join(', ')}\\n$`));

      const node = nodes.find((one) => one.path.join(' ') === path.join(' '))!;
      const offered = (long: string) => {
        const value = node.options.find((option) => option.long === long)?.value;
        return value?.kind === 'words' ? value.words : undefined;
      };
      expect(offered('--output')).toEqual([...formats]);
      expect(offered('--fields')).toEqual(Array.isArray(names) ? names : undefined);

      const page = pages.get(`pix-${path.join('-')}.1`)!;
      const status = page.split('.SH EXIT STATUS\n')[1]!.split('\n.SH ')[0]!;
      const listed = [...status.matchAll(/^\.TP\n(\d+) {2}(\w+)$/gm)].map(
        (match) => `${match[1]} ${match[2]}`,
      );
      expect(listed).toEqual(codes);
      expect(page.split('.SH DESCRIPTION\n')[1]).toContain(outputHelp(formats, names).join('\n'));
    },
  );
});

describe("docs/architecture.md's map is the tree", () => {
  const doc = readFileSync(MAP_FILE, 'utf8');
  const block = doc.split('## Where things live')[1]!.split('```')[1]!;
  const root = new URL('../../', import.meta.url).pathname;
  const files = readdirSync(`${root}src`, { recursive: true, encoding: 'utf8' }).map((file) =>
    file.split('\\').join('/'),
  );

  it('its list of the commands is what the table and the verb files say (npm run build makes it again)', () => {
    const map = renderCommandMap(
      COMMANDS,
      [...described].map(([file, verb]) => ({ file, verb })),
    );
    expect(doc).toBe(withCommandMap(doc, map));
    expect(map).toContain('| `pix keys show` | `keys/show.ts` |');
  });

  it('each path and .ts file it names exists, and it names every directory of src/ (the nouns by their commands)', () => {
    const rows = [...block.matchAll(/^(\S+) {2,}/gm)].map((match) => match[1]!);
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.filter((path) => !existsSync(`${root}${path}`))).toEqual([]);
    const names = new Set(files.filter((file) => file.endsWith('.ts')).map((file) => file.split('/').at(-1)));
    const named = [...block.matchAll(/[\w-]+\.ts\b/g)].map((match) => match[0]);
    expect(named.filter((name) => !names.has(name))).toEqual([]);
    const nouns = new Set(commandFiles().map((file) => `commands/${file.split('/')[0]}`));
    const unnamed = files
      .filter((file) => statSync(`${root}src/${file}`).isDirectory() && !nouns.has(file))
      .filter(
        (dir) =>
          !block.includes(`src/${dir}/`) &&
          !block.includes(`${dir.split('/').slice(-2).join('/')}/`) &&
          !block.includes(` ${dir.split('/').at(-1)}/`),
      );
    expect(unnamed).toEqual([]);
  });
});
