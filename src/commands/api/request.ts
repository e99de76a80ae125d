/**
 * `pix api PATH`: an authenticated request to any path under the API's base, through the one client (the
 * same token minting, timeout, retries, --verbose redaction and secret scan), printing the answer's JSON.
 * It cannot move money: it reads (GET, HEAD, no body), and its one write is POST to the two consultations;
 * anything else is refused before anything is sent (domain/apipath.ts, a list of what is allowed), because
 * money goes through `pix pay` and `pix charge`, their guards and the journal.
 *
 * `-f k=v` (string) and `-F k=v` (typed) build the JSON body, or the query of a GET; `--input` sends a
 * JSON body; `-H` adds a header; `-i` prints the status and the allowlisted headers first; `--paginate`
 * follows `limit`/`offset` until `total`, printing each page (`--slurp`: one array of them).
 */
import type { Command } from 'commander';
import type { Endpoint } from '../../api/endpoint.js';
import type { Deps } from '../../context.js';
import {
  API_BASE,
  type ApiPath,
  apiRefusal,
  apiRetrySafe,
  parseApiPath,
  parseHeader,
} from '../../domain/apipath.js';
import { InvalidValue } from '../../domain/invalid.js';
import { incompleteList, PixError, usageError } from '../../errors.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { fileName, readInputFile } from '../shared/files.js';
import { collect, fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
type Method = (typeof METHODS)[number];

function parseMethod(text: string): Method {
  const method = text.trim().toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) {
    throw new InvalidValue(`"${text}" is not a method (${METHODS.join(', ')})`);
  }
  return method as Method;
}

/** `key=value`, split at the first `=`. */
function parseField(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new InvalidValue(`"${text}" is not key=value`);
  return [text.slice(0, at), text.slice(at + 1)];
}

const apiOptionsSchema = z.object({
  path: fromDomain(parseApiPath),
  method: z.optional(fromDomain(parseMethod)),
  rawField: z._default(z.array(fromDomain(parseField)), []),
  field: z._default(z.array(fromDomain(parseField)), []),
  input: z.optional(z.string().check(z.minLength(1))),
  header: z._default(z.array(fromDomain(parseHeader)), []),
  include: z._default(z.boolean(), false),
  paginate: z._default(z.boolean(), false),
  slurp: z._default(z.boolean(), false),
});

export type ApiOptions = z.output<typeof apiOptionsSchema>;

/** `-F`'s typed value: a number, true, false, null, `@file`'s text, else the text. */
async function typedValue(text: string, deps: Deps): Promise<unknown> {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(text)) return Number(text);
  if (text.startsWith('@'))
    return (await readInputFile(text.slice(1), deps, "the field's value", '-F')).toString('utf8').trimEnd();
  return text;
}

/** What the flags add to the request: a JSON body, or (for GET and HEAD, from -f/-F) query fields. */
async function bodyOf(
  options: ApiOptions,
  method: Method,
  deps: Deps,
): Promise<{ body?: unknown; query?: Record<string, unknown> }> {
  if (options.input !== undefined) {
    if (options.rawField.length || options.field.length)
      throw usageError('--input', 'cannot be combined with -f/-F');
    const text = (await readInputFile(options.input, deps, 'the JSON body', '--input')).toString('utf8');
    try {
      return { body: JSON.parse(text) };
    } catch {
      throw usageError('--input', `${fileName(options.input)} is not JSON`);
    }
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of options.rawField) fields[key] = value;
  for (const [key, value] of options.field) fields[key] = await typedValue(value, deps);
  if (Object.keys(fields).length === 0) return {};
  return method === 'GET' || method === 'HEAD' ? { query: fields } : { body: fields };
}

/** The array of a page (`results` for the statement, `result` for keys) and its `total`. */
function pageOf(value: unknown): { items: unknown[]; total: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const page = value as Record<string, unknown>;
  const items = Array.isArray(page.results)
    ? page.results
    : Array.isArray(page.result)
      ? page.result
      : undefined;
  return items && typeof page.total === 'number' ? { items, total: page.total } : undefined;
}

