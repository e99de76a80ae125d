import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SANDBOX_CLIENT_KEY, SANDBOX_CLIENT_SECRET } from '../../src/sandbox/answer.js';

/**
 * Several accounts behind ONE base URL, as a provider serves its customers: a loopback server in front of
 * sandbox servers (one account each), choosing by the credentials a request carries — a bearer token named
 * in `tokens`, or a token minted from a client key named in `clients` (its secret ignored: the sandbox's
 * own is sent on). What each token or client key reaches can be changed while it runs (`route`), as a
 * bank moving credentials to another account would. Nothing here knows pix.
 */
export interface AccountsRouter {
  url: string;
  /** Points a bearer token, or a client key (`client:KEY`), at a sandbox server's URL. */
  route(credential: string, backend: string): void;
  close(): Promise<void>;
}

const P = '/api/financial/v1';

export async function startAccountsRouter(routes: Record<string, string> = {}): Promise<AccountsRouter> {
  const table = new Map(Object.entries(routes));
  /** Tokens minted through the router, and the client key each was minted for. */
  const minted = new Map<string, string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks).toString('utf8');
      let backend: string | undefined;
      let clientKey: string | undefined;
      if (req.url?.startsWith(`${P}/auth/token`)) {
        try {
          clientKey = String((JSON.parse(body) as { clientKey?: unknown }).clientKey);
        } catch {
          clientKey = undefined;
        }
        backend = clientKey === undefined ? undefined : table.get(`client:${clientKey}`);
        body = JSON.stringify({ clientKey: SANDBOX_CLIENT_KEY, clientSecret: SANDBOX_CLIENT_SECRET });
      } else {
        const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
        const client = minted.get(token);
        backend = client === undefined ? table.get(token) : table.get(`client:${client}`);
      }
      if (backend === undefined) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'Token inválido', code: 'UNAUTHORIZED' }));
        return;
      }
      const target = new URL(req.url ?? '/', backend);
      const headers = {
        ...req.headers,
        host: target.host,
        'content-length': String(Buffer.byteLength(body)),
      };
      const forward = httpRequest(target, { method: req.method, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          if (clientKey !== undefined && answer.statusCode === 200) {
            const token = (JSON.parse(text) as { clientToken?: string }).clientToken;
            if (token !== undefined) minted.set(token, clientKey);
          }
          const { 'content-length': _, connection: __, ...rest } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, {
            ...rest,
            'content-length': String(Buffer.byteLength(text)),
          });
          res.end(text);
        });
      });
      forward.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    route: (credential, backend) => table.set(credential, backend),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
