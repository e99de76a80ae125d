import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  answerRequest,
  EXPIRED_TOKEN,
  endpointOf,
  MAX_REQUEST_BODY,
  NO_ACCOUNT_TOKEN,
  SANDBOX_CLIENT_KEY,
  SANDBOX_CLIENT_SECRET,
  type SandboxAnswer,
} from '../../src/sandbox/answer.js';
import { StateStore } from '../../src/sandbox/store.js';
import { SYSTEM } from '../../src/system.js';
import { tempDir } from '../helpers/temp.js';

/** answerRequest alone: no socket, a state file in a temporary directory, a fixed clock. */
const API = '/api/financial/v1';
let dir: string;
let store: StateStore;
beforeEach(() => {
  dir = tempDir('pix-answer-');
  store = new StateStore(join(dir, 'state.json'), {
    host: SYSTEM,
    clock: () => new Date('2026-03-10T15:00:00Z'),
  });
});

function ask(method: string, url: string, options: { token?: string; body?: string } = {}) {
  const headers = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  return answerRequest(store, { method, url: `${API}${url}`, headers, body: options.body ?? '' });
}

function json(answer: SandboxAnswer) {
  return JSON.parse(String(answer.body)) as Record<string, unknown>;
}

describe('answerRequest', () => {
  it('stamps its answers with sandbox time, moved by the clock offset', async () => {
    await store.update((state) => {
      state.clockOffsetMs = 2 * 86_400_000;
    });
    const answer = await ask('GET', '/account/transactions?limit=1', { token: 'any' });
    expect(answer.headers['x-pix-sandbox-time']).toBe('2026-03-12T15:00:00.000Z');
  });

  it('answers a listing with its JSON, content-type and the exact content-length, honouring the query', async () => {
    const answer = await ask('GET', '/pix/keys?limit=2&offset=1', { token: 'any' });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.headers)).toEqual([
      'content-type',
      'content-length',
      'date',
      'x-pix-sandbox-time',
    ]);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    // The sandbox's own time, which `pix sandbox clock` moves: the charge ledger's clock in pix, and the
    // Date any server's answer carries.
    expect(answer.headers['x-pix-sandbox-time']).toBe('2026-03-10T15:00:00.000Z');
    expect(answer.headers.date).toBe('Tue, 10 Mar 2026 15:00:00 GMT');
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
    const page = json(answer) as { total: number; result: unknown[] };
    expect(page.total).toBe(4);
    expect(page.result).toHaveLength(2);
  });

  it('refuses an authenticated route without a bearer token, with another scheme, or an expired token: 401, nothing read', async () => {
    for (const headers of [{}, { authorization: 'Basic c2FuZGJveA==' }, { authorization: 'Bearer' }]) {
      const answer = await answerRequest(store, {
        method: 'GET',
        url: `${API}/account/transactions`,
        headers,
        body: '',
      });
      expect(answer.status).toBe(401);
      expect(json(answer)).toEqual({ message: 'Token de acesso ausente ou inválido', code: 'UNAUTHORIZED' });
    }
    const expired = await ask('GET', '/account/transactions', { token: EXPIRED_TOKEN });
    expect(expired.status).toBe(401);
    expect(json(expired)).toEqual({ message: 'Token inválido ou expirado', code: 'UNAUTHORIZED' });
    // Refused before the state was touched: no state file was created.
    expect(() => writeFileSync(join(dir, 'state.json'), '', { flag: 'wx' })).not.toThrow();
  });

  it('mints a token only for the sandbox credentials', async () => {
    const refused = await ask('POST', '/auth/token', {
      body: JSON.stringify({ clientKey: SANDBOX_CLIENT_KEY, clientSecret: 'wrong' }),
    });
    expect(refused.status).toBe(401);
    expect(json(refused).code).toBe('INVALID_CREDENTIALS');
    const minted = await ask('POST', '/auth/token', {
      body: JSON.stringify({ clientKey: SANDBOX_CLIENT_KEY, clientSecret: SANDBOX_CLIENT_SECRET }),
    });
    expect(minted.status).toBe(200);
    expect(json(minted)).toMatchObject({ clientToken: expect.stringMatching(/^sandbox-[0-9a-f]{32}$/) });
  });

  it('404 for a route the API lacks, 405 with Allow for the wrong method, 400 for a body that is not JSON, 413 over the cap', async () => {
    const missing = await ask('GET', '/nope', { token: 't' });
    expect([missing.status, json(missing).code]).toEqual([404, 'ROUTE_NOT_FOUND']);
    const method = await ask('POST', '/pix/keys', { token: 't' });
    expect([method.status, json(method).code, method.headers.allow]).toEqual([
      405,
      'METHOD_NOT_ALLOWED',
      'GET',
    ]);
    const broken = await ask('POST', '/pix/dict/consult', { token: 't', body: '{"key":' });
    expect([broken.status, json(broken).code]).toEqual([400, 'INVALID_JSON']);
    const large = await ask('POST', '/pix/dict/consult', {
      token: 't',
      body: 'x'.repeat(MAX_REQUEST_BODY + 1),
    });
    expect([large.status, json(large).code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it("passes the route's own refusals through (a statement without an account: 404; a bad charge: 422)", async () => {
    const noAccount = await ask('GET', '/account/transactions', { token: NO_ACCOUNT_TOKEN });
    expect([noAccount.status, json(noAccount).code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    const pixKeyId = (await store.read()).keys[0]!.id;
    const charge = await ask('POST', '/pix-cash-in/immediate', {
      token: 't',
      body: JSON.stringify({ pixKeyId, amount: 1 }),
    });
    expect([charge.status, json(charge).code]).toEqual([422, 'INVALID_AMOUNT']);
  });

  it('names a broken state file in a 500', async () => {
    writeFileSync(join(dir, 'state.json'), '{"not": "a state"');
    const answer = await ask('GET', '/pix/keys', { token: 't' });
    expect(answer.status).toBe(500);
    expect(json(answer)).toMatchObject({
      code: 'INTERNAL_ERROR',
      message: expect.stringMatching(/^Erro interno do servidor: ./),
    });
  });

  it('endpointOf names the fault endpoint of a path, and nothing for paths the API lacks', () => {
    expect(endpointOf(`${API}/pix-cash-in/duedate`)).toBe('charge');
    expect(endpointOf(`${API}/account/transactions`)).toBe('statement');
    expect(endpointOf(`${API}/nope`)).toBeUndefined();
    expect(endpointOf('constructor')).toBeUndefined();
  });
});
