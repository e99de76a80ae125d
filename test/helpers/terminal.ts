/**
 * Runs the built binary on a real pseudo-terminal (util-linux `script`) of a given size, types into it
 * when the output reaches a given text, and renders everything it printed through a real terminal
 * emulator (@xterm/headless), so a test asserts on what a person would read, escape sequences and all.
 */
import { spawn } from 'node:child_process';
import xterm from '@xterm/headless';
import { BIN, NODE } from './cli.js';

export interface PtyStep {
  /** Wait until the output so far contains this (or matches it) before typing. */
  after?: string | RegExp;
  /** What to type; `\r` is Enter, `\u0003` is Ctrl-C (the terminal turns it into SIGINT). */
  send: string;
}

export interface PtyOptions {
  /** The whole environment of the child, besides PATH, HOME and TERM (nothing else is inherited). */
  env: Record<string, string>;
  columns?: number;
  rows?: number;
  steps?: PtyStep[];
  /** Killed (SIGKILL) after this long; default 15 s. */
  timeoutMs?: number;
  /**
   * A shell command line run instead of `pix ARGS`, where `pix` is the built binary, e.g.
   * `printf %s "$CODE" | pix pay qr -` for a pipe into pix while its stderr and /dev/tty are the terminal.
   */
  shell?: string;
}

export interface PtyResult {
  /** Exit code of pix (or of the shell line); 128 + n when a signal ended it. */
  code: number | null;
  /** Every byte written to the terminal, escape sequences included. */
  raw: string;
  /** Every line the terminal shows, scrollback included, as rendered (trailing spaces trimmed). */
  lines: string[];
  /** The visible screen only (the last `rows` lines), as rendered: what is in front of the person now. */
  screen: string[];
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** What a terminal of `columns` × `rows` shows after receiving `raw`. */
export async function renderTerminal(
  raw: string,
  columns: number,
  rows: number,
): Promise<{ lines: string[]; screen: string[] }> {
  const terminal = new xterm.Terminal({ cols: columns, rows, scrollback: 200_000, allowProposedApi: true });
  await new Promise<void>((resolve) => terminal.write(raw, resolve));
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let index = 0; index < buffer.length; index++) {
    lines.push(buffer.getLine(index)?.translateToString(true) ?? '');
  }
  const screen = lines.slice(buffer.baseY, buffer.baseY + rows);
  terminal.dispose();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return { lines, screen };
}

/** Runs `pix ARGS` (or `options.shell`) on a pty and returns what a person would have seen. */
export async function runOnPty(args: string[], options: PtyOptions): Promise<PtyResult> {
  const columns = options.columns ?? 80;
  const rows = options.rows ?? 24;
  const line = options.shell ?? `pix ${args.map(shellQuote).join(' ')}`;
  const command = `stty cols ${columns} rows ${rows}; pix() { "$PIX_NODE" "$PIX_BIN" "$@"; }; ${line}`;
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm-256color',
      // No pager unless the test is about it (sets PIX_PAGER or PAGER): less would wait for q on a tall output.
      ...(options.env && ('PIX_PAGER' in options.env || 'PAGER' in options.env) ? {} : { PIX_PAGER: '' }),
      ...options.env,
      PIX_NODE: NODE,
      PIX_BIN: BIN,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  const steps = [...(options.steps ?? [])];
  let typed = 0; // output already consumed by earlier steps' waits
  const advance = () => {
    while (steps.length > 0) {
      const step = steps[0]!;
      const rest = raw.slice(typed);
      if (step.after !== undefined) {
        const found =
          typeof step.after === 'string'
            ? rest.indexOf(step.after)
            : (() => {
                const match = step.after.exec(rest);
                return match ? match.index : -1;
              })();
        if (found === -1) return;
        typed += found + 1;
      }
      steps.shift();
      child.stdin.write(step.send);
    }
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    raw += chunk;
    advance();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    raw += chunk; // script's own complaints, if any
  });
  advance();
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exit) => resolve(exit));
  });
  clearTimeout(timer);
  const { lines, screen } = await renderTerminal(raw, columns, rows);
  return { code, raw, lines, screen };
}
