/**
 * The store: the sandbox's account (model.ts), persisted as one file through storage/ like every file of pix's.
 *
 * - The file is a log: line 1 is a snapshot (the SandboxState JSON, plus the `log` token that names it);
 *   every later line is the patch one `update` made (changes.ts: the small top-level fields, the records it
 *   made or changed, the activity entries it inserted). The state is the snapshot with the patches replayed
 *   in order. An update of a 1,000-payment account appends a line of a few kB instead of rewriting 1 MB.
 * - Writers take the lock of storage/locks.ts (`<file>.lock`; a lock whose process is dead, or older than 30 s,
 *   is stale and taken over), catch up with the file, mutate, and append one line (not fsync'd: a
 *   simulated account), so several CLI processes on the same file lose nothing. When the patches outgrow
 *   the snapshot, the writer replaces the file with one new snapshot line instead, atomically (temporary
 *   file + rename), as `reset` does.
 * - A line torn by a process killed mid-append has no newline: readers ignore it and the next writer cuts
 *   it off. A snapshot or a whole patch line that does not parse is a StateError (run `pix sandbox reset`).
 * - Readers take no lock: they keep a parsed copy and, when the file grew on the same inode, parse only
 *   the lines appended (each names its snapshot and its place after it, so a file replaced meanwhile is
 *   read whole). `readSandboxState` reads a file from outside a store.
 * - The file is opened refusing symbolic links; a missing directory is made 0700.
 * - The generated part of the statement is not stored entry by entry: it is `{count, seed, anchor}`
 *   (seed.ts regenerates the entries).
 */
import { lstatSync, type Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { appendPrivateLine } from '../storage/append.js';
import { ensurePrivateDir } from '../storage/dirs.js';
import { fileIdentity, readPrivateFrom, writeFileAtomic } from '../storage/files.js';
import { type LockHost, LockTimeoutError, withFileLock } from '../storage/locks.js';
import { applyPatch, type Patch, RECORD_COLLECTIONS, watch } from './changes.js';
import type { GeneratedStatement, SandboxState } from './model.js';
import { GeneratedEntries, initialState, StatementView } from './seed.js';

export class StateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateError';
  }
}

/** Patches are folded into a new snapshot when they outgrow the snapshot and this floor. */
const COMPACT_AT_BYTES = 64 * 1024;

/** A patch line: what one update changed (changes.ts), after the snapshot whose token is `log`. */
export type PatchLine = Patch & { log: string; seq: number };

/** What a store holds of its file: the state, and where in the file it stands. */
interface Loaded {
  state: SandboxState;
  /** The snapshot's token, named by every patch after it; undefined in a file written before the log. */
  log: string | undefined;
  /** Patches applied after the snapshot. */
  seq: number;
  /** Device and inode of the file read. */
  identity: string;
  /** Bytes read: the end of the last whole line. */
  offset: number;
  snapshotBytes: number;
  /** The file's size and mtime when everything in it had been read: nothing to read while they hold. */
  seen: { size: number; mtimeMs: number } | undefined;
}

/** The file's own stats (a symbolic link is not followed: reading it is then refused), or undefined. */
function statOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function corrupt(file: string, line: number, what: string): StateError {
  const where =
    line === 1 ? `the sandbox state file ${file}` : `line ${line} of the sandbox state file ${file}`;
  return new StateError(`${where} ${what}; run \`pix sandbox reset\``);
}

/** Parses a whole state file: the snapshot line, then every whole patch line (a torn last line is left). */
function parseLog(file: string, bytes: Buffer, identity: string): Loaded {
  let newline = bytes.indexOf(0x0a);
  // A snapshot is renamed into place whole, never torn: without a newline it is the whole file (as a file
  // written before the log was).
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8', 0, newline < 0 ? bytes.length : newline));
  } catch {
    // One JSON document over several lines (written before the log, or by hand) is a snapshot too.
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
      newline = -1;
    } catch {
      throw corrupt(file, 1, 'is not valid JSON');
    }
  }
  if (!isState(parsed)) throw corrupt(file, 1, 'is not a sandbox state');
  const { log, ...state } = parsed as SandboxState & { log?: unknown };
  const offset = newline < 0 ? bytes.length : newline + 1;
  const loaded: Loaded = {
    state,
    log: typeof log === 'string' ? log : undefined,
    seq: 0,
    identity,
    offset,
    snapshotBytes: offset,
    seen: undefined,
  };
  if (!applyLines(file, loaded, bytes.subarray(offset))) {
    throw corrupt(file, loaded.seq + 2, 'does not follow the line before it');
  }
  return loaded;
}

