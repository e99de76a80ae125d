/**
 * Every charge pix creates is journaled: a `sending` line before the request, then its id and outcome
 * (done, failed on an explicit refusal, unknown otherwise), so a run killed or cut off can be found.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseJournal } from '../../../src/journal/parser.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { rememberAccount } from '../../helpers/config.js';
import { mockAgentPerTest, ORIGIN } from '../../helpers/mock-agent.js';
import { pixWith } from '../../helpers/pix.js';

const IMMEDIATE = '/api/financial/v1/pix-cash-in/immediate';
const DUEDATE = '/api/financial/v1/pix-cash-in/duedate';
const KEY_ID = '5f0b6a52-7a8e-4c1f-9d3b-1a2b3c4d5e01';
const NOW = new Date('2026-11-20T15:00:00.000Z');

const created = (over: Record<string, unknown> = {}) => ({
  id: '0c7e3d1a-1111-4222-8333-944455556666',
  amount: 10.5,
  status: 'PENDING',
  type: 'IMMEDIATE_QRCODE',
  emvqrcps: '00020101021226…6304ABCD',
  ...over,
});

const mock = mockAgentPerTest();
let dir: string;

const TOKEN = 'test-token-charge-journal';

beforeEach(async () => {
  dir = tempConfigDir();
  await rememberAccount({ PIX_CONFIG_DIR: dir, PIX_BASE_URL: ORIGIN, PIX_TOKEN: TOKEN });
});

function answer(path: string, status: number, body: string) {
  mock.agent
    .get(ORIGIN)
    .intercept({ path, method: 'POST' })
    .reply(status, body, { headers: { 'content-type': 'application/json' } });
}

const onAgent = pixWith(() => ({
  env: { PIX_CONFIG_DIR: dir, PIX_BASE_URL: ORIGIN, PIX_TOKEN: TOKEN },
  dispatcher: mock.agent,
  clock: { now: () => NOW },
}));
/** pix, and the journal it left. */
async function pix(argv: string[]) {
  const result = await onAgent(argv);
  return { ...result, journal: parseJournal(readFileSync(join(dir, 'journal.jsonl'), 'utf8')) };
}

const IMMEDIATE_ARGS = ['charge', 'immediate', '--amount', '10,50', '--key-id', KEY_ID, '--no-qr'];

describe('charges in the journal', () => {
  it("created: sending, then done with the charge id and status, and the charge (its code is the ledger's); no token kept", async () => {
    answer(IMMEDIATE, 201, JSON.stringify(created()));
    const result = await pix([...IMMEDIATE_ARGS, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.journal).toEqual([
      expect.objectContaining({
        kind: 'charge',
        state: 'done',
        amountCentavos: 1050,
        charge: { type: 'immediate', keyId: KEY_ID },
        chargeId: '0c7e3d1a-1111-4222-8333-944455556666',
        status: 'PENDING',
        host: 'api.example.test',
      }),
    ]);
    const text = readFileSync(join(dir, 'journal.jsonl'), 'utf8');
    expect(text).not.toContain('test-token');
    // A charge's own code is kept for `pix charge show` (entries.ts); a payment's never is.
    expect(result.journal[0]?.created).toEqual({ emv: created().emvqrcps });
  });

  it('a due-date charge too', async () => {
    answer(
      DUEDATE,
      201,
      JSON.stringify(created({ amount: 150, type: 'DUEDATE_QRCODE', dueDate: '2026-12-10' })),
    );
    const result = await pix([
      'charge',
      'duedate',
      '--amount',
      '150',
      '--due',
      '2026-12-10',
      '--key-id',
      KEY_ID,
      '--debtor-name',
      'Ana Souza',
      '--debtor-cpf',
      '529.982.247-25',
      '--no-qr',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.journal).toEqual([
      expect.objectContaining({
        kind: 'charge',
        state: 'done',
        amountCentavos: 15000,
        // The debtor's document: only a statement entry from them proves the charge paid.
        charge: {
          type: 'duedate',
          keyId: KEY_ID,
          dueDate: '2026-12-10',
          terms: {},
          payerDocument: '52998224725',
          payerName: 'Ana Souza',
        },
      }),
    ]);
  });

  it("keeps an immediate charge's payer document and name in its start line", async () => {
    answer(IMMEDIATE, 201, JSON.stringify(created()));
    const args = [...IMMEDIATE_ARGS, '--payer-name', 'Ana Souza', '--payer-tax-id', '11.222.333/0001-81'];
    const result = await pix(args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.journal[0]?.charge).toEqual({
      type: 'immediate',
      keyId: KEY_ID,
      payerDocument: '11222333000181',
      payerName: 'Ana Souza',
    });
    const start = JSON.parse(readFileSync(join(dir, 'journal.jsonl'), 'utf8').split('\n')[0]!);
    expect(start.charge.payerDocument).toBe('11222333000181');
  });

  it.each([
    [500, JSON.stringify({ message: 'Erro interno' }), 7, 'unknown'],
    [409, JSON.stringify({ message: 'conflito' }), 7, 'unknown'],
    [302, '', 7, 'unknown'],
    [201, JSON.stringify(created({ status: 'REJECTED' })), 5, 'failed'],
    [201, `{"id":"c","x":${'['.repeat(6000)}${']'.repeat(6000)}}`, 7, 'unknown'],
    [201, JSON.stringify({ ok: true }), 7, 'unknown'],
    [422, JSON.stringify({ message: 'Valor inválido' }), 5, 'failed'],
    [429, JSON.stringify({ message: 'Muitas requisições' }), 6, 'failed'],
  ])('%i %s… → exit %i, journal %s', async (status, body, exit, state) => {
    answer(IMMEDIATE, status, body);
    const result = await pix(IMMEDIATE_ARGS);
    expect(result.code, result.stderr).toBe(exit);
    expect(result.journal.map((entry) => entry.state)).toEqual([state]);
    expect(result.stderr).not.toMatch(/internal error|bug in pix/);
    if (exit === 7) {
      const id = result.journal[0]!.id.slice(0, 8);
      expect(result.stderr).toMatch(
        new RegExp(`^hint: .*journal entry ${id}.*statement.*pix journal resolve ${id}`, 'm'),
      );
    }
  });
});
