/**
 * Reading the journal (entries.ts has its format): its lines parsed into entries a piece at a time, each
 * line it cannot take kept as damage with its number, torn lines told apart, acceptances applied, and the
 * chain (chain.ts) followed as it reads (what breaks it is damage, like a line it cannot take).
 */
import { lineText, markTorn, TORN_MARK } from '../domain/lines.js';
import { type ChainTail, createChainFollower, lineDigest } from './chain.js';
import { type FinalState, type JournalEntry, type Resolution, shortId } from './entries.js';
import {
  anomaliesOf,
  createdOf,
  FINAL_STATES,
  type Intern,
  isRecord,
  matchOf,
  RESOLUTIONS,
  startEntry,
  str,
} from './linefields.js';

/**
 * A line the reader could not take: not JSON, not a journal line, a start line with missing or invalid
 * fields, or an outcome for an entry with no start line. `line` counts from 1, blank lines included,
 * as an editor numbers them. Nothing in a damaged line is trusted, so nothing it might say is lost
 * silently: money-moving commands stop until the operator has looked (`pix journal verify`).
 */
export interface JournalDamage {
  line: number;
  reason: string;
}

/** A damaged line and its text, as the parser keeps it. */
interface Damaged extends JournalDamage {
  text: string;
}

/**
 * The mark of a torn line (domain/lines.ts). In the journal: a write cut short never returned, so its
 * transfer was never sent and any outcome it carried is still unknown (the rules then hold the entry), and
 * skipping it loses nothing.
 */
export { TORN_MARK };

/**
 * A damaged line the operator has looked at (`pix journal verify --accept`): its number, what was
 * wrong, and the digest of its text (chain.ts lineDigest) when it is a line of the file; damage of the
 * journal's end (a cut) has none. The acceptance line, `{"at","accepted":[…],"prev"}`, lists them: a
 * damaged line with that number and text is no longer damage; the same number with other text still is.
 */
export interface AcceptedDamage {
  line: number;
  reason: string;
  digest?: string;
}

/** The line `pix journal verify --accept` appends (its `prev` is added by the store, as on every line). */
export function acceptLine(at: string, accepted: readonly AcceptedDamage[]): Record<string, unknown> {
  return { at, accepted };
}

/** What an acceptance line accepted, and when (for `pix journal verify`). */
export interface Acceptance {
  /** The acceptance line's number. */
  line: number;
  at: string;
  accepted: AcceptedDamage[];
}

/**
 * The journal text → its entries in the order they started (damaged lines left out: see
 * createJournalParser for what the reader says of them).
 */
export function parseJournal(text: string): JournalEntry[] {
  const parser = createJournalParser();
  parser.feed(text.endsWith('\n') ? text : `${text}\n`);
  return parser.entries();
}

/**
 * parseJournal fed a piece at a time: the journal only grows, so a reader that keeps its parser parses
 * only the lines appended since its last read. Feed whole lines. The entries it returns are its own: a
 * later feed updates them in place. Every line it cannot take is in `damage()`, with its number, except
 * a torn line followed by TORN_MARK (`torn()`): none is skipped without a word.
 */
export interface JournalParser {
  feed(lines: string): void;
  entries(): JournalEntry[];
  /** The entry with this exact id. */
  get(id: string): JournalEntry | undefined;
  damage(): JournalDamage[];
  /** Line numbers of torn writes (followed by TORN_MARK): skipped, and harmless. */
  torn(): number[];
  /** The damage with the digest of each damaged line's text (for `pix journal verify --accept`). */
  damageToAccept(): AcceptedDamage[];
  /** The acceptance lines read (`pix journal verify --accept`), oldest first. */
  acceptances(): Acceptance[];
  /** The digest the next line appended must name as its `prev` (chain.ts). */
  head(): string;
  /** Where the lines read end, for the checkpoint (chain.ts judgeCheckpoint); `bytes`: their length. */
  tail(bytes: number): ChainTail;
  /**
   * Where this parser stands, holding the entries `still` keeps, to resume from (`from`); undefined when
   * it is no place to resume: a damaged line was read, or the last line is no line of the chain.
   */
  state(still: (entry: JournalEntry) => boolean): ParserState | undefined;
}

