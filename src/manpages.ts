/**
 * The man pages, made at build time from the command tree itself (scripts/build.mjs writes them to man/):
 * `pix.1` and one page per command (`pix-statement.1`, `pix-statement-summary.1`), each the command's own
 * `--help` (usage, options — a noun's default verb's too —, examples, exit codes) under roff headings, so they
 * never drift from it, and what a page is for beyond it, taken from where it is written once: DETAILS AND
 * EXAMPLES (the README's section of the command, its examples with their output as written there), EXIT
 * STATUS (each of the command's exit codes explained, from the README's table), ENVIRONMENT and FILES on
 * every page (the README's sections); GUARDS on
 * the pages of payments (the README's "What pix guarantees with money"); HOW KEYS ARE READ where a key is
 * typed (domain/pixkey.ts KEY_RULES). package.json's `man` lists them (written by the build), so `npm install
 * -g` installs them: `man pix-statement-list`.
 */
import type { Command } from 'commander';
// Static imports: this module is its own throwaway bundle (scripts/build.mjs); an `import()` here would
// make a split point of the CLI's build (scripts/build/common-chunk.mjs reads every `import()` in src/).
import { wholeProgram } from './cli/load.js';
import { KEY_RULES } from './domain/pixkey.js';
import { type ErrorKind, EXIT_CODES } from './errors.js';
import type { IOStreams, OutStream } from './output/iostreams.js';
import { createContext } from './wiring.js';

/** roff: backslashes escaped, a line starting with `.` or `'` kept as text, hyphens as minus signs in flags. */
function roff(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replaceAll('\\', '\\e'))
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

const sink: OutStream = { isTTY: false, columns: 80, write: () => true, drained: () => Promise.resolve() };
const io: IOStreams = {
  stdout: sink,
  stderr: sink,
  stdin: {
    isTTY: false,
    readAll: () => Promise.resolve(Buffer.alloc(0)),
    readLine: () => Promise.reject(new Error('no input while making man pages')),
  },
  terminal: () => undefined,
};

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), getOutHelpWidth: () => 78 });
  command.outputHelp();
  return text.trimEnd();
}

/** A README section's body, from its heading to the next heading of the same or a higher level. */
function section(readme: string, heading: string): string {
  const level = heading.split(' ')[0]!;
  const start = readme.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`the README has no section "${heading}" for the man pages`);
  const rest = readme.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'));
  return next === -1 ? rest : rest.slice(0, next);
}

/** Markdown's inline marks as plain words: `code`, **bold**, [text](link). */
function plain(text: string): string {
  return text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/\\\|/g, '|');
}

/**
 * The README's paragraphs, lists and tables in roff. Code blocks are left out (the help's examples run), or
 * with `examples` kept as they are written, unfilled: the README's commands and, in a `console` block, what
 * they print.
 */
function roffOf(markdown: string, examples = false): string {
  const out: string[] = [];
  let code = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) {
      code = !code;
      if (examples) out.push(code ? '.PP\n.RS 2\n.nf' : '.fi\n.RE');
      continue;
    }
    if (code) {
      if (examples) out.push(roff(line));
      continue;
    }
    if (/^\|[-| ]+\|$/.test(line)) continue;
    if (line.startsWith('|')) {
      const cells = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => plain(cell.trim()));
      if (cells[0] === 'code' || cells[0] === 'variable' || cells[0] === 'key') continue;
      out.push(
        '.TP',
        roff(
          cells
            .slice(0, -1)
            .filter((cell) => cell !== '—')
            .join('  '),
        ),
        roff(cells.at(-1)!),
      );
    } else if (line.startsWith('- ')) out.push('.IP \\(bu 2', roff(plain(line.slice(2))));
    else if (line.trim() === '') out.push('.PP');
    else out.push(roff(plain(line.trim())));
  }
  return out
    .join('\n')
    .replace(/(\.PP\n)+/g, '.PP\n')
    .replace(/^\.PP\n|\n\.PP$/g, '');
}

/** The README's exit-code table: kind → its meaning. */
function exitMeanings(readme: string): Map<string, string> {
  const meanings = new Map<string, string>();
  for (const match of section(readme, '## Exit codes').matchAll(/^\| (\d+) \| `(\w+)` \| (.+) \|$/gm)) {
    meanings.set(match[2]!, plain(match[3]!));
  }
  return meanings;
}

/** EXIT STATUS for the codes a command's help says it can end with. */
function exitStatus(kinds: readonly ErrorKind[], meanings: Map<string, string>): string[] {
  const lines = ['.SH EXIT STATUS', '.TP', '0', 'success'];
  for (const kind of kinds) {
    lines.push('.TP', `${EXIT_CODES[kind]}  ${kind}`, roff(meanings.get(kind) ?? ''));
  }
  return lines;
}

