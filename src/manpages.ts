/**
 * The man pages, made at build time from the command tree itself (scripts/build.mjs writes them to man/):
 * `pix.1` and one page per command (`pix-statement.1`, `pix-statement-summary.1`), each the command's own
 * `--help` (usage, options, examples, exit codes) under roff headings, so they never drift from it.
 * package.json's `man` lists them (test/e2e/install.test.ts checks it names every page made), so
 * `npm install -g` installs them: `man pix-statement`.
 */
import type { Command } from 'commander';
// Static imports: this module is its own throwaway bundle (scripts/build.mjs); an `import()` here would
// make a split point of the CLI's build (scripts/build/common-chunk.mjs reads every `import()` in src/).
import { wholeProgram } from './cli/load.js';
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

/** Every man page: file name → roff text. */
export async function manPages(version: string): Promise<Map<string, string>> {
  const { deps } = createContext({ argv: [], io, env: { PIX_CONFIG_DIR: '/nonexistent/pix-man' } });
  const program = await wholeProgram(deps);
  const pages = new Map<string, string>();
  const visit = (command: Command, path: string[]) => {
    const name = ['pix', ...path].join('-');
    const children = command.commands.filter((sub) => sub.name() !== 'help');
    const seeAlso = [
      ...(path.length ? ['pix(1)'] : []),
      ...children.map((sub) => `${[name, sub.name()].join('-')}(1)`),
    ];
    const summary = command.summary() || command.description().split('\n')[0] || 'run a PIX account';
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
        ...(seeAlso.length ? ['.SH SEE ALSO', seeAlso.join(', ')] : []),
        '',
      ].join('\n'),
    );
    for (const sub of children) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return pages;
}
