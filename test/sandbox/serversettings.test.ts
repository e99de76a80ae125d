/**
 * The sandbox as any server the API document allows (src/sandbox/serversettings.ts): each setting read
 * from a SPEC, and what it changes in the answers, through answerRequest alone (no socket).
 */
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { answerRequest, type SandboxAnswer } from '../../src/sandbox/answer.js';
import {
  DEFAULT_SERVER,
  parseServerSpec,
  type ServerSettings,
  serverSpec,
} from '../../src/sandbox/serversettings.js';
import { StateStore } from '../../src/sandbox/store.js';
import { SYSTEM } from '../../src/system.js';
import { tempDir } from '../helpers/temp.js';

const API = '/api/financial/v1';
const NOW = new Date('2026-03-10T15:00:00Z');
let store: StateStore;
beforeEach(() => {
  store = new StateStore(join(tempDir('pix-server-'), 'state.json'), { host: SYSTEM, clock: () => NOW });
});

function ask(spec: string, method: string, url: string, body?: unknown): Promise<SandboxAnswer> {
  return answerRequest(
    store,
    {
      method,
      url: `${API}${url}`,
      headers: { authorization: 'Bearer any' },
      body: body === undefined ? '' : JSON.stringify(body),
    },
    spec === '' ? DEFAULT_SERVER : parseServerSpec(spec),
  );
}

function text(answer: SandboxAnswer): string {
  return answer.headers['content-encoding'] === 'gzip'
    ? gunzipSync(answer.body as Uint8Array).toString('utf8')
    : String(answer.body);
}
const json = (answer: SandboxAnswer) => JSON.parse(text(answer)) as Record<string, unknown>;
type Entry = {
  id: string;
  confirmedAt: string;
  debtor?: Record<string, string>;
  creditor?: Record<string, string>;
};

describe('SPEC', () => {
  it('reads every setting, and says back only what differs from the sandbox as it is', () => {
    const spec =
      'max-page=100,clamp-page=50,empty-after=100,short-after=200,clock-skew=-30s,order=oldest,names=upper-ascii,documents=masked,list-field=results,e2e-spelling=endToEndId,due-date-type=DUE_DATE,post-status=200,error-shape=errors,gzip=on';
    const settings = parseServerSpec(spec);
    expect(settings).toEqual<ServerSettings>({
      maxPage: 100,
      clampPage: 50,
      emptyAfter: 100,
      shortAfter: 200,
      clockSkewMs: -30_000,
      order: 'oldest',
      names: 'upper-ascii',
      documents: 'masked',
      listField: 'results',
      e2eSpelling: 'endToEndId',
      dueDateType: 'DUE_DATE',
      postStatus: 200,
      errorShape: 'errors',
      gzip: true,
    });
    expect(parseServerSpec(serverSpec(settings))).toEqual(settings);
    expect(serverSpec(parseServerSpec(''))).toBe('');
    expect(parseServerSpec('clock-skew=0s').clockSkewMs).toBe(0);
  });

  it.each([
    ['max-page=0', 'max-page: "0" is not a whole number from 1'],
    ['order=sideways', 'order: "sideways" is not one of newest, oldest'],
    ['pages=10', 'unknown setting "pages"'],
    ['max-page=10,max-page=20', '"max-page" is given twice'],
    ['clock-skew=soon', 'clock-skew: "soon" is not a duration'],
    ['max-page', '"max-page" is not NAME=VALUE'],
  ])('%s is refused: %s', (spec, message) => {
    expect(() => parseServerSpec(spec)).toThrow(message);
  });
});

