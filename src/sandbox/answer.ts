/**
 * What the sandbox answers to a request: routing, the bearer-token check, the body's JSON, and the answer's
 * status, headers and JSON text. No sockets and no HTTP parsing here: `server.ts` feeds it requests read
 * from node:http (`pix sandbox serve`, and the embedded sandbox with PIX_SANDBOX_FAULTS), and the embedded
 * sandbox calls it in-process (`embedded.ts`).
 *
 * Error bodies have one shape, `{"message": "<Portuguese text>", "code": "<UPPER_SNAKE>"}`, and success
 * codes are 201 for the two charge endpoints and the transfer, 200 for everything else, unless the server
 * settings say otherwise (serversettings.ts: asServer words every answer as the server chosen).
 */

import { BRASILIA_TIME_ZONE, loadBusinessDayTest } from '../domain/duedate.js';
import { todayIn } from '../domain/when.js';
import { describeSystemError } from '../errors.js';
import { asBody } from './body.js';
import { chargeView, createDueDate, createImmediate, validateDueDate, validateImmediate } from './charges.js';
import { consultDict, consultEmv } from './consultations.js';
import { ApiFailure } from './failure.js';
import type { FaultEndpoint } from './faults.js';
import { DEFAULT_SERVER, type ServerSettings } from './serversettings.js';
import { keysPage, statementPage } from './statement.js';
import { StateError, type StateStore } from './store.js';
import { SANDBOX_TIME_HEADER } from './time.js';
import { transfer } from './transfers.js';

/** A request as the sandbox sees it, however it arrived. */
export interface SandboxRequest {
  method: string;
  /** The path with its query string, as received (`/api/financial/v1/pix/keys?limit=1`). */
  url: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body's text ('' when there is none). */
  body: string;
}

/**
 * An answer: its status, its headers (content-type and content-length first, in that order) and its text,
 * or its bytes when compressed (serversettings.ts gzip).
 */
export interface SandboxAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

export const SANDBOX_CLIENT_KEY = 'sandbox-client-key';
export const SANDBOX_CLIENT_SECRET = 'sandbox-client-secret';
/** A bearer token the sandbox always refuses with 401. */
export const EXPIRED_TOKEN = 'sandbox-expired-token';
/** A bearer token whose account does not exist: the statement answers 404. */
export const NO_ACCOUNT_TOKEN = 'sandbox-no-account-token';
export const TOKEN_LIFETIME_S = 900;

const PREFIX = '/api/financial/v1';

interface Route {
  method: 'GET' | 'POST';
  endpoint: FaultEndpoint;
  auth: boolean;
  handle(context: Context): Promise<[number, unknown]>;
}

interface Context {
  store: StateStore;
  query: URLSearchParams;
  body: unknown;
  token: string;
  /** The server the sandbox is (serversettings.ts): what the document leaves open, as chosen. */
  server: ServerSettings;
}

function failure(status: number, code: string, message: string): [number, unknown] {
  return [status, { message, code }];
}

async function withQr(view: Record<string, unknown>, emv: string): Promise<Record<string, unknown>> {
  const { qrPngDataUrl } = await import('../output/qr.js');
  return { ...view, qrCodeDataUrl: await qrPngDataUrl(emv) };
}

