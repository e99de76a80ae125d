// The command table's verbs (src/cli/verbs.ts), made from what each verb says of itself: the `verb` its file
// exports (`describeVerb`, src/commands/shared/help.ts) — summary, formats, fields, paging, exit kinds. The
// build writes the module before bundling (only when its text changed), so the table that `pix --help` loads
// is plain data beside `import()`s, and no verb module is loaded to list the commands (architecture rule 8).
// test/cli/verbs.test.ts makes the same text from the sources and fails when the file is not it.
//
// A verb is a file `src/commands/<noun>/<name>.ts` that exports `verb`; a file of a noun's folder that does
// not is one of its parts (a long verb's steps, the noun's shared.ts).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { REQUIRE_BANNER } from './require-banner.mjs';
import { root } from './root.mjs';

export const VERBS_FILE = join(root, 'src', 'cli', 'verbs.ts');
export const MAP_FILE = join(root, 'docs', 'architecture.md');
const MAP_START = '<!-- The commands: made by `npm run build` from the command table and the verb files. -->';
const MAP_END = '<!-- End of the commands. -->';

/** The files of the nouns' folders, as `noun/name` (shared/ is not a noun). */
export function commandFiles() {
  const dir = join(root, 'src', 'commands');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split('\\').join('/'))
    .filter((file) => file.endsWith('.ts') && !file.startsWith('shared/') && file.split('/').length === 2)
    .map((file) => file.slice(0, -3))
    .sort();
}

const WIDTH = 110;