/**
 * Where a parser stands after the lines it read, with the entries that still matter: enough to read on
 * from there (the journal's index, resume.ts) without the lines before.
 */
export interface ParserState {
  /** Lines read, as an editor numbers them. */
  lines: number;
  /** The `seq` the next entry gets. */
  seq: number;
  /** The chain's tail there (its `bytes` are the store's to say). */
  chain: ChainTail;
  entries: JournalEntry[];
}

/**
 * A parser resumed from a ParserState met a line of an entry it does not hold (an outcome, a finding or a
 * match of an entry it let go of): that line can only be judged with the history, which must be read.
 */
export class HistoryNeeded extends Error {
  constructor(id: string) {
    super(`a line of entry ${shortId(id)}, which the index does not hold`);
    this.name = 'HistoryNeeded';
  }
}

/** The kinds of line that change an entry after its start. */
export type ChangeLine = 'outcome' | 'match' | 'resolution';

/**
 * A reader that follows the journal as it grows (pix listen): told of every line that changes an entry it
 * holds, it lets go of an entry once nothing more can come of it, and keeps nothing of the entries it does
 * not hold, not even their ids (a year of paid batches is 50,000 ids, 13 MB of a listener's memory). So it
 * cannot tell a line of an entry it let go from one whose start is missing: it passes over both, and
 * `pix journal verify` is the judge of those. A line that cannot be read at all, or out of the chain, is
 * damage, as for any reader.
 */
export interface JournalWatch {
  /** Called after each line that changes a held entry, with what the line was. */
  changed(entry: JournalEntry, line: ChangeLine): void;
  /** Whether the entry, as it now is, is settled: it is let go. */
  settled(entry: JournalEntry): boolean;
}

/** What a parser has read so far, shared by its steps below (architecture rule 14). */
interface Parsing {
  readonly onStart: ((entry: JournalEntry) => void) | undefined;
  readonly keep: ((entry: JournalEntry) => boolean) | undefined;
  readonly watch: JournalWatch | undefined;
  /** Where it resumed (a parser's state()), if it did. */
  readonly resumed: boolean;
  readonly byId: Map<string, JournalEntry>;
  /** The ids of entries read and not held (keep said no), so their later lines are known to be theirs. */
  readonly passed: Set<string>;
  /** Each damaged line with its text: an acceptance names the text it accepted by its digest. */
  readonly damaged: Damaged[];
  readonly acceptances: Acceptance[];
  readonly chain: ReturnType<typeof createChainFollower>;
  readonly torn: number[];
  readonly intern: Intern;
  lineNumber: number;
  seq: number;
  /** An unreadable line is torn if the next line is TORN_MARK, else damaged: it waits for that line. */
  unreadable: Damaged | undefined;
}

/** One copy of each repeated text (a status, a reason, a profile), up to 10,000 of them. */
function createIntern(): Intern {
  const texts = new Map<string, string>();
  return (text) => {
    if (text === undefined) return undefined;
    const known = texts.get(text);
    if (known !== undefined) return known;
    if (texts.size < 10_000) texts.set(text, text);
    return text;
  };
}

/** An acceptance line: the damage it names (by line number and text) is damage no longer. */
function accept(parsing: Parsing, record: Record<string, unknown>): string | undefined {
  const items: AcceptedDamage[] = [];
  for (const item of record.accepted as unknown[]) {
    if (!isRecord(item) || !Number.isSafeInteger(item.line) || typeof item.reason !== 'string')
      return 'an acceptance line with missing or invalid fields';
    const digest = str(item.digest);
    items.push({
      line: item.line as number,
      reason: item.reason,
      ...(digest === undefined ? {} : { digest }),
    });
  }
  const { damaged } = parsing;
  for (const item of items) {
    const at = damaged.findIndex((one) => one.line === item.line && lineDigest(one.text) === item.digest);
    if (at >= 0) damaged.splice(at, 1);
  }
  parsing.acceptances.push({ line: parsing.lineNumber, at: str(record.at) ?? '', accepted: items });
  return undefined;
}

