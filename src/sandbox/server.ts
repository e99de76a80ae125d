/**
 * The sandbox HTTP server: the whole API document over node:http on 127.0.0.1, backed by a state file.
 *
 * Error bodies always have one shape: `{"message": "<Portuguese text>", "code": "<UPPER_SNAKE>"}`.
 * Success codes: 201 for the two charge endpoints and the transfer, 200 for everything else.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { BRASILIA_TIME_ZONE, loadBusinessDayTest } from '../domain/duedate.js';
import { todayIn } from '../domain/when.js';
import { describeSystemError } from '../errors.js';
import {
  ApiFailure,
  asBody,
  chargeView,
  consultDict,
  consultEmv,
  createDueDate,
  createImmediate,
  keysPage,
  statementPage,
  transfer,
  validateDueDate,
  validateImmediate,
} from './account.js';
import { type FaultEndpoint, FaultInjector, type FaultKind } from './faults.js';
import { StateError, StateStore } from './state.js';

export interface RequestLogEntry {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Path with the query string, as received. */
  url: string;
  /** The fault endpoint name of the route, when it is one of the API's. */
  endpoint: FaultEndpoint | undefined;
}

export interface SandboxServerOptions {
  /** 0 (default) = a free port. */
  port?: number;
  stateFile: string;
  /** A faults SPEC, see faults.ts. */
  faults?: string;
  /** Real time source (sandbox time adds the state's clock offset). */
  clock?: () => Date;
  /** Simulated network latency added to every answer, in ms (benchmarks: a real API is latency-bound). */
  latencyMs?: number;
}

export interface SandboxServer {
  url: string;
  port: number;
  close(): Promise<void>;
  requests: RequestLogEntry[];
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
}

const MAX_BODY = 1_000_000;

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
    async handle({ store, query, token }) {
      if (token === NO_ACCOUNT_TOKEN) return failure(404, 'ACCOUNT_NOT_FOUND', 'Conta não encontrada');
      const state = await store.read();
      return [200, statementPage(store.statement(state), query, store.now(state))];
    },
  },
  [`${PREFIX}/pix/keys`]: {
    method: 'GET',
    endpoint: 'keys',
    auth: true,
    async handle({ store, query }) {
      return [200, keysPage(await store.read(), query)];
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
    async handle({ store, body }) {
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
      return [201, await withQr(view, emv)];
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
    async handle({ store, body }) {
      return [200, await store.update((state, now) => consultDict(state, now, body))];
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

function send(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new ApiFailure(413, 'PAYLOAD_TOO_LARGE', 'Corpo da requisição grande demais'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const HTML_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** Answers a request with a fault (`timeout` leaves it hanging). */
function applyFault(
  kind: FaultKind,
  endpoint: FaultEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  switch (kind) {
    case '500':
      send(res, 500, { message: 'Erro interno do servidor', code: 'INTERNAL_ERROR' });
      return;
    case '502html':
      res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_502) });
      res.end(HTML_502);
      return;
    case '503':
      send(
        res,
        503,
        { message: 'Serviço indisponível', code: 'SERVICE_UNAVAILABLE' },
        { 'retry-after': '1' },
      );
      return;
    case '429':
      send(res, 429, { message: 'Muitas requisições', code: 'TOO_MANY_REQUESTS' }, { 'retry-after': '1' });
      return;
    case 'reset': {
      const socket = req.socket as Socket & { resetAndDestroy?: () => void };
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
      return;
    }
    case 'timeout':
      return; // never answered; close() destroys the socket
    case 'badjson': {
      const text =
        endpoint === 'statement'
          ? '{"total":3,"results":[{"id":"7c1e'
          : '{"id":"7c1e9a52-5b1f-4c3b-9d3b-1a2b3c4d5e01","status":"PEND';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    case 'wrongshape':
      send(res, endpoint === 'charge' || endpoint === 'transfer' ? 201 : 200, {
        ok: true,
        data: [{ unexpected: 'shape' }],
      });
      return;
  }
}

export async function startSandboxServer(options: SandboxServerOptions): Promise<SandboxServer> {
  const store = new StateStore(options.stateFile, options.clock ? { clock: options.clock } : {});
  const faults = FaultInjector.fromSpec(options.faults);
  const requests: RequestLogEntry[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const route = ROUTES[path];
    requests.push({ method: req.method ?? '', path, url, endpoint: route?.endpoint });
    if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));

    if (!route) {
      await readBody(req).catch(() => '');
      send(res, 404, { message: 'Rota não encontrada', code: 'ROUTE_NOT_FOUND' });
      return;
    }
    const fault = faults.next(route.endpoint);
    if (fault === 'reset') {
      applyFault(fault, route.endpoint, req, res);
      return;
    }
    let text: string;
    try {
      text = await readBody(req);
    } catch (error) {
      if (error instanceof ApiFailure && !res.headersSent)
        send(res, error.status, { message: error.message, code: error.code });
      return;
    }
    if (fault) {
      applyFault(fault, route.endpoint, req, res);
      return;
    }
    if (req.method !== route.method) {
      send(
        res,
        405,
        { message: 'Método não permitido', code: 'METHOD_NOT_ALLOWED' },
        { allow: route.method },
      );
      return;
    }
    let token = '';
    if (route.auth) {
      const header = req.headers.authorization ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) {
        send(res, 401, { message: 'Token de acesso ausente ou inválido', code: 'UNAUTHORIZED' });
        return;
      }
      token = match[1]!;
      if (token === EXPIRED_TOKEN) {
        send(res, 401, { message: 'Token inválido ou expirado', code: 'UNAUTHORIZED' });
        return;
      }
    }
    let body: unknown;
    if (route.method === 'POST') {
      try {
        body = text.trim() === '' ? undefined : JSON.parse(text);
      } catch {
        send(res, 400, {
          message: 'Requisição inválida: o corpo não é um JSON válido',
          code: 'INVALID_JSON',
        });
        return;
      }
    }
    try {
      const [status, payload] = await route.handle({
        store,
        query: new URLSearchParams(url.slice(path.length)),
        body,
        token,
      });
      send(res, status, payload);
    } catch (error) {
      if (error instanceof ApiFailure) {
        send(res, error.status, { message: error.message, code: error.code });
      } else {
        // A broken state file, a full disk, a read-only directory: named, so the CLI can say which.
        const named = error instanceof StateError ? error.message : describeSystemError(error)?.message;
        const message =
          named === undefined ? 'Erro interno do servidor' : `Erro interno do servidor: ${named}`;
        send(res, 500, { message, code: 'INTERNAL_ERROR' });
      }
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { message: 'Erro interno do servidor', code: 'INTERNAL_ERROR' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive sockets and requests stalled by a `timeout` fault would hold close() forever.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