const ROUTES: Record<string, Route> = {
  [`${PREFIX}/auth/token`]: {
    method: 'POST',
    endpoint: 'auth',
    auth: false,
    async handle({ body }) {
      const input = asBody(body);
      if (typeof input.clientKey !== 'string' || typeof input.clientSecret !== 'string') {
        return failure(
          400,
          'INVALID_REQUEST',
          'Requisição inválida: clientKey e clientSecret são obrigatórios',
        );
      }
      if (input.clientKey !== SANDBOX_CLIENT_KEY || input.clientSecret !== SANDBOX_CLIENT_SECRET) {
        return failure(401, 'INVALID_CREDENTIALS', 'Credenciais inválidas');
      }
      const { randomBytes } = await import('node:crypto');
      return [
        200,
        { clientToken: `sandbox-${randomBytes(16).toString('hex')}`, expiresIn: TOKEN_LIFETIME_S },
      ];
    },
  },
  [`${PREFIX}/account/transactions`]: {
    method: 'GET',
    endpoint: 'statement',
    auth: true,
    async handle({ store, query, token, server }) {
      if (token === NO_ACCOUNT_TOKEN) return failure(404, 'ACCOUNT_NOT_FOUND', 'Conta não encontrada');
      const state = await store.read();
      return [200, statementPage(store.statement(state), query, store.now(state), server)];
    },
  },
  [`${PREFIX}/pix/keys`]: {
    method: 'GET',
    endpoint: 'keys',
    auth: true,
    async handle({ store, query, server }) {
      return [200, keysPage(await store.read(), query, server)];
    },
  },
  [`${PREFIX}/pix-cash-in/immediate`]: {
    method: 'POST',
    endpoint: 'charge',
    auth: true,
    async handle({ store, body }) {
      const input = validateImmediate(body);
      const [view, emv] = await store.update((state, now) => {
        const charge = createImmediate(state, now, input);
        return [chargeView(charge, now), charge.emvqrcps] as const;
      });
      return [201, await withQr(view, emv)];
    },
  },
  [`${PREFIX}/pix-cash-in/duedate`]: {
    method: 'POST',
    endpoint: 'charge',
    auth: true,
    async handle({ store, body, server }) {
      const today = todayIn(BRASILIA_TIME_ZONE, store.now(await store.read()));
      const input = validateDueDate(body, today);
      const [view, emv] = await store.update((state, now) => {
        // The day may have turned while waiting for the lock.
        const checked =
          todayIn(BRASILIA_TIME_ZONE, now) === today
            ? input
            : validateDueDate(body, todayIn(BRASILIA_TIME_ZONE, now));
        const charge = createDueDate(state, now, checked);
        return [chargeView(charge, now), charge.emvqrcps] as const;
      });
      return [201, await withQr({ ...view, type: server.dueDateType }, emv)];
    },
  },
  [`${PREFIX}/pix/emv/consult`]: {
    method: 'POST',
    endpoint: 'emv',
    auth: true,
    async handle({ store, body }) {
      const isBusinessDay = await loadBusinessDayTest();
      return [200, await store.update((state, now) => consultEmv(state, now, body, isBusinessDay))];
    },
  },
  [`${PREFIX}/pix/dict/consult`]: {
    method: 'POST',
    endpoint: 'dict',
    auth: true,
    async handle({ store, body, server }) {
      const answer = await store.update((state, now) => consultDict(state, now, body));
      if (server.e2eSpelling === 'endtoEndId') return [200, answer];
      // The document spells it with a lower-case t here (API §2.7); a server may not.
      const spelt = Object.entries(answer).map(([name, value]) => [
        name === 'endtoEndId' ? server.e2eSpelling : name,
        value,
      ]);
      return [200, Object.fromEntries(spelt)];
    },
  },
  [`${PREFIX}/pix-cash-out/transfer`]: {
    method: 'POST',
    endpoint: 'transfer',
    auth: true,
    async handle({ store, body }) {
      return [201, await store.update((state, now) => transfer(state, now, body))];
    },
  },
};

/** The largest request body the sandbox accepts, in bytes (a larger one is answered 413). */
export const MAX_REQUEST_BODY = 1_000_000;

/** A JSON answer: `content-type`, `content-length`, then `extra` headers (`allow`, `retry-after`). */
export function jsonAnswer(
  status: number,
  payload: unknown,
  extra: Record<string, string> = {},
): SandboxAnswer {
  const body = JSON.stringify(payload);
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      ...extra,
    },
    body,
  };
}

/** An error answer in the API's one shape: `{message, code}`. */
export function failureAnswer(
  status: number,
  code: string,
  message: string,
  extra?: Record<string, string>,
): SandboxAnswer {
  return jsonAnswer(status, { message, code }, extra);
}

export function tooLargeAnswer(): SandboxAnswer {
  return failureAnswer(413, 'PAYLOAD_TOO_LARGE', 'Corpo da requisição grande demais');
}

/** The path of a request URL, without its query string. */
export function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

function routeAt(path: string): Route | undefined {
  return Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
}

/** The fault endpoint name of the route at `path`, or undefined when the API has no such route. */
export function endpointOf(path: string): FaultEndpoint | undefined {
  return routeAt(path)?.endpoint;
}

/**
 * The sandbox's time, on every answer the state was read for: its own header, the ledger's clock in pix
 * (sandbox/time.ts), and the HTTP `Date` any server sends (RFC 9110 §6.6.1), in the sandbox's time too:
 * `pix sandbox clock` moves the account's clock, and a server's Date is its clock.
 */
function clockHeader(store: StateStore): Record<string, string> {
  const now = store.lastKnownNow();
  return now === undefined ? {} : { date: now.toUTCString(), [SANDBOX_TIME_HEADER]: now.toISOString() };
}