/**
 * Applies the whole lines of `tail` (the bytes after `loaded.offset`) to `loaded`, in place. False when a
 * line belongs to another snapshot or does not come next (the file was replaced), having applied the lines
 * before it; a line that is not a patch throws StateError.
 */
function applyLines(file: string, loaded: Loaded, tail: Buffer): boolean {
  let start = 0;
  for (let end = tail.indexOf(0x0a); end >= 0; end = tail.indexOf(0x0a, start)) {
    const line = loaded.seq + 2;
    let patch: unknown;
    try {
      patch = JSON.parse(tail.toString('utf8', start, end));
    } catch {
      throw corrupt(file, line, 'is not valid JSON');
    }
    if (!isPatchLine(patch)) throw corrupt(file, line, 'is not a sandbox state change');
    if (patch.log !== loaded.log || patch.seq !== loaded.seq + 1) return false;
    if (!applyPatch(loaded.state, patch)) throw corrupt(file, line, 'does not fit the state before it');
    loaded.seq++;
    loaded.offset += end + 1 - start;
    start = end + 1;
  }
  return true;
}

/**
 * The state a file holds (its snapshot with every whole patch replayed), read without a lock; undefined
 * when there is no file. Throws StateError for a corrupt one. For tests and tools that look at the file
 * from outside: the file is a log, not one JSON document.
 */
export function readSandboxState(file: string): SandboxState | undefined {
  const whole = readPrivateFrom(file, 0);
  return whole && parseLog(file, whole.bytes, whole.identity).state;
}

export interface StateStoreOptions {
  /** The clock, randomness and pids the state's lock runs by (storage/locks.ts): the command's Deps. */
  host: LockHost;
  /** Real time (default: the host's clock); sandbox time is this plus the state's clock offset. */
  clock?: () => Date;
  /** The patches are folded into a new snapshot when they outgrow it and this many bytes (64 KiB). */
  compactAtBytes?: number;
}

/**
 * One state file. Several stores (in this process or others) may share a file; `update` is the only
 * writer and runs its mutation under the lock on the freshest copy.
 */
export class StateStore {
  readonly file: string;
  private readonly host: LockHost;
  private readonly realClock: () => Date;
  private readonly compactAtBytes: number;
  private loaded: Loaded | undefined;
  private generatedCache: (GeneratedStatement & { entries: GeneratedEntries }) | undefined;
  private viewCache: { state: SandboxState; activity: number; view: StatementView } | undefined;

  constructor(file: string, options: StateStoreOptions) {
    this.file = file;
    this.host = options.host;
    this.realClock = options.clock ?? (() => options.host.clock.now());
    this.compactAtBytes = options.compactAtBytes ?? COMPACT_AT_BYTES;
  }

  /** Sandbox time for a state: real time plus its offset. */
  now(state: SandboxState): Date {
    return new Date(this.realClock().getTime() + state.clockOffsetMs);
  }

  realNow(): Date {
    return this.realClock();
  }

  /** Sandbox time by the state last read or written, without reading the file; undefined before that. */
  lastKnownNow(): Date | undefined {
    return this.loaded && this.now(this.loaded.state);
  }

  /**
   * The current state, without a lock (a new object when the file changed since the last read). Creates
   * the file (under the lock) when it does not exist.
   */
  async read(): Promise<SandboxState> {
    const loaded = this.catchUp();
    if (loaded) return loaded.state;
    return this.update((state) => state);
  }

