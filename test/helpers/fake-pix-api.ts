import {
  accountReads,
  type Behaviour,
  type FakeServer,
  type SeenRequest,
  startFakeServer,
} from './fake-server.js';

/**
 * An independent fake of the provider's API on a loopback port (not the sandbox): the token endpoint,
 * both consultations, the transfer and the immediate charge, each answering as API §2 shows them unless
 * a test overrides the answer. It checks the bearer token: a token it never handed out, or one revoked
 * by `revokeAt`, is answered 401, as an expired token would be.
 */
export const P = '/api/financial/v1';
export const STATIC_TOKEN = 'static-token-of-the-fake';
export const RECEIVER_DOCUMENT = '52998224725';
export const KEY_ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

export interface FakePixApi {
  server: FakeServer;
  url: string;
  /** Tokens minted so far. */
  mints(): number;
  /** Requests whose path ends with the suffix (e.g. `/pix-cash-out/transfer`). */
  to(suffix: string): SeenRequest[];
  /** How the transfer is answered (default: as sent, PENDING). */
  transferAnswer: (request: SeenRequest, body: Record<string, unknown>, count: number) => Behaviour;
  /** How the immediate charge is answered (default: as sent, PENDING). */
  chargeAnswer: (request: SeenRequest, body: Record<string, unknown>) => Behaviour;
  /**
   * Revokes every token handed out so far just before the request to `suffix` numbered `count` (from 0)
   * is judged: that request, and any later one still carrying an old token, is answered 401.
   */
  revokeAt(suffix: string, count: number): void;
  close(): Promise<void>;
}

const json = (status: number, body: unknown): Behaviour => ({ kind: 'json', status, body });

/**
 * A key consultation's answer (API §2.7) for a loopback server of a test: for `key` (undefined: the field
 * left out), its owner a person named `owner`.
 */
export function dictAnswer(
  key: unknown,
  owner: string,
  endtoEndId: string,
  documentNumber = '***.456.789-**',
): Behaviour {
  return json(200, {
    ...(key === undefined ? {} : { key }),
    keyType: 'EMAIL',
    endtoEndId,
    owner: { name: owner, type: 'NATURAL_PERSON', documentNumber },
  });
}

export async function startFakePixApi(): Promise<FakePixApi> {
  const valid = new Set<string>([STATIC_TOKEN]);
  const revocations: Array<{ suffix: string; count: number }> = [];
  let minted = 0;
  let consults = 0;
  let transfers = 0;
  const api: FakePixApi = {
    server: undefined as unknown as FakeServer,
    url: '',
    mints: () => minted,
    to: (suffix) => api.server.requestsTo(suffix),
    transferAnswer: (_request, body) =>
      json(201, {
        id: `a0000000-0000-4000-8000-${String(++transfers).padStart(12, '0')}`,
        endToEndId: body.endToEndId,
        amount: body.amount,
        fee: 0,
        status: 'PENDING',
      }),
    chargeAnswer: (_request, body) =>
      json(201, {
        id: 'c0000000-0000-4000-8000-000000000001',
        amount: body.amount,
        status: 'PENDING',
        pixKey: 'loja@example.com',
        pixKeyId: body.pixKeyId,
        type: 'IMMEDIATE_QRCODE',
        emvqrcps:
          '00020101021226850014br.gov.bcb.pix2563qr.example.com/v2/abc5204000053039865802BR5909Loja Fake6009Sao Paulo62070503***6304ABCD',
        transactionIdentification: 'txid0000000000000000000001',
        createdAt: '2026-03-10T12:00:00.000Z',
        expiresAt: '2026-03-10T13:00:00.000Z',
      }),
    revokeAt: (suffix, count) => revocations.push({ suffix, count }),
    close: () => api.server.close(),
  };
  api.server = await startFakeServer((request, count) => {
    const path = request.path.split('?')[0]!;
    let body: Record<string, unknown> = {};
    try {
      body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    } catch {
      return json(400, { message: 'not JSON' });
    }
    if (path === `${P}/auth/token`) {
      minted++;
      const token = `minted-token-${minted}`;
      valid.add(token);
      return json(200, { clientToken: token, expiresIn: 900 });
    }
    if (revocations.some((r) => path.endsWith(r.suffix) && r.count === count)) valid.clear();
    const auth = String(request.headers.authorization ?? '');
    if (!valid.has(auth.replace(/^Bearer /, ''))) return json(401, { message: 'invalid or expired token' });
    switch (path) {
      case `${P}/pix/dict/consult`:
        consults++;
        return json(200, {
          key: body.key,
          keyType: 'EMAIL',
          endtoEndId: `E00416968202603101200${String(consults).padStart(11, '0')}`,
          account: { participant: '00416968', branch: '0001', accountType: 'CACC', account: '123' },
          owner: { name: 'Ana Souza', type: 'NATURAL_PERSON', documentNumber: RECEIVER_DOCUMENT },
        });
      case `${P}/pix-cash-out/transfer`:
        return api.transferAnswer(request, body, count);
      case `${P}/pix-cash-in/immediate`:
        return api.chargeAnswer(request, body);
      case `${P}/pix/keys`:
      case `${P}/account/transactions`:
        // Which account (one key) and what it paid elsewhere (nothing): the payments' own reads.
        return accountReads(request)!;
      default:
        return json(404, { message: `no ${path} here` });
    }
  });
  api.url = api.server.url;
  return api;
}
