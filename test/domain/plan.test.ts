import { describe, expect, it } from 'vitest';
import {
  checkPlan,
  formatPlan,
  makerMessage,
  type PlanBody,
  planBody,
  planIdOf,
  sealPlan,
  shortPlanId,
  verdictMessage,
} from '../../src/domain/plan.js';
import { refusalOf } from '../helpers/domain.js';

function body(): PlanBody {
  return {
    'pix-plan': 2,
    account: { id: 'acct-1a2b3c', profile: 'prod', api: 'https://api.example.com' },
    kind: 'batch',
    source: 'payouts.csv',
    rows: [
      {
        id: 'inv-1',
        key: 'ana@example.com',
        receiver: { name: 'Ana Souza', document: '***.456.789-**', institution: 'Nu Pagamentos (18236120)' },
        amountCentavos: 1050,
        sendAmount: true,
        newReceiver: true,
        outsideAllowlist: true,
      },
      {
        id: 'inv-2',
        key: '+5511912345678',
        receiver: { name: 'Bruno Dias' },
        amountCentavos: 2000,
        sendAmount: true,
        description: 'março',
        newReceiver: false,
        outsideAllowlist: false,
      },
    ],
    total: { rows: 2, amountCentavos: 3050 },
    maker: { name: 'Carla', email: 'carla@example.com', from: 'git', key: `SHA256:${'A'.repeat(43)}` },
    createdAt: '2026-03-10T12:00:00.000Z',
    expiresAt: '2026-03-11T12:00:00.000Z',
    policy: `sha256:${'0'.repeat(64)}`,
  };
}

describe('a plan and its id', () => {
  it('the id is the SHA-256 of the canonical body: the same whatever the key order or spacing', () => {
    const plan = sealPlan(body());
    expect(plan.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    const reordered = JSON.parse(JSON.stringify({ ...body(), 'pix-plan': 2 }));
    expect(planIdOf(reordered)).toBe(plan.id);
    expect(shortPlanId(plan.id)).toBe(plan.id.slice(0, 19));
    // The file puts the id first and reads back as itself.
    const text = formatPlan({ ...plan, signature: 'SIGNED' });
    expect(text.startsWith('{\n  "id": "sha256:')).toBe(true);
    expect(text.endsWith('  "signature": "SIGNED"\n}\n')).toBe(true);
    // The signature is outside the id: it signs the id.
    expect(planIdOf(planBody(JSON.parse(text)))).toBe(plan.id);
    expect(() => checkPlan(JSON.parse(text))).not.toThrow();
  });

  it('an amount, a key or a row changed by hand no longer matches the id', () => {
    const edits: Array<(plan: ReturnType<typeof sealPlan>) => void> = [
      (plan) => {
        plan.rows[0]!.amountCentavos = 1051;
        plan.total.amountCentavos += 1;
      },
      (plan) => {
        plan.rows[1]!.key = '+5511900000000';
      },
      (plan) => {
        plan.rows.push({ ...plan.rows[0]!, id: 'inv-3' });
        plan.total = { rows: 3, amountCentavos: 4100 };
      },
      (plan) => {
        plan.expiresAt = '2027-01-01T00:00:00.000Z';
      },
    ];
    for (const edit of edits) {
      const plan = structuredClone(sealPlan(body()));
      edit(plan);
      const refusal = refusalOf(() => checkPlan(plan));
      expect(refusal.message).toBe(
        'the plan was changed after it was made: its id no longer matches its content',
      );
      expect(refusal.hint).toContain('make a new plan');
    }
  });

  it('a total that is not the sum, a repeated row id: refused even with a matching id', () => {
    const wrongTotal = body();
    wrongTotal.total.amountCentavos = 1;
    expect(refusalOf(() => checkPlan(sealPlan(wrongTotal))).message).toBe(
      "the plan's total is not the sum of its rows",
    );
    const twice = body();
    twice.rows[1]!.id = 'inv-1';
    expect(refusalOf(() => checkPlan(sealPlan(twice))).message).toBe('row id inv-1 is given twice');
  });

  it('what a verdict signs: the verdict, the id, the time it was signed, and a refusal reason on one line', () => {
    const at = '2026-03-10T12:05:00.000Z';
    expect(verdictMessage('approve', 'sha256:ab', at).toString()).toBe(`approve sha256:ab\nat: ${at}\n`);
    expect(verdictMessage('reject', 'sha256:ab', at, 'wrong\n amount').toString()).toBe(
      `reject sha256:ab\nat: ${at}\nreason: wrong amount\n`,
    );
    // The maker signs the plan's id at its making: never an approval's words.
    expect(makerMessage({ id: 'sha256:ab', createdAt: at }).toString()).toBe(`make sha256:ab\nat: ${at}\n`);
  });
});