/** A string as biome writes it: single quotes, unless the text holds one and no double quote. */
function literal(text) {
  const json = JSON.stringify(text);
  if (text.includes("'") && !text.includes('"')) return json;
  return `'${json.slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
}

/** `key: value,` at `indent`, the value on the next line when the line would be too wide (as biome does). */
function property(indent, key, value) {
  const line = `${indent}${key}: ${value},`;
  if (line.length <= WIDTH) return [line];
  if (value.startsWith('[')) {
    const items = value.slice(1, -1).split(', ');
    return [`${indent}${key}: [`, ...items.map((item) => `${indent}  ${item},`), `${indent}],`];
  }
  return [`${indent}${key}:`, `${indent}  ${value},`];
}

const list = (values) => `[${values.map(literal).join(', ')}]`;

/**
 * A verb's description with its fields as names: `fields`, the records' JSON paths (or `true`), and
 * `columns`, the header names of its machine columns that are not paths (`recordFieldNames`,
 * src/commands/shared/recordfields.ts).
 */
export function resolveVerb(verb, recordFieldNames) {
  if (verb.fields === undefined || verb.fields === true) return verb;
  const { paths, columns } = recordFieldNames(verb.fields);
  return { ...verb, fields: paths, ...(columns.length > 0 ? { columns } : {}) };
}

/** The text of src/cli/verbs.ts for `described`: [{ file: 'keys/list', verb }] (resolved), in any order. */
export function renderVerbs(described) {
  const lines = [
    '// Made by the build (scripts/build/verbs.mjs) from the `verb` each verb file exports',
    '// (src/commands/<noun>/<verb>.ts): never edited by hand. test/cli/verbs.test.ts fails when it is stale.',
    "import type { VerbEntry } from './table.js';",
    '',
    'export const VERBS = {',
  ];
  for (const { file, verb } of [...described].sort((a, b) => a.file.localeCompare(b.file))) {
    const at = '    ';
    lines.push(`  ${literal(file)}: {`);
    lines.push(...property(at, 'summary', literal(verb.summary)));
    if (verb.description !== undefined) lines.push(...property(at, 'description', literal(verb.description)));
    if (verb.formats !== undefined) lines.push(...property(at, 'formats', list(verb.formats)));
    if (verb.fields === true) lines.push(`${at}fields: true,`);
    else if (verb.fields !== undefined) lines.push(...property(at, 'fields', list(verb.fields)));
    if (verb.columns !== undefined) lines.push(...property(at, 'columns', list(verb.columns)));
    if (verb.paged === true) lines.push(`${at}paged: true,`);
    else if (typeof verb.paged === 'object')
      lines.push(`${at}paged: { unless: ${literal(verb.paged.unless)} },`);
    lines.push(...property(at, 'exits', list(verb.exits)));
    lines.push(`${at}load: () => import('../commands/${file}.js'),`);
    lines.push('  },');
  }
  lines.push('} satisfies Record<string, VerbEntry>;', '');
  return lines.join('\n');
}

/**
 * The part of docs/architecture.md's map that lists the commands: each command of the table (`commands`, the
 * tree of cli/table.ts) with its file and summary, in the order `--help` lists them, and the parts of the
 * nouns' folders (the files that are not a verb). Markdown between two comments, made by the build.
 */
export function renderCommandMap(commands, described) {
  const summaries = new Map(described.map(({ file, verb }) => [file, verb.summary]));
  const rows = [];
  const visit = (entries, path) => {
    for (const entry of entries) {
      const words = [...path, entry.name];
      if (entry.file !== undefined) {
        const summary = (summaries.get(entry.file) ?? '').replaceAll('|', '\\|');
        rows.push(`| \`pix ${words.join(' ')}\` | \`${entry.file}.ts\` | ${summary} |`);
      }
      visit(entry.children ?? [], words);
    }
  };
  visit(commands, []);
  const verbs = new Set(described.map(({ file }) => file));
  const parts = commandFiles().filter((file) => !verbs.has(file));
  return [
    MAP_START,
    '',
    '| command | src/commands/ | what it does |',
    '|---|---|---|',
    ...rows,
    '',
    `The nouns' other files are parts of their verbs (a noun's \`shared.ts\`, a long verb's steps): ${parts
      .map((file) => `\`${file}.ts\``)
      .join(', ')}.`,
    '',
    MAP_END,
  ].join('\n');
}

/** docs/architecture.md with its command map replaced by `map`. */
export function withCommandMap(text, map) {
  const start = text.indexOf(MAP_START);
  const end = text.indexOf(MAP_END);
  if (start === -1 || end === -1)
    throw new Error(`docs/architecture.md has no "${MAP_START}" … "${MAP_END}"`);
  return text.slice(0, start) + map + text.slice(end + MAP_END.length);
}

/**
 * Every verb's description, read from its module in a throwaway bundle of them all (the modules only
 * declare; nothing runs), as the man pages are made.
 */
export async function describeVerbs() {
  const files = commandFiles();
  const scratch = join(root, `.verbs-${process.pid}`);
  try {
    await build({
      absWorkingDir: root,
      stdin: {
        contents: [
          "export { recordFieldNames } from './src/commands/shared/recordfields.ts';",
          "export { COMMANDS } from './src/cli/table.ts';",
          ...files.map((file, index) => `export * as m${index} from './src/commands/${file}.ts';`),
        ].join('\n'),
        resolveDir: root,
        loader: 'ts',
      },
      outfile: join(scratch, 'verbs.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      banner: { js: REQUIRE_BANNER },
      define: { __PIX_VERSION__: '"0.0.0"' },
      logLevel: 'warning',
    });
    const modules = await import(pathToFileURL(join(scratch, 'verbs.mjs')).href);
    const verbs = files
      .map((file, index) => ({ file, verb: modules[`m${index}`].verb }))
      .filter(({ verb }) => verb !== undefined)
      .map(({ file, verb }) => ({ file, verb: resolveVerb(verb, modules.recordFieldNames) }));
    // The table's tree as cli/table.ts places the verbs (names, files, order: what the map needs of it).
    return { verbs, commands: modules.COMMANDS };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Writes `text` to `file` when it differs; returns whether it did. */
function update(file, text) {
  let before;
  try {
    before = readFileSync(file, 'utf8');
  } catch {
    before = undefined;
  }
  if (before === text) return false;
  writeFileSync(file, text);
  return true;
}

/**
 * Writes src/cli/verbs.ts and docs/architecture.md's command map when what the verb files say changed;
 * returns the files it wrote.
 */
export async function writeVerbs() {
  const { verbs, commands } = await describeVerbs();
  const written = [];
  if (update(VERBS_FILE, renderVerbs(verbs))) written.push('src/cli/verbs.ts');
  const map = withCommandMap(readFileSync(MAP_FILE, 'utf8'), renderCommandMap(commands, verbs));
  if (update(MAP_FILE, map)) written.push('docs/architecture.md');
  return written;
}