export async function runApi(options: ApiOptions, deps: Deps): Promise<void> {
  const { stdout, stderr } = deps.io;
  const method: Method =
    options.method ?? (options.input || options.rawField.length || options.field.length ? 'POST' : 'GET');
  const target: ApiPath = options.path;
  // The allowlist (domain/apipath.ts) is asked before anything is read or sent; again once the body is
  // known, since a GET or HEAD may carry none.
  const refuse = (hasBody: boolean) => {
    const refusal = apiRefusal(method, target, hasBody);
    if (refusal) throw usageError('PATH', `${method} ${API_BASE}${target.path} is not sent: ${refusal}`);
  };
  refuse(options.input !== undefined);
  if (options.slurp && !options.paginate) throw usageError('--slurp', 'goes with --paginate');
  if (options.paginate && method !== 'GET') throw usageError('--paginate', 'follows the pages of a GET');
  if (options.include && deps.globals.jq !== undefined)
    throw usageError('--include', 'cannot go with --jq (jq reads JSON)');
  const body = await bodyOf(options, method, deps);
  refuse(body.body !== undefined);
  const query: Record<string, string> = Object.fromEntries(target.query);
  for (const [key, value] of Object.entries(body.query ?? {})) query[key] = String(value);
  const sendBody = body.body;
  const endpoint: Endpoint<unknown> = {
    name: 'api',
    what: `${method} ${target.path}`,
    method,
    path: `${API_BASE}${target.path}`,
    retry: apiRetrySafe(method, target) ? 'safe' : 'never',
    schema: () => z.unknown(),
    emptyOk: true,
  };
  const client = await deps.api();
  const pretty = stdout.isTTY;
  const request = async (pageQuery: Record<string, string>) => {
    try {
      return await client.request(endpoint, {
        query: pageQuery,
        ...(sendBody === undefined ? {} : { body: sendBody }),
        headers: Object.fromEntries(options.header),
        seen: (status, headers) => {
          if (options.include)
            stdout.write(`HTTP ${status}\n${headers.map((line) => `${line}\n`).join('')}\n`);
        },
      });
    } catch (error) {
      // The server's answer to a refusal goes to stderr (never stdout with exit 0), then the exit code.
      if (error instanceof PixError && error.server !== undefined) {
        const text = typeof error.server === 'string' ? error.server : jsonDocument(error.server, false);
        stderr.write(`${text.trimEnd()}\n`);
      }
      throw error;
    }
  };

  if (!options.paginate) {
    const value = await request(query);
    if (method !== 'HEAD') stdout.write(jsonDocument(value, pretty));
    return;
  }
  const start = Number(query.offset ?? 0);
  let offset = start;
  const limit = query.limit ?? '100';
  const pages: unknown[] = [];
  // Records told apart by their id (both lists have one), else by their JSON: a page of records already
  // received is no progress, whatever its length.
  const seen = new Set<string>();
  const identity = (item: unknown) =>
    typeof item === 'object' && item !== null && typeof (item as { id?: unknown }).id === 'string'
      ? `id ${(item as { id: string }).id}`
      : `json ${JSON.stringify(item)}`;
  for (;;) {
    const value = await request({ ...query, limit, offset: String(offset) });
    const page = pageOf(value);
    if (!page)
      throw usageError('--paginate', `${target.path} does not answer pages ({"total", "results"|"result"})`);
    const before = seen.size;
    for (const item of page.items) seen.add(identity(item));
    if (options.slurp) pages.push(value);
    else stdout.write(jsonDocument(value, false));
    offset += page.items.length;
    if (offset >= page.total) break;
    // The first page that brings nothing new before the total ends it (contract §4: exit 6), as every
    // pager of pix does (commands/shared/export.ts).
    if (seen.size === before) {
      if (options.slurp) stdout.write(jsonDocument(pages, pretty));
      throw incompleteList(
        `--paginate: ${target.path}`,
        { received: seen.size, expected: page.total - start },
        'the server stopped handing out records before its own total; the pages received were printed',
      );
    }
  }
  if (options.slurp) stdout.write(jsonDocument(pages, pretty));
}

export const verb = describeVerb({
  summary: 'An authenticated request to any path of the API (it cannot move money)',
  formats: ['json'],
  fields: true,
  examples: [
    'pix api /pix/keys',
    "pix api '/account/transactions?limit=5' --jq '.results[].amount'",
    'pix api /pix/dict/consult -f key=ana@example.com',
    'pix api /pix/keys --paginate --slurp --jq "map(.result | length) | add"',
  ],
  exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<path>', `a path under ${API_BASE}, with its query: /pix/keys?limit=5`)
    .option('-X, --method <method>', `${METHODS.join(', ')} (default GET, or POST with -f/-F/--input)`)
    .option('-f, --raw-field <key=value>', 'a string field of the JSON body (the query, for GET)', collect)
    .option('-F, --field <key=value>', 'a typed field: number, true, false, null, @file', collect)
    .option('--input <file>', 'the JSON body from FILE (- for stdin)')
    .option('-H, --header <header>', "an extra header, 'Name: value' (never Authorization)", collect)
    .option('-i, --include', 'print the status and headers (allowlisted, as --verbose) before the body')
    .option('--paginate', 'follow limit/offset pages until total, printing each page')
    .option('--slurp', 'with --paginate: one JSON array of every page')
    .action(async (path: string, _options, self: Command) => {
      const raw = { ...self.opts(), path };
      await runApi(parseOptions(apiOptionsSchema, raw, { path: 'PATH' }), deps);
    });
}
