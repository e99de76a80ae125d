/**
 * What is asked of pix's one output writer (output/writer.ts makes it): `Output`, what commands ask besides
 * writing (deps.output: counting a list's records, what a lost output would lose, where it goes), and
 * `OutputWriter`, what the wiring and main.ts ask (its streams, commit, abort); where the output goes
 * (`OutputTarget`) and the pager it may start.
 */

import type { OutputCapture } from './capture.js';
import type { OutStream } from './iostreams.js';

/** Counts the records of a list as they are handed to stdout. */
export interface RecordTally {
  /** `count` (default 1) more records were written to stdout, whole: call it just after writing their text. */
  add(count?: number): void;
  /** The list is complete: a later failure of the command no longer makes it partial. */
  done(): void;
}

/** What commands ask of the writer, besides writing (deps.output). */
export interface Output {
  /**
   * A list of `total` records (undefined: not known) starts on stdout. If the command then fails or is
   * interrupted before `done()`, stderr says `interrupted: wrote 12,300 of 100,000 records` (or, on a
   * failure, `the output is incomplete: …`), counting only the records that reached the destination.
   */
  records(total?: number): RecordTally;
  /**
   * Something exists now whose only record was the output (`the charge was created: id …`): said on
   * stderr if the output cannot be written.
   */
  ifLost(note: string): void;
  /** Points stdout at its destination once the command is known (cli/program.ts, before it runs). */
  open(target: OutputTarget): Promise<void>;
  /**
   * What was written is the output even though the command ends by a signal (a live view's Ctrl-C): an
   * `--output-file` is put in place now, as on success (commit).
   */
  keep(): Promise<void>;
}

/** A running pager (output/pager.ts). */
export interface Pager {
  /** The pager's stdin. */
  input: OutStream;
  /** Ends its input and resolves when the person has quit it. */
  close(): Promise<void>;
  /** Stops it at once (SIGTERM ended pix). */
  kill(): void;
}

/**
 * Where the output goes, decided once the command is known (cli/program.ts). A `file` that cannot be
 * created is exit 2, before the command runs.
 */
export interface OutputTarget {
  /** `--output-file`: the path as the user gave it. */
  file?: string | undefined;
  /** `--force`: FILE may exist and is replaced; without it an existing FILE is exit 2, as for `--qr-png`. */
  replace?: boolean;
  /** Starts the pager; given only when stdout is a terminal and the command's output can be long. */
  pager?: (() => Pager) | undefined;
  /**
   * `--jq`/`--fields` (output/capture.ts): what the command writes is kept, and on `commit()` what the
   * transform made from the writer's streams makes of it is written instead; a failed command writes nothing.
   */
  capture?: OutputCapture | undefined;
}

export interface OutputWriter extends Output {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /**
   * The command succeeded: writes what is held, waits for every byte to be out, replaces FILE, waits
   * for the pager to be quit. Throws the write error (PixError, exit 1) when the output was lost.
   */
  commit(): Promise<void>;
  /**
   * The command failed: writes the whole records held (stdout), throws the temporary file away, ends
   * the pager (waits for it to be quit; kills it on SIGTERM). Returns the lines to say on stderr after
   * the error: the partial count, what was lost with the output.
   */
  abort(signal?: 'SIGINT' | 'SIGTERM'): Promise<{ partial?: string; lost: string[] }>;
  /** True once the reader went away (EPIPE): the run ends quietly. */
  readonly closed: boolean;
  /** A pager holds the terminal: a second Ctrl-C must not end pix under it. */
  readonly paging: boolean;
  /** Removes the temporary file at once (the process is about to exit on a second signal). */
  discardNow(): void;
}