/**
 * Answers one request against the state in `store`: 404 for a route the API does not have, 413 for a body
 * over MAX_REQUEST_BODY, 405 for the wrong method, 401 without a valid bearer token (the token endpoint
 * aside), 400 for a POST body that is not JSON, else what the route says; a broken state file or a system
 * error (full disk, read-only directory) is a 500 naming it.
 */
export async function answerRequest(
  store: StateStore,
  request: SandboxRequest,
  server: ServerSettings = DEFAULT_SERVER,
): Promise<SandboxAnswer> {
  return asServer(await answerOf(store, request, server), server);
}

async function answerOf(
  store: StateStore,
  request: SandboxRequest,
  server: ServerSettings,
): Promise<SandboxAnswer> {
  const path = pathOf(request.url);
  const route = routeAt(path);
  if (!route) return failureAnswer(404, 'ROUTE_NOT_FOUND', 'Rota não encontrada');
  if (Buffer.byteLength(request.body) > MAX_REQUEST_BODY) return tooLargeAnswer();
  if (request.method !== route.method) {
    return failureAnswer(405, 'METHOD_NOT_ALLOWED', 'Método não permitido', { allow: route.method });
  }
  let token = '';
  if (route.auth) {
    const header = request.headers.authorization;
    const match = /^Bearer\s+(\S+)\s*$/i.exec((Array.isArray(header) ? header[0] : header) ?? '');
    if (!match) return failureAnswer(401, 'UNAUTHORIZED', 'Token de acesso ausente ou inválido');
    token = match[1]!;
    if (token === EXPIRED_TOKEN) return failureAnswer(401, 'UNAUTHORIZED', 'Token inválido ou expirado');
  }
  let body: unknown;
  if (route.method === 'POST') {
    try {
      body = request.body.trim() === '' ? undefined : JSON.parse(request.body);
    } catch {
      return failureAnswer(400, 'INVALID_JSON', 'Requisição inválida: o corpo não é um JSON válido');
    }
  }
  try {
    const [status, payload] = await route.handle({
      store,
      query: new URLSearchParams(request.url.slice(path.length)),
      body,
      token,
      server,
    });
    return jsonAnswer(status, payload, clockHeader(store));
  } catch (error) {
    if (error instanceof ApiFailure)
      return failureAnswer(error.status, error.code, error.message, clockHeader(store));
    // A broken state file, a full disk, a read-only directory: named, so the CLI can say which.
    const named = error instanceof StateError ? error.message : describeSystemError(error)?.message;
    const message = named === undefined ? 'Erro interno do servidor' : `Erro interno do servidor: ${named}`;
    return failureAnswer(500, 'INTERNAL_ERROR', message);
  }
}

/** The error body of `message` and `code` in the shape the server settings chose (API §7: not shown). */
function errorBody(shape: ServerSettings['errorShape'], message: string, code: string): unknown {
  switch (shape) {
    case 'message':
      return { message, code };
    case 'error':
      return { error: { message, code } };
    case 'errors':
      return { errors: [{ message, code }] };
    case 'description':
      return { code, description: message };
    case 'detail':
      return { title: code, detail: message };
    default:
      return undefined;
  }
}

/**
 * An answer of the sandbox as the server chosen (serversettings.ts) words it: its error bodies' shape, the
 * status of a creating POST, no sandbox clock header on a server whose clock is its own, compressed.
 */
export function asServer(answer: SandboxAnswer, server: ServerSettings): SandboxAnswer {
  if (server === DEFAULT_SERVER) return answer;
  let { status, body } = answer;
  const headers = { ...answer.headers };
  if (status === 201) status = server.postStatus;
  if (server.clockSkewMs !== undefined) delete headers[SANDBOX_TIME_HEADER];
  if (status >= 400 && server.errorShape !== 'message' && typeof body === 'string') {
    const { message, code } = JSON.parse(body) as { message: string; code: string };
    const shaped = errorBody(server.errorShape, message, code);
    if (shaped !== undefined) body = JSON.stringify(shaped);
    else if (server.errorShape === 'text') {
      body = message;
      headers['content-type'] = 'text/plain; charset=utf-8';
    } else body = '';
  }
  if (server.gzip && body.length > 0) {
    body = process.getBuiltinModule('node:zlib').gzipSync(body);
    headers['content-encoding'] = 'gzip';
  }
  headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  return { status, headers, body };
}
