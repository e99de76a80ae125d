/**
 * The sandbox as any server the API document allows (docs/api.md, "What the document leaves open"): each
 * point the document does not show, or shows two ways, is a setting, so pix is tried against the servers
 * it may meet and not only against the one written beside it. The defaults are the
 * sandbox as it always answered.
 *
 * SPEC     = SETTING ("," SETTING)*          (PIX_SANDBOX_SERVER, for the embedded sandbox)
 * SETTING  = NAME "=" VALUE                  (`pix sandbox serve --NAME VALUE`, the same names)
 *
 * Two settings are not servers the document allows but servers that lose records (`empty-after`,
 * `short-after`): what pix must refuse to decide anything on.
 */
import { parseDuration } from '../domain/duration.js';

export interface ServerSettings {
  /** A `limit` above it is refused with 400 (API §8: the maximum is not shown). */
  maxPage: number;
  /** At most this many records a page, whatever `limit` asks (a server that clamps instead of refusing). */
  clampPage: number | undefined;
  /** Pages from this offset on come back empty while `total` still counts them (a server losing records). */
  emptyAfter: number | undefined;
  /** Pages from this offset on lose their last record (a server losing records: pages shorter than asked). */
  shortAfter: number | undefined;
  /**
   * The server's clock against this machine's, in ms; its answers then carry only the `Date` a real server
   * sends, not the sandbox's own clock header (sandbox/time.ts). Undefined: the sandbox as it is.
   */
  clockSkewMs: number | undefined;
  /** The order of list results (API §4: not shown): newest first, or oldest first. */
  order: 'newest' | 'oldest';
  /** Names in the statement: as given, or in upper case without accents, as many banks write them. */
  names: 'as-is' | 'upper-ascii';
  /** Documents in the statement: bare digits, masked (`***.456.789-**`), or none at all. */
  documents: 'bare' | 'masked' | 'none';
  /** The array of both lists: `result` for keys and `results` for the statement (the document), or one name for both. */
  listField: 'document' | 'results' | 'result';
  /** The key consultation's spelling of the end-to-end id: the document's `endtoEndId`, or `endToEndId`. */
  e2eSpelling: 'endtoEndId' | 'endToEndId';
  /** A due-date charge's type: the example's DUEDATE_QRCODE or the field list's DUE_DATE (API §2.2). */
  dueDateType: 'DUEDATE_QRCODE' | 'DUE_DATE';
  /** The success status of the POSTs that create (charges, transfer): not shown (API §4). */
  postStatus: 200 | 201;
  /** The shape of an error body: not shown (API §7). */
  errorShape: 'message' | 'error' | 'errors' | 'description' | 'detail' | 'text' | 'empty';
  /** Every answer compressed with gzip, asked for or not (whether a server compresses is not shown). */
  gzip: boolean;
}

export const DEFAULT_SERVER: Readonly<ServerSettings> = {
  maxPage: 1000,
  clampPage: undefined,
  emptyAfter: undefined,
  shortAfter: undefined,
  clockSkewMs: undefined,
  order: 'newest',
  names: 'as-is',
  documents: 'bare',
  listField: 'document',
  e2eSpelling: 'endtoEndId',
  dueDateType: 'DUEDATE_QRCODE',
  postStatus: 201,
  errorShape: 'message',
  gzip: false,
};

export class ServerSpecError extends Error {
  /** The setting that is wrong, as a flag names it (`max-page`). */
  readonly setting: string | undefined;
  constructor(message: string, setting?: string) {
    super(message);
    this.name = 'ServerSpecError';
    this.setting = setting;
  }
}

interface Setting {
  /** What it takes, for the help and the errors. */
  takes: string;
  /** The settings its value makes (throws ServerSpecError for a value it does not take). */
  read(value: string): Partial<ServerSettings>;
}

function count(min: number) {
  return (value: string): number => {
    if (!/^\d{1,9}$/.test(value) || Number(value) < min) {
      throw new ServerSpecError(`"${value}" is not a whole number from ${min}`);
    }
    return Number(value);
  };
}

function oneOf<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value)) {
      throw new ServerSpecError(`"${value}" is not one of ${values.join(', ')}`);
    }
    return value as T;
  };
}

/** A signed duration: `30s`, `-30s`, `2m`, `0s`. */
function skew(value: string): number {
  const negative = value.startsWith('-');
  const text = negative || value.startsWith('+') ? value.slice(1) : value;
  if (/^0+[smhd]?$/.test(text)) return 0;
  try {
    const ms = parseDuration(text).milliseconds;
    return negative ? -ms : ms;
  } catch {
    throw new ServerSpecError(`"${value}" is not a duration such as 30s, -30s or 2m`);
  }
}

