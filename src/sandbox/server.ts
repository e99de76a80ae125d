/**
 * The sandbox HTTP server: the sandbox's answers (answer.ts) over node:http on 127.0.0.1, backed by a state
 * file. This part owns what only a real connection has: reading the body (at most MAX_REQUEST_BODY bytes),
 * the simulated latency, the faults (a `reset` or a `timeout` acts on the socket) and the request log.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { LockHost } from '../storage/locks.js';
import { SYSTEM } from '../system.js';
import {
  answerRequest,
  asServer,
  endpointOf,
  failureAnswer,
  jsonAnswer,
  MAX_REQUEST_BODY,
  pathOf,
  type SandboxAnswer,
  tooLargeAnswer,
} from './answer.js';
import { type FaultEndpoint, FaultInjector, type FaultKind } from './faults.js';
import { DEFAULT_SERVER, type ServerSettings, skewedClock } from './serversettings.js';
import { StateStore } from './store.js';

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
  /** Real time source (sandbox time adds the state's clock offset); default: the host's clock. */
  clock?: () => Date;
  /**
   * The clock, randomness and pids the state's lock runs by (storage/locks.ts); default: this machine's
   * (src/system.ts), for a server that is a program of its own (`pix sandbox serve` gives its command's).
   */
  host?: LockHost;
  /** Simulated network latency added to every answer, in ms (benchmarks: a real API is latency-bound). */
  latencyMs?: number;
  /** The server the sandbox is, of those the API document allows (serversettings.ts); default: as it is. */
  settings?: ServerSettings;
}

export interface SandboxServer {
  url: string;
  port: number;
  close(): Promise<void>;
  requests: RequestLogEntry[];
}

function send(res: ServerResponse, answer: SandboxAnswer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** Thrown by readBody for a body over MAX_REQUEST_BODY bytes (it stops reading and destroys the request). */
class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BODY) {
        reject(new BodyTooLarge());
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
  settings: ServerSettings,
): void {
  switch (kind) {
    case '500':
      send(res, asServer(failureAnswer(500, 'INTERNAL_ERROR', 'Erro interno do servidor'), settings));
      return;
    case '502html':
      res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_502) });
      res.end(HTML_502);
      return;
    case '503':
      send(
        res,
        asServer(
          failureAnswer(503, 'SERVICE_UNAVAILABLE', 'Serviço indisponível', { 'retry-after': '1' }),
          settings,
        ),
      );
      return;
    case '429':
      send(
        res,
        asServer(
          failureAnswer(429, 'TOO_MANY_REQUESTS', 'Muitas requisições', { 'retry-after': '1' }),
          settings,
        ),
      );
      return;
    case '401':
      send(res, asServer(failureAnswer(401, 'UNAUTHORIZED', 'Token inválido ou expirado'), settings));
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
      send(
        res,
        jsonAnswer(endpoint === 'charge' || endpoint === 'transfer' ? 201 : 200, {
          ok: true,
          data: [{ unexpected: 'shape' }],
        }),
      );
      return;
  }
}

export async function startSandboxServer(options: SandboxServerOptions): Promise<SandboxServer> {
  const host = options.host ?? SYSTEM;
  const settings = options.settings ?? DEFAULT_SERVER;
  const store = new StateStore(options.stateFile, {
    host,
    clock: skewedClock(options.clock ?? (() => host.clock.now()), settings),
  });
  const faults = FaultInjector.fromSpec(options.faults);
  const requests: RequestLogEntry[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // The Date of an answer is the sandbox's clock (answer.ts clockHeader), never this machine's: an
    // answer that read no state carries none.
    res.sendDate = false;
    const url = req.url ?? '/';
    const method = req.method ?? '';
    const path = pathOf(url);
    const endpoint = endpointOf(path);
    requests.push({ method, path, url, endpoint });
    if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));

    const fault = endpoint === undefined ? undefined : faults.next(endpoint);
    if (fault === 'reset') {
      applyFault(fault, endpoint!, req, res, settings);
      return;
    }
    let body: string;
    try {
      body = await readBody(req);
    } catch (error) {
      // A route the API does not have is a 404 whatever its body; a body too large for a route, a 413.
      if (endpoint === undefined) body = '';
      else {
        if (error instanceof BodyTooLarge && !res.headersSent)
          send(res, asServer(tooLargeAnswer(), settings));
        return;
      }
    }
    if (fault) {
      applyFault(fault, endpoint!, req, res, settings);
      return;
    }
    send(res, await answerRequest(store, { method, url, headers: req.headers, body }, settings));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent)
        send(res, asServer(failureAnswer(500, 'INTERNAL_ERROR', 'Erro interno do servidor'), settings));
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
