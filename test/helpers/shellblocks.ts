/**
 * The shell examples of a Markdown document, run as a reader copies them (test/e2e/readme.test.ts runs the
 * README's, test/e2e/guides.test.ts the guides of docs/): each ```sh, ```bash, ```shell block (or the `$ `
 * lines of a ```console session) pasted into bash under `set -euo pipefail` on a pseudo-terminal (a question
 * gets its `y`), in a fresh HOME, with `pix` the built binary. A line whose comment says `# template: …` is
 * a form to fill in and is not run; neither are the lines a test names with its reason. A README block runs
 * alone (blocks share nothing); a guide's blocks run in order in one shell, as a reader follows a guide.
 */
import { readFileSync } from 'node:fs';

export const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
/** Fenced blocks that are not shell (shown output, a file's content, code): never run. */
export const NOT_SHELL = new Set(['text', 'json', 'js', 'ini', 'sql']);

export interface Line {
  /** Where it starts in the document (1-based). */
  at: number;
  /** As written, continuation lines (and a heredoc's body) joined with their newlines. */
  text: string;
  /** Without its trailing comment: what a test's lists of lines not run are keyed by. */
  command: string;
  template: boolean;
}

export interface Block {
  at: number;
  lang: string;
  lines: Line[];
}

const commandOf = (text: string) => text.replace(/\s+#\s.*$/, '').trim();
const continues = (text: string) => /\\\s*$/.test(text.replace(/\s+#\s.*$/, ''));
/** The word that ends a heredoc the line opens (`<<'SQL'`, `<<EOF`), if it opens one. */
const heredocOf = (text: string) => /<<-?\s*'?"?([A-Za-z_]+)'?"?/.exec(text.replace(/\s+#\s.*$/, ''))?.[1];

/** Every fenced block of a document with its language; for shell blocks, the command lines. */
export function documentBlocks(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: Block[] = [];
  let block: Block | undefined;
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    if (block === undefined) {
      const lang = /^```(\w*)/.exec(line)?.[1];
      if (lang !== undefined) block = { at: at + 1, lang, lines: [] };
      continue;
    }
    if (line.startsWith('```')) {
      blocks.push(block);
      block = undefined;
      continue;
    }
    if (!SHELL.has(block.lang)) continue;
    // A console session: only the `$ ` lines are typed; the others are what it printed.
    let text = block.lang === 'console' ? (line.startsWith('$ ') ? line.slice(2) : '') : line;
    if (text.trim() === '' || text.trimStart().startsWith('#')) continue;
    const start = at;
    while (continues(text) && at + 1 < lines.length) text += `\n${lines[++at]}`;
    // A heredoc's body belongs to its line, up to the word that ends it.
    const end = heredocOf(text);
    const head = text;
    if (end !== undefined) {
      while (at + 1 < lines.length && lines[at + 1] !== end) text += `\n${lines[++at]}`;
      if (at + 1 < lines.length) text += `\n${lines[++at]}`;
    }
    block.lines.push({ at: start + 1, text, command: commandOf(head), template: /#\s*template:/.test(head) });
  }
  return blocks;
}

/** Whether a line is run: not a template, not one of `notRun`'s. */
export const runs = (notRun: ReadonlyMap<string, string>) => (line: Line) =>
  !line.template && !notRun.has(line.command);

/** Lines as one bash script: each line that runs, in order, naming its document line when it fails. */
export function linesScript(
  file: string,
  lines: readonly Line[],
  notRun: ReadonlyMap<string, string>,
): string {
  const body = lines.filter(runs(notRun)).map((line) => `__line=${line.at}\n${line.text}`);
  return [
    'set -euo pipefail',
    // On the way out, say where it stopped, and stop what the block left in the background (a server).
    `trap 'code=$?; [ "$code" = 0 ] || echo "${file}:$__line exited $code" >&2; kill $(jobs -p) 2>/dev/null || true; exit "$code"' EXIT`,
    'cd "$HOME"',
    ...body,
  ].join('\n');
}
