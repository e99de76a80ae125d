/**
 * Reading back the lines pix appends (storage/append.ts appendPrivateLine) to an append-only log: which
 * lines are damage and which are torn writes. The event log (domain/event-log.ts) reads its lines with
 * createLineReader; the journal (journal/parser.ts) judges torn lines by the same TORN_MARK, in a reader
 * of its own that also follows the chain of its lines (journal/chain.ts). Pure: lines in, judgements out.
 */

/**
 * The line a writer appends before its own when it finds the file ending in a torn line (one without a
 * newline: a write cut short, by a kill, a full disk or a power cut). It marks that line as torn, not
 * damaged: a write cut short never returned, so whatever it was to record is still to come. A writer may
 * also have seen another writer's line half written (the size grows page by page), which is whole by the
 * time it is read: a mark after a good line says nothing.
 */
export const TORN_MARK = '{"torn":true}';

/**
 * A log's line as a reader takes it: without the byte-order mark some editors add at the start of the file
 * (line 1), undefined when blank (passed over).
 */
export function lineText(raw: string, number: number): string | undefined {
  const line = number === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  return line.trim() === '' ? undefined : line;
}

/**
 * TORN_MARK was read: the line before it that was not JSON (`pending`) was a torn write, counted in `torn`;
 * a mark after a good line says nothing. Returns what is pending now: nothing.
 */
export function markTorn(pending: { line: number } | undefined, torn: number[]): undefined {
  if (pending !== undefined) torn.push(pending.line);
  return undefined;
}

/** A line a reader could not take; `line` counts from 1, blank lines included, as an editor numbers them. */
export interface LineDamage {
  line: number;
  reason: string;
}

/** What `take` says of a line that is not JSON at all: only such a line can be a write cut short. */
export const NOT_JSON = 'not JSON';

/**
 * Judges a log line by line. `take(line, number)` reads one line (a byte-order mark some editors add at
 * the start of the file dropped, blank lines passed over): undefined when taken, else why not. A line that
 * is not JSON (NOT_JSON) waits for the next: TORN_MARK after it makes it a torn write, anything else
 * damage. Nothing is skipped without a word.
 */
export function createLineReader(take: (line: string, number: number) => string | undefined) {
  const damaged: LineDamage[] = [];
  const torn: number[] = [];
  let number = 0;
  let unreadable: LineDamage | undefined;
  const settle = () => {
    if (unreadable !== undefined) damaged.push(unreadable);
    unreadable = undefined;
  };
  return {
    /** One whole line, without its newline. */
    feed(raw: string): void {
      number++;
      const line = lineText(raw, number);
      if (line === undefined) return;
      if (line === TORN_MARK) {
        unreadable = markTorn(unreadable, torn);
        return;
      }
      settle();
      const reason = take(line, number);
      if (reason === undefined) return;
      if (reason === NOT_JSON) unreadable = { line: number, reason };
      else damaged.push({ line: number, reason });
    },
    /** The text after the file's last newline: a write a kill cut short (the next writer will mark it). */
    tail(text: string): void {
      if (text.length === 0) return;
      settle();
      torn.push(++number);
    },
    /** Damage found beside the lines (a line naming what no earlier line made). */
    report(problem: LineDamage): void {
      damaged.push(problem);
    },
    /** Lines fed so far. */
    lines: () => number,
    damage: (): LineDamage[] =>
      (unreadable === undefined ? [...damaged] : [...damaged, unreadable]).sort((a, b) => a.line - b.line),
    torn: () => [...torn],
  };
}