/**
 * The README's section of a command (contract §8: behaviour beyond --help is there), the nearest one on
 * its path: `pix statement summary` has its own, `pix statement list` its noun's; `pix pay batch` is
 * "Batch payouts", `pix plan` "Payment approvals", `pix listen` and `pix events` "Events", the books'.
 */
const SECTION_OF: Readonly<Record<string, string>> = {
  'pix pay batch': '## Batch payouts',
  'pix plan': '## Payment approvals',
  'pix policy': '## Payment approvals',
  'pix listen': '## Events: pix listen',
  'pix events': '## Events: pix listen',
  'pix reconcile': '## Books: reconcile, close, receipts',
  'pix close': '## Books: reconcile, close, receipts',
  'pix receipt': '## Books: reconcile, close, receipts',
  'pix ledger': '## Teams: one ledger for every machine',
  'pix journal': '### The journal',
  'pix login': '## pix login, logout and auth status',
  'pix logout': '## pix login, logout and auth status',
  'pix auth': '## pix login, logout and auth status',
  'pix emv': '## pix emv decode',
};

function commandSection(readme: string, path: readonly string[]): string | undefined {
  for (let length = path.length; length > 0; length--) {
    const name = ['pix', ...path.slice(0, length)].join(' ');
    const heading =
      SECTION_OF[name] ?? [`## ${name}`, `### ${name}`].find((h) => readme.includes(`\n${h}\n`));
    if (heading !== undefined) return section(readme, heading);
  }
  return undefined;
}

/** Pages that take a PIX key as typed, and pages of commands that move money. */
const READS_A_KEY = new Set(['pix-pay-key', 'pix-keys-show']);
const MOVES_MONEY = new Set(['pix-pay', 'pix-pay-key', 'pix-pay-qr', 'pix-pay-batch']);

/** Every man page: file name → roff text. `readme`: the README's text, where the longer sections are written. */
export async function manPages(version: string, readme: string): Promise<Map<string, string>> {
  const { deps } = createContext({ argv: [], io, env: { PIX_CONFIG_DIR: '/nonexistent/pix-man' } });
  const { program, facts } = await wholeProgram(deps);
  const meanings = exitMeanings(readme);
  const guards = roffOf(section(readme, '### What pix guarantees with money'));
  const environment = roffOf(section(readme, '## Environment variables'));
  const files = roffOf(section(readme, '## Files pix keeps'));
  const pages = new Map<string, string>();
  const visit = (command: Command, path: string[]) => {
    const name = ['pix', ...path].join('-');
    const children = command.commands.filter((sub) => sub.name() !== 'help');
    const seeAlso = [
      ...(path.length ? ['pix(1)'] : []),
      ...children.map((sub) => `${[name, sub.name()].join('-')}(1)`),
    ];
    const summary = command.summary() || command.description().split('\n')[0] || 'run a PIX account';
    const root = path.length === 0;
    const explained = root ? undefined : commandSection(readme, path);
    pages.set(
      `${name}.1`,
      [
        `.TH ${name.toUpperCase()} 1 "" "pix ${version}" "pix manual"`,
        '.SH NAME',
        `${name} \\- ${roff(summary)}`,
        '.SH SYNOPSIS',
        `.B ${['pix', ...path].join(' ')}`,
        roff(command.usage()),
        '.SH DESCRIPTION',
        '.nf',
        roff(helpOf(command)),
        '.fi',
        ...(READS_A_KEY.has(name)
          ? ['.SH HOW KEYS ARE READ', ...KEY_RULES.flatMap((rule) => ['.IP \\(bu 2', roff(rule)])]
          : []),
        ...(MOVES_MONEY.has(name) ? ['.SH GUARDS', guards] : []),
        ...(explained === undefined ? [] : ['.SH DETAILS AND EXAMPLES', roffOf(explained, true)]),
        ...(root
          ? ['.SH EXIT STATUS', roffOf(section(readme, '## Exit codes'))]
          : exitStatus(facts(command).exits ?? ['usage'], meanings)),
        // What --help cannot hold, on every page: where pix keeps its files and what it reads from the
        // environment (profiles, tokens, the pager), as the README says it once.
        '.SH ENVIRONMENT',
        environment,
        '.SH FILES',
        files,
        ...(seeAlso.length ? ['.SH SEE ALSO', seeAlso.join(', ')] : []),
        '',
      ].join('\n'),
    );
    for (const sub of children) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return pages;
}