/** A start line (`sending`): a new entry, held or passed over. Why it could not be taken, if it could not. */
function takeStart(parsing: Parsing, record: Record<string, unknown> & { id: string }): string | undefined {
  const { byId, passed, keep } = parsing;
  if (byId.has(record.id) || passed.has(record.id))
    return `a second start line for entry ${shortId(record.id)}`;
  const entry = startEntry(record, parsing.intern);
  if (!entry) return `the start line of entry ${shortId(record.id)} has missing or invalid fields`;
  entry.seq = parsing.seq++;
  if (keep !== undefined && !keep(entry)) {
    if (parsing.watch === undefined) passed.add(entry.id);
    return undefined;
  }
  byId.set(entry.id, entry);
  parsing.onStart?.(entry);
  return undefined;
}

/** A line of the journal, parsed: why it could not be taken, if it could not. */
function take(parsing: Parsing, record: Record<string, unknown> | undefined): string | undefined {
  if (record === undefined) return 'not a journal line';
  if (Array.isArray(record.accepted)) return accept(parsing, record);
  if (typeof record.id !== 'string') return 'not a journal line (no id)';
  if (record.state === 'sending')
    return takeStart(parsing, record as Record<string, unknown> & { id: string });
  const { watch } = parsing;
  const entry = parsing.byId.get(record.id);
  if (!entry) {
    if (parsing.passed.has(record.id) || watch !== undefined) return undefined;
    if (parsing.resumed) throw new HistoryNeeded(record.id);
    return `an outcome for entry ${shortId(record.id)}, whose start line is missing or damaged`;
  }
  const applied = update(parsing.intern, entry, record);
  if (typeof applied !== 'object') return applied;
  if (watch !== undefined) {
    watch.changed(entry, applied.line);
    if (watch.settled(entry)) parsing.byId.delete(entry.id);
  }
  return undefined;
}

/** Applies an outcome line to its entry. */
function applyOutcome(
  intern: Intern,
  entry: JournalEntry,
  record: Record<string, unknown>,
  at: string | undefined,
) {
  entry.state = record.state as FinalState;
  for (const field of ['transferId', 'chargeId'] as const) {
    const given = str(record[field]);
    if (given !== undefined) entry[field] = given;
  }
  // A status or reason is one of a few words, on every line.
  for (const field of ['status', 'reason'] as const) {
    const given = intern(str(record[field]));
    if (given !== undefined) entry[field] = given;
  }
  const created = createdOf(record.created);
  if (created !== undefined) entry.created = created;
  const anomalies = anomaliesOf(record.anomalies);
  if (anomalies !== undefined) entry.anomalies = anomalies;
  if (at !== undefined) entry.finishedAt = at;
}

/** Applies a line after the start to its entry: what kind of line it was, or why it could not be. */
function update(
  intern: Intern,
  entry: JournalEntry,
  record: Record<string, unknown>,
): string | { line: ChangeLine } {
  const at = str(record.at);
  if (typeof record.state === 'string') {
    if (!FINAL_STATES.has(record.state)) return `entry ${shortId(entry.id)}: unknown state`;
    applyOutcome(intern, entry, record, at);
    return { line: 'outcome' };
  }
  if (record.match !== undefined) {
    const match = matchOf(record.match);
    if (match === undefined || entry.kind !== 'charge') return `entry ${shortId(entry.id)}: invalid match`;
    entry.match = match;
    if (at !== undefined) entry.matchedAt = at;
    return { line: 'match' };
  }
  if (typeof record.resolution === 'string' && RESOLUTIONS.has(record.resolution)) {
    entry.resolution = record.resolution as Resolution;
    if (at !== undefined) entry.resolvedAt = at;
    return { line: 'resolution' };
  }
  return `entry ${shortId(entry.id)}: a line with no state, match or resolution`;
}

