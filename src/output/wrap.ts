/**
 * Text wrapped at word boundaries to a number of terminal columns: the one way pix wraps prose for
 * people — table cells of detail views (table.ts `wrap`) and what is said on a terminal's stderr
 * (writer.ts), so a note never breaks inside a word ("every colum/n").
 */
import { cutToWidth, displayWidth } from './width.js';

/**
 * `text` (one line, no control characters) as lines of at most `width` columns, broken at spaces; a
 * word wider than a whole line is split where the line ends (an id, a URL), or with `whole` left whole on
 * a line of its own, wider than `width`: the last column of a detail view, where the terminal wraps it
 * to the left edge, so an id is copied whole instead of in two indented halves. Never returns no line.
 */
export function wordLines(text: string, width: number, whole = false): string[] {
  if (width <= 0 || displayWidth(text) <= width) return [text];
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const word of text.split(' ')) {
    let rest = word;
    let size = displayWidth(rest);
    if (used > 0 && used + 1 + size <= width) {
      line += ` ${rest}`;
      used += 1 + size;
      continue;
    }
    if (used > 0) {
      lines.push(line);
      line = '';
      used = 0;
    }
    while (size > width && !whole) {
      // cutToWidth keeps whole graphemes and ends in `…`: take what it kept, without the `…`.
      const head = cutToWidth(rest, width + 1).slice(0, -1) || Array.from(rest)[0]!;
      lines.push(head);
      rest = rest.slice(head.length);
      size = displayWidth(rest);
    }
    line = rest;
    used = size;
  }
  lines.push(line);
  return lines;
}

/**
 * Continuing a terminal line that already holds `start` columns with `piece` (no newline): `piece`
 * broken at spaces so no word is split by the terminal's own wrapping; returns the text and the
 * column the cursor ends at. A word wider than the terminal is left to the terminal.
 */
function continueLine(piece: string, start: number, width: number): { text: string; column: number } {
  const whole = displayWidth(piece);
  if (start + whole <= width) return { text: piece, column: start + whole };
  let text = '';
  let column = start;
  // A `command` in backticks is one word: a newline inside it would be copied with it.
  const words = piece.replace(/`[^`]*`/g, (span) => span.replaceAll(' ', HELD_SPACE)).split(' ');
  words.forEach((held, index) => {
    const word = held.replaceAll(HELD_SPACE, ' ');
    const size = displayWidth(word);
    if (index > 0) {
      if (column > 0 && column + 1 + size > width) {
        text += '\n';
        column = 0;
      } else {
        text += ' ';
        column += 1;
      }
    }
    text += word;
    column += size;
    if (column > width) column = ((column - 1) % width) + 1; // the terminal wrapped a long word
  });
  return { text, column };
}

/**
 * A wrapper for what is written, chunk by chunk, to a terminal of `width()` columns: each line broken at
 * word boundaries. Each chunk is taken to start a line: what pix says is written a line (or a question)
 * at a time, and after a question the person's answer and Enter brought the cursor back to the start,
 * unseen by this. Chunks that move the cursor themselves (a `\r` progress line, escape sequences) and
 * JSON documents pass unchanged.
 */
export function createWordWrapper(width: () => number): (chunk: string) => string {
  return (chunk) => {
    // A JSON document (a `--json` error) is data, kept whole however a person sees it.
    if (/^[{[]/.test(chunk) || /[\r\u001b]/.test(chunk)) return chunk;
    const columns = width();
    return chunk
      .split('\n')
      .map((line) => (holdsCommand(line) ? line : continueLine(line, 0, columns).text))
      .join('\n');
  };
}

/**
 * A line that gives a command to copy outside backticks (a next-page hint: `…; next page: pix …`) is left
 * to the terminal's own wrapping: a newline put inside it would be copied with it, and the paste would run
 * half a command. Prose is wrapped; commands are not (a command in backticks moves to the next line whole).
 */
function holdsCommand(line: string): boolean {
  return /(^|[\s'"(])(npx )?pix [a-z-]/.test(line.replace(/`[^`]*`/g, ''));
}

/** Stands for a space inside a backtick span while a line is split into words. */
const HELD_SPACE = '\u0000';
