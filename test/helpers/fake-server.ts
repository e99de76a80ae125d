import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the fake server does with one request. */
export type Behaviour =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'text'; status: number; body: string; contentType?: string; headers?: Record<string, string> }
  /** Destroys the connection before sending a byte. */
  | { kind: 'reset' }
  /** Never answers (until the server closes). */
  | { kind: 'hang' };

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeServer {
  url: string;
  requests: SeenRequest[];
  /** Requests whose path (without the query) ends with `pathSuffix`. */
  requestsTo(pathSuffix: string): SeenRequest[];
  close(): Promise<void>;
}

/**
 * A real loopback HTTP server that misbehaves on demand: `respond` picks a behaviour per request
 * (it sees the request and how many came before it to the same path).
 */
export async function startFakeServer(
  respond: (request: SeenRequest, countForPath: number) => Behaviour,
): Promise<FakeServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const pathOnly = seen.path.split('?')[0];
      const count = requests.filter((earlier) => earlier.path.split('?')[0] === pathOnly).length;
      requests.push(seen);
      const behaviour = respond(seen, count);
      switch (behaviour.kind) {
        case 'reset':
          req.socket.destroy();
          return;
        case 'hang':
          return;
        case 'json':
          res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
          res.end(JSON.stringify(behaviour.body));
          return;
        case 'text':
          res.writeHead(behaviour.status, {
            'content-type': behaviour.contentType ?? 'text/html',
            ...behaviour.headers,
          });
          res.end(behaviour.body);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (suffix) => requests.filter((request) => request.path.split('?')[0]!.endsWith(suffix)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The one key of the account accountReads answers for. */
export const ACCOUNT_KEY = 'conta@example.test';

/**
 * What an account's reads answer on a fake server that is about something else: the key list (one key,
 * whose DICT consultation names the account's bank details: journal/accounts.ts) and an empty statement (nothing paid elsewhere for the
 * statement guard). A respond function calls it first: `(request) => accountReads(request) ?? …`.
 */
export function accountReads(request: SeenRequest): Behaviour | undefined {
  const path = request.path.split('?')[0]!;
  if (request.method === 'POST' && path.endsWith('/pix/dict/consult') && request.body.includes(ACCOUNT_KEY)) {
    // The DICT's answer for the account's own key: its bank account (how pix names the account).
    return {
      kind: 'json',
      status: 200,
      body: {
        key: ACCOUNT_KEY,
        keyType: 'EMAIL',
        endtoEndId: 'E99999999202601010000ACCOUNTKEY',
        account: { participant: '99999999', accountType: 'CACC', branch: '0001', account: '5550001' },
        owner: { name: 'Conta de Teste Ltda', type: 'LEGAL_PERSON', documentNumber: '11222333000181' },
      },
    };
  }
  if (request.method !== 'GET') return undefined;
  if (path.endsWith('/pix/keys')) {
    const key = {
      id: 'fake-account-key',
      key: ACCOUNT_KEY,
      keyType: 'EMAIL',
      createdAt: '2026-01-01T00:00:00Z',
    };
    return { kind: 'json', status: 200, body: { total: 1, result: [key] } };
  }
  if (path.endsWith('/account/transactions'))
    return { kind: 'json', status: 200, body: { total: 0, results: [] } };
  return undefined;
}