function feedLine(parsing: Parsing, raw: string): void {
  const lineNumber = ++parsing.lineNumber;
  const line = lineText(raw, lineNumber);
  if (line === undefined) return;
  if (line === TORN_MARK) {
    parsing.unreadable = markTorn(parsing.unreadable, parsing.torn);
    return;
  }
  const { unreadable, damaged, chain } = parsing;
  if (unreadable !== undefined) {
    // Not torn after all: damage, and a line of the chain as the file has it.
    damaged.push(unreadable);
    chain.follow(unreadable.line, unreadable.text, null, true);
  }
  parsing.unreadable = undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // Only a line that is not JSON at all can be a write cut short.
    parsing.unreadable = { line: lineNumber, reason: 'not JSON', text: line };
    return;
  }
  const record = isRecord(value) ? value : undefined;
  const reason = take(parsing, record);
  const prev = record === undefined ? null : record.prev;
  const broken = chain.follow(lineNumber, line, prev, reason !== undefined);
  // A line out of its place (chain.ts) is said so first: that is what happened to it.
  const problem = broken ?? reason;
  if (problem !== undefined) damaged.push({ line: lineNumber, reason: problem, text: line });
}

function damagedNow(parsing: Parsing): Damaged[] {
  return parsing.unreadable === undefined ? parsing.damaged : [...parsing.damaged, parsing.unreadable];
}

/** Only a sound place to resume: no damage, and the last line read a line of the chain. */
function stateOf(parsing: Parsing, still: (entry: JournalEntry) => boolean): ParserState | undefined {
  if (damagedNow(parsing).length > 0) return undefined;
  const { lineNumber } = parsing;
  const tail = parsing.chain.tail(lineNumber, 0);
  if (tail.last?.line !== lineNumber) return undefined;
  return {
    lines: lineNumber,
    seq: parsing.seq,
    chain: tail,
    entries: [...parsing.byId.values()].filter(still),
  };
}

/**
 * `onStart` is called with each entry as its start line is read (the journal's index keeps up this way).
 * `keep`, when given, says which entries to hold: the others are parsed (so damage is still found) and
 * counted, and only their ids are kept, so that their later lines are known to belong to them. `watch`
 * (JournalWatch) hears of each change to a held entry and lets settled ones go (and then no id is kept).
 * `from` resumes where a parser's `state()` stood (the lines before it are not read again): a later line
 * of an entry it does not hold throws HistoryNeeded.
 */
export function createJournalParser(
  onStart?: (entry: JournalEntry) => void,
  keep?: (entry: JournalEntry) => boolean,
  watch?: JournalWatch,
  from?: ParserState,
): JournalParser {
  const byId = new Map<string, JournalEntry>();
  for (const entry of from?.entries ?? []) {
    byId.set(entry.id, entry);
    onStart?.(entry);
  }
  const parsing: Parsing = {
    onStart,
    keep,
    watch,
    resumed: from !== undefined,
    byId,
    passed: new Set<string>(),
    damaged: [],
    acceptances: [],
    chain: createChainFollower(from?.chain),
    torn: [],
    intern: createIntern(),
    lineNumber: from?.lines ?? 0,
    seq: from?.seq ?? 0,
    unreadable: undefined,
  };
  return {
    feed(lines) {
      // Only whole lines count: what follows the last newline is empty, or a torn tail still being written.
      const pieces = lines.split('\n');
      pieces.pop();
      for (const piece of pieces) feedLine(parsing, piece);
    },
    entries: () => [...byId.values()],
    get: (id) => byId.get(id),
    damage: () => damagedNow(parsing).map(({ line, reason }) => ({ line, reason })),
    torn: () => [...parsing.torn],
    damageToAccept: () =>
      damagedNow(parsing).map(({ line, reason, text }) => ({ line, reason, digest: lineDigest(text) })),
    acceptances: () => [...parsing.acceptances],
    head: () =>
      parsing.unreadable === undefined ? parsing.chain.head() : lineDigest(parsing.unreadable.text),
    tail: (bytes) => parsing.chain.tail(parsing.lineNumber, bytes, parsing.unreadable),
    state: (still) => stateOf(parsing, still),
  };
}