  /**
   * Read-modify-write under the lock: catch up with the file, mutate, append one patch line (or write a
   * snapshot when the patches have grown past it). `mutate` must validate before it changes anything, and
   * change the state only through the object it is handed (changes.ts watches it); when it throws, nothing
   * is written and an in-memory copy it changed is dropped.
   */
  async update<T>(mutate: (state: SandboxState, now: Date) => T): Promise<T> {
    return this.withLock(() => {
      const loaded = this.catchUp();
      const state = loaded?.state ?? initialState(this.realClock());
      const watched = watch(state);
      let result: T;
      try {
        result = mutate(watched.state, this.now(state));
      } catch (error) {
        if (watched.touched()) this.forget();
        throw error;
      }
      if (!loaded) this.writeSnapshot(state);
      else if (watched.touched()) this.append(loaded, watched.patch());
      // The state itself is handed back as itself, not as the view the mutation saw.
      return (result as unknown) === watched.state ? (state as T) : result;
    });
  }

  /** Replaces the state with a fresh account (`pix sandbox reset`), atomically. */
  async reset(): Promise<SandboxState> {
    return this.withLock(() => {
      const state = initialState(this.realClock());
      this.writeSnapshot(state);
      return state;
    });
  }

  /** The whole statement (generated + activity), newest first, including entries not yet confirmed. */
  statement(state: SandboxState): StatementView {
    if (this.viewCache?.state === state && this.viewCache.activity === state.activity.length) {
      return this.viewCache.view;
    }
    const g = state.generated;
    const cached = this.generatedCache;
    let generated = cached?.entries;
    if (!generated || cached?.count !== g.count || cached.seed !== g.seed || cached.anchor !== g.anchor) {
      generated = new GeneratedEntries(g);
      this.generatedCache = { ...g, entries: generated };
    }
    const view = new StatementView(generated, state.activity);
    this.viewCache = { state, activity: state.activity.length, view };
    return view;
  }

  private forget(): undefined {
    this.loaded = undefined;
    this.viewCache = undefined;
    return undefined;
  }

  /**
   * Brings the copy up to date with the file: nothing to do while its size and mtime hold; the appended
   * lines only when it grew on the same inode; the whole file when it was replaced, cut, or changed in a
   * way the lines appended do not explain. Undefined when there is no file.
   */
  private catchUp(): Loaded | undefined {
    const stats = statOrUndefined(this.file);
    if (!stats) return this.forget();
    const loaded = this.loaded;
    if (loaded && fileIdentity(stats) === loaded.identity) {
      if (loaded.seen?.size === stats.size && loaded.seen.mtimeMs === stats.mtimeMs) return loaded;
      if (stats.size >= loaded.offset && this.readAppended(loaded, stats)) return loaded;
    }
    return this.readWhole();
  }

  /** Applies the lines appended since `loaded` was read; false when the file turns out to be another. */
  private readAppended(loaded: Loaded, stats: Stats): boolean {
    const tail = readPrivateFrom(this.file, loaded.offset);
    if (!tail || tail.identity !== loaded.identity || tail.size < loaded.offset) return false;
    // Same size and inode as what was read, another mtime: rewritten in place of the same length.
    if (tail.size === loaded.offset && loaded.seen !== undefined) return false;
    if (tail.bytes.includes(0x0a)) {
      // A changed state is a new object, as when read whole: a state handed out before stays as it was.
      const { state } = loaded;
      loaded.state = {
        ...state,
        activity: state.activity.slice(),
        charges: { ...state.charges },
        consultations: { ...state.consultations },
        transfers: { ...state.transfers },
      };
      this.viewCache = undefined;
    }
    try {
      if (!applyLines(this.file, loaded, tail.bytes)) return false;
    } catch (error) {
      // Not a line where one should start: replaced. Read whole, the file says whether it is corrupt.
      if (error instanceof StateError) return false;
      throw error;
    }
    const whole = loaded.offset === tail.size && tail.size === stats.size;
    loaded.seen = whole ? { size: stats.size, mtimeMs: stats.mtimeMs } : undefined;
    return true;
  }

  private readWhole(): Loaded | undefined {
    this.forget();
    const whole = readPrivateFrom(this.file, 0);
    if (!whole) return undefined;
    const loaded = parseLog(this.file, whole.bytes, whole.identity);
    // Stat again after reading: the file may have grown or been replaced meanwhile.
    const after = statOrUndefined(this.file);
    if (after && fileIdentity(after) === loaded.identity && after.size === loaded.offset) {
      loaded.seen = { size: after.size, mtimeMs: after.mtimeMs };
    }
    this.loaded = loaded;
    return loaded;
  }