/** Every setting by its name (the flag of `pix sandbox serve`, the NAME of a SPEC). */
export const SERVER_SETTINGS: Readonly<Record<string, Setting>> = {
  'max-page': { takes: 'N', read: (v) => ({ maxPage: count(1)(v) }) },
  'clamp-page': { takes: 'N', read: (v) => ({ clampPage: count(1)(v) }) },
  'empty-after': { takes: 'N', read: (v) => ({ emptyAfter: count(0)(v) }) },
  'short-after': { takes: 'N', read: (v) => ({ shortAfter: count(0)(v) }) },
  'clock-skew': { takes: 'DUR', read: (v) => ({ clockSkewMs: skew(v) }) },
  order: { takes: 'newest|oldest', read: (v) => ({ order: oneOf(['newest', 'oldest'] as const)(v) }) },
  names: {
    takes: 'as-is|upper-ascii',
    read: (v) => ({ names: oneOf(['as-is', 'upper-ascii'] as const)(v) }),
  },
  documents: {
    takes: 'bare|masked|none',
    read: (v) => ({ documents: oneOf(['bare', 'masked', 'none'] as const)(v) }),
  },
  'list-field': {
    takes: 'document|results|result',
    read: (v) => ({ listField: oneOf(['document', 'results', 'result'] as const)(v) }),
  },
  'e2e-spelling': {
    takes: 'endtoEndId|endToEndId',
    read: (v) => ({ e2eSpelling: oneOf(['endtoEndId', 'endToEndId'] as const)(v) }),
  },
  'due-date-type': {
    takes: 'DUEDATE_QRCODE|DUE_DATE',
    read: (v) => ({ dueDateType: oneOf(['DUEDATE_QRCODE', 'DUE_DATE'] as const)(v) }),
  },
  'post-status': {
    takes: '201|200',
    read: (v) => ({ postStatus: Number(oneOf(['200', '201'] as const)(v)) as 200 | 201 }),
  },
  'error-shape': {
    takes: 'message|error|errors|description|detail|text|empty',
    read: (v) => ({
      errorShape: oneOf(['message', 'error', 'errors', 'description', 'detail', 'text', 'empty'] as const)(v),
    }),
  },
  gzip: { takes: 'on|off', read: (v) => ({ gzip: oneOf(['on', 'off'] as const)(v) === 'on' }) },
};

/** Settings from NAME/VALUE pairs (flags, or a SPEC's settings); an error names the setting that is wrong. */
export function serverSettings(pairs: Iterable<readonly [string, string]>): ServerSettings {
  const settings: ServerSettings = { ...DEFAULT_SERVER };
  const given = new Set<string>();
  for (const [name, value] of pairs) {
    const setting = Object.hasOwn(SERVER_SETTINGS, name) ? SERVER_SETTINGS[name] : undefined;
    if (setting === undefined) {
      throw new ServerSpecError(
        `unknown setting "${name}" (use ${Object.keys(SERVER_SETTINGS).join(', ')})`,
        name,
      );
    }
    if (given.has(name)) throw new ServerSpecError(`"${name}" is given twice`, name);
    given.add(name);
    try {
      Object.assign(settings, setting.read(value.trim()));
    } catch (error) {
      if (error instanceof ServerSpecError) throw new ServerSpecError(`${name}: ${error.message}`, name);
      throw error;
    }
  }
  return settings;
}

/** A SPEC (`max-page=100,clock-skew=30s`); an empty one is the sandbox as it is. */
export function parseServerSpec(spec: string): ServerSettings {
  const pairs: Array<[string, string]> = [];
  for (const part of spec.split(',')) {
    const text = part.trim();
    if (text === '') continue;
    const at = text.indexOf('=');
    if (at <= 0) throw new ServerSpecError(`"${text}" is not NAME=VALUE, e.g. max-page=100`);
    pairs.push([text.slice(0, at).trim(), text.slice(at + 1)]);
  }
  return serverSettings(pairs);
}

/** The SPEC of `settings`: only what differs from the sandbox as it is (what a failing test prints). */
export function serverSpec(settings: ServerSettings): string {
  const parts: string[] = [];
  const put = (name: string, value: unknown, base: unknown) => {
    if (value !== base && value !== undefined) parts.push(`${name}=${String(value)}`);
  };
  put('max-page', settings.maxPage, DEFAULT_SERVER.maxPage);
  put('clamp-page', settings.clampPage, undefined);
  put('empty-after', settings.emptyAfter, undefined);
  put('short-after', settings.shortAfter, undefined);
  if (settings.clockSkewMs !== undefined) parts.push(`clock-skew=${settings.clockSkewMs / 1000}s`);
  put('order', settings.order, DEFAULT_SERVER.order);
  put('names', settings.names, DEFAULT_SERVER.names);
  put('documents', settings.documents, DEFAULT_SERVER.documents);
  put('list-field', settings.listField, DEFAULT_SERVER.listField);
  put('e2e-spelling', settings.e2eSpelling, DEFAULT_SERVER.e2eSpelling);
  put('due-date-type', settings.dueDateType, DEFAULT_SERVER.dueDateType);
  put('post-status', settings.postStatus, DEFAULT_SERVER.postStatus);
  put('error-shape', settings.errorShape, DEFAULT_SERVER.errorShape);
  if (settings.gzip) parts.push('gzip=on');
  return parts.join(',');
}

/** The server's clock: `clock` (the host's, or a test's) off by the setting's skew, when there is one. */
export function skewedClock(clock: () => Date, settings: ServerSettings): () => Date {
  const skewMs = settings.clockSkewMs;
  return skewMs === undefined || skewMs === 0 ? clock : () => new Date(clock().getTime() + skewMs);
}