describe('what each setting changes', () => {
  it('max-page: a larger limit is 400; clamp-page: fewer records than asked, no refusal', async () => {
    expect((await ask('max-page=100', 'GET', '/account/transactions?limit=101')).status).toBe(400);
    expect((await ask('max-page=100', 'GET', '/account/transactions?limit=100')).status).toBe(200);
    const clamped = json(await ask('clamp-page=5', 'GET', '/account/transactions?limit=20'));
    expect(clamped.total).toBe(36);
    expect(clamped.results).toHaveLength(5);
  });

  it('empty-after and short-after: a server that loses records, its total unchanged', async () => {
    const empty = json(await ask('empty-after=10', 'GET', '/account/transactions?limit=10&offset=10'));
    expect(empty).toEqual({ total: 36, results: [] });
    const short = json(await ask('short-after=10', 'GET', '/account/transactions?limit=10&offset=10'));
    expect(short.results).toHaveLength(9);
    expect(
      (json(await ask('short-after=10', 'GET', '/account/transactions?limit=10')).results as []).length,
    ).toBe(10);
  });

  it('order: oldest first is the newest-first list read from its other end', async () => {
    const newest = json(await ask('', 'GET', '/account/transactions?limit=36')).results as Entry[];
    const oldest = json(await ask('order=oldest', 'GET', '/account/transactions?limit=36'))
      .results as Entry[];
    expect(oldest.map((entry) => entry.id)).toEqual(newest.map((entry) => entry.id).reverse());
    const keys = json(await ask('order=oldest', 'GET', '/pix/keys?limit=4')).result as Array<{ id: string }>;
    const asIs = json(await ask('', 'GET', '/pix/keys?limit=4')).result as Array<{ id: string }>;
    expect(keys.map((key) => key.id)).toEqual(asIs.map((key) => key.id).reverse());
  });

  it('names and documents: upper-case ASCII names, masked or no documents, in the statement', async () => {
    const party = (entry: Entry) => (entry.debtor ?? entry.creditor)!;
    const plain = (json(await ask('', 'GET', '/account/transactions?limit=36')).results as Entry[]).map(
      party,
    );
    const upper = (
      json(await ask('names=upper-ascii,documents=none', 'GET', '/account/transactions?limit=36'))
        .results as Entry[]
    ).map(party);
    expect(upper.map((p) => p.name)).toEqual(
      plain.map((p) => p.name!.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase()),
    );
    expect(upper.some((p) => /[^\x20-\x7e]/.test(p.name!))).toBe(false);
    expect(upper.every((p) => !('documentNumber' in p))).toBe(true);
    const masked = (
      json(await ask('documents=masked', 'GET', '/account/transactions?limit=36')).results as Entry[]
    ).map(party);
    for (const [index, p] of masked.entries()) {
      const bare = plain[index]!.documentNumber!;
      if (bare.length === 11) expect(p.documentNumber).toMatch(/^\*\*\*\.\d{3}\.\d{3}-\*\*$/);
    }
  });

  it('list-field: the array named results (or result) in both lists', async () => {
    expect(Object.keys(json(await ask('list-field=results', 'GET', '/pix/keys')))).toEqual([
      'total',
      'results',
    ]);
    expect(Object.keys(json(await ask('list-field=result', 'GET', '/account/transactions')))).toEqual([
      'total',
      'result',
    ]);
  });

  it('e2e-spelling, due-date-type, post-status: the spellings and codes the document shows two ways', async () => {
    const dict = json(
      await ask('e2e-spelling=endToEndId', 'POST', '/pix/dict/consult', { key: 'ana@example.com' }),
    );
    expect(dict.endToEndId).toMatch(/^E/);
    expect(dict).not.toHaveProperty('endtoEndId');
    expect(Object.keys(dict)).toEqual(['key', 'keyType', 'endToEndId', 'account', 'owner']);
    const keys = json(await ask('', 'GET', '/pix/keys')).result as Array<{ id: string }>;
    const charge = await ask('due-date-type=DUE_DATE,post-status=200', 'POST', '/pix-cash-in/duedate', {
      pixKeyId: keys[0]!.id,
      amount: 10,
      duedate: '2026-03-20',
      debtor: { name: 'Ana', cpf: '12345678909' },
    });
    expect(charge.status).toBe(200);
    expect(json(charge).type).toBe('DUE_DATE');
  });

  it.each([
    ['error', { error: { message: 'Chave PIX inválida', code: 'INVALID_PIX_KEY' } }],
    ['errors', { errors: [{ message: 'Chave PIX inválida', code: 'INVALID_PIX_KEY' }] }],
    ['description', { code: 'INVALID_PIX_KEY', description: 'Chave PIX inválida' }],
    ['detail', { title: 'INVALID_PIX_KEY', detail: 'Chave PIX inválida' }],
  ])('error-shape=%s', async (shape, body) => {
    const answer = await ask(`error-shape=${shape}`, 'POST', '/pix/dict/consult', { key: 'nope' });
    expect(answer.status).toBe(400);
    expect(json(answer)).toEqual(body);
  });

  it('error-shape=text and empty: a plain-text body, or none', async () => {
    const asText = await ask('error-shape=text', 'POST', '/pix/dict/consult', { key: 'nope' });
    expect(asText.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text(asText)).toBe('Chave PIX inválida');
    const empty = await ask('error-shape=empty', 'POST', '/pix/dict/consult', { key: 'nope' });
    expect(empty.body).toBe('');
    expect(empty.headers['content-length']).toBe('0');
  });

  it('gzip: every answer compressed, its length the compressed one', async () => {
    const answer = await ask('gzip=on', 'GET', '/pix/keys');
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers['content-length']).toBe(String((answer.body as Uint8Array).byteLength));
    expect(json(answer).total).toBe(4);
  });

  it("clock-skew: the server's clock is its own, told only by Date; no sandbox clock header", async () => {
    const skewed = new StateStore(join(tempDir('pix-server-'), 'state.json'), {
      host: SYSTEM,
      clock: () => new Date(NOW.getTime() + 30_000),
    });
    const answer = await answerRequest(
      skewed,
      { method: 'GET', url: `${API}/pix/keys`, headers: { authorization: 'Bearer any' }, body: '' },
      parseServerSpec('clock-skew=30s'),
    );
    expect(answer.headers.date).toBe('Tue, 10 Mar 2026 15:00:30 GMT');
    expect(answer.headers).not.toHaveProperty('x-pix-sandbox-time');
  });
});