  /** Under the lock: appends one patch line, or writes a snapshot when a patch cannot say the change. */
  private append(loaded: Loaded, patch: Patch | undefined): void {
    if (patch === undefined || loaded.log === undefined) {
      this.writeSnapshot(loaded.state);
      return;
    }
    const line = JSON.stringify({ log: loaded.log, seq: loaded.seq + 1, ...patch });
    const patchBytes = loaded.offset - loaded.snapshotBytes + Buffer.byteLength(line) + 1;
    if (patchBytes > Math.max(loaded.snapshotBytes, this.compactAtBytes)) {
      this.writeSnapshot(loaded.state);
      return;
    }
    // A line torn by a writer killed mid-append (past `offset`, not read) is cut off first.
    const after = appendPrivateLine(this.file, line, { durable: false, torn: 'cut' });
    if (after.identity !== loaded.identity) {
      this.forget(); // replaced by someone not taking the lock: read it again next time
      return;
    }
    loaded.seq++;
    loaded.offset = after.size;
    loaded.seen = { size: after.size, mtimeMs: after.mtimeMs };
    this.viewCache = undefined;
  }

  /** Under the lock: replaces the file with one snapshot line, under a new token. */
  private writeSnapshot(state: SandboxState): void {
    // Web Crypto's global: a command that only reads the sandbox does not load node:crypto.
    const log = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(8))).toString('hex');
    // A simulated account: replaced atomically (never a torn file), without waiting on the disk each time.
    writeFileAtomic(this.file, `${JSON.stringify({ log, ...state })}\n`, { durable: false });
    const stats = statSync(this.file);
    this.loaded = {
      state,
      log,
      seq: 0,
      identity: fileIdentity(stats),
      offset: stats.size,
      snapshotBytes: stats.size,
      seen: { size: stats.size, mtimeMs: stats.mtimeMs },
    };
    this.viewCache = undefined;
  }

  private async withLock<T>(work: () => T): Promise<T> {
    // A directory the user named for the file is left as it is; a missing one is made 0700. (The default
    // file's directory, the config directory, is checked by paths.ts.)
    ensurePrivateDir(dirname(this.file), { own: false });
    try {
      return await withFileLock(this.file, `the sandbox state ${this.file}`, this.host, work);
    } catch (error) {
      // The lock's wait ran out: the server reports a StateError's message in its 500.
      if (error instanceof LockTimeoutError) throw new StateError(error.message);
      throw error;
    }
  }
}

/**
 * The shape of a state file's lines: a snapshot is a SandboxState of this version, a patch line names its
 * snapshot and place and changes only what an update may. A line of another shape is a damaged file, not
 * a state to use.
 */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPatchLine(value: unknown): value is PatchLine {
  if (!isRecord(value)) return false;
  const { log, seq, top, activity } = value;
  if (typeof log !== 'string' || !Number.isSafeInteger(seq) || !isRecord(top)) return false;
  if ('activity' in top || RECORD_COLLECTIONS.some((name) => name in top)) return false;
  if (!isState({ ...top, activity: [], charges: {}, consultations: {}, transfers: {} })) return false;
  for (const name of RECORD_COLLECTIONS) {
    const changed = value[name];
    if (changed === undefined) continue;
    if (!isRecord(changed) || !Object.values(changed).every((r) => r === null || isRecord(r))) return false;
  }
  return (
    activity === undefined ||
    (Array.isArray(activity) &&
      activity.every(
        (pair) =>
          Array.isArray(pair) &&
          pair.length === 2 &&
          Number.isSafeInteger(pair[0]) &&
          pair[0] >= 0 &&
          isRecord(pair[1]),
      ))
  );
}

function isState(value: unknown): value is SandboxState {
  if (typeof value !== 'object' || value === null) return false;
  const state = value as Partial<SandboxState>;
  return (
    state.version === 1 &&
    Array.isArray(state.keys) &&
    Array.isArray(state.activity) &&
    typeof state.generated === 'object' &&
    typeof state.charges === 'object' &&
    typeof state.consultations === 'object' &&
    typeof state.transfers === 'object' &&
    typeof state.clockOffsetMs === 'number'
  );
}
