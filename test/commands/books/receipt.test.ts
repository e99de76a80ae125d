/**
 * `pix receipt`: a payment made in the sandbox, its advice as PDF read back by poppler's pdftotext (what a
 * person's PDF reader shows), HTML and JSON; a hostile receiver name that keeps the layout; only payments
 * pix knows were made get one; `--batch` writes one per paid row.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildReceipt } from '../../../src/domain/receipt.js';
import { receiptHtml, receiptPdf } from '../../../src/output/receipt.js';
import { SEEDED_KEYS } from '../../../src/sandbox/seed.js';
import { deferEach } from '../../helpers/cleanup.js';
import { type InProcessRun, servedInProcess } from '../../helpers/served.js';

const NO_POPPLER =
  'pdftotext (poppler-utils) is not installed: the PDF oracle is skipped (apt-get install poppler-utils)';

/** The text of a PDF as pdftotext lays it out, or undefined when poppler is not installed. */
function pdfText(bytes: Uint8Array, work: string): string | undefined {
  const file = join(work, `r${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  const result = spawnSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
  if (result.error) return undefined;
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

let dir: string;
let now: Date;
const deferred = deferEach();
let pix: (args: string[]) => Promise<InProcessRun>;

beforeEach(async () => {
  now = new Date('2026-03-10T15:00:00.000Z');
  ({ pix, dir } = await servedInProcess(deferred, { now: () => now }));
});

async function payOne(): Promise<{ id: string; endToEndId: string }> {
  const paid = await pix(['pay', 'key', 'ana@example.com', '--amount', '1.234,56', '--yes', '--json']);
  expect(paid.code, paid.stderr).toBe(0);
  now = new Date(now.getTime() + 60_000);
  const journal = JSON.parse((await pix(['journal', '--json'])).stdout) as {
    results: Array<{ id: string; endToEndId: string }>;
  };
  return journal.results[0]!;
}

describe('pix receipt', () => {
  it('the PDF shows the receiver, the amount, the Brasília time and the decoded endToEndId', async (context) => {
    const payment = await payOne();
    const json = await pix(['receipt', payment.id.slice(0, 8), '--json']);
    expect(json.code, json.stderr).toBe(0);
    const receipt = JSON.parse(json.stdout);
    expect(receipt).toMatchObject({
      // The holder as the DICT answers for the account's own key (the sandbox's company), not a profile.
      payer: { name: 'Loja Sandbox Ltda', document: '11.222.333/0001-81', profile: expect.any(String) },
      amount: { centavos: 123_456, text: 'R$ 1.234,56' },
      when: { source: 'statement', brasilia: expect.stringMatching(/^10\/03\/2026 12:00:0\d$/) },
      endToEnd: {
        id: payment.endToEndId,
        ispb: '99999999',
        institution: 'Sandbox PIX (simulated)',
        createdAtUtc: '2026-03-10 15:00 UTC',
      },
      journal: { id: payment.id, digest: expect.stringMatching(/^[0-9a-f]{64}$/) },
      statement: { evidence: 'proven' },
      notice: expect.stringContaining("not the bank's comprovante"),
    });
    expect(receipt.receiver.name).toBeTruthy();
    expect(receipt.receiver.institution).toMatchObject({ code: expect.any(String) });

    const pdf = await pix(['receipt', payment.id, '-o', 'pdf']);
    expect(pdf.code, pdf.stderr).toBe(0);
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(pdf.bytes, dir);
    if (text === undefined) {
      context.skip(NO_POPPLER);
      return;
    }
    expect(text).toMatch(new RegExp(`Receiver +${receipt.receiver.name}`));
    expect(text).toMatch(/Amount +R\$ 1\.234,56/);
    expect(text).toMatch(/Confirmed \(Brasília\) +10\/03\/2026 12:00:0\d/);
    expect(text).toContain(payment.endToEndId);
    expect(text).toMatch(/Created by +Sandbox PIX \(simulated\) \(ISPB 99999999\)/);
    expect(text).toMatch(/Created at +2026-03-10 15:00 UTC/);
    expect(text).toContain("not the bank's comprovante");

    const html = await pix(['receipt', payment.id, '-o', 'html']);
    expect(html.stdout).toContain('<td dir="ltr">R$ 1.234,56</td>');
  });

  it('a hostile receiver name keeps the layout: escaped, wrapped, every label on its own line', async (context) => {
    const hostile = `Evil\u202eCorp\u001b[2J</td><script>x</script>\n${'W'.repeat(400)} 日本`;
    const receipt = buildReceipt(
      {
        journalId: '2ef97ba6-f383-4081-86c6-1bb94fe4d047',
        journalDigest: 'a'.repeat(64),
        amountCentavos: 1_050,
        receiverName: hostile,
        endToEndId: 'E18236120202603101405abcDEF12345',
        transferId: 'b61e6e0f-008d-4609-ac4e-ab664fcbaa1b',
        sentAt: '2026-03-10T14:05:00.000Z',
      },
      undefined,
      // The holder's name is the server's too (the DICT's answer for the account's own key).
      { profile: 'ops', name: `Payer ${hostile}` },
    );
    const html = receiptHtml(receipt);
    expect(html).toContain('Payer Evil\\u202eCorp\\u001b[2J&lt;/td&gt;&lt;script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('Evil\\u202eCorp\\u001b[2J&lt;/td&gt;&lt;script&gt;');
    const text = pdfText(await receiptPdf(receipt), dir);
    if (text === undefined) {
      context.skip(NO_POPPLER);
      return;
    }
    const labels = text
      .split('\n')
      .map((line) => /^(\S[^ ]*(?: \S+)*?) {2,}/.exec(line)?.[1])
      .filter(Boolean);
    expect(labels).toEqual([
      'Payer',
      'Receiver',
      'Document',
      'Institution',
      'Amount',
      'Sent (Brasília)',
      'EndToEndId',
      'Created by',
      'Created at',
      'Transfer id',
      'Statement entry',
      'Journal entry',
      'Journal digest',
    ]);
    expect(text).toContain('Evil\\u202eCorp\\u001b[2J</td><script>x</script>\\u000aWWW');
    expect(text).toMatch(/Created by +NU PAGAMENTOS S\.A\. - INSTITUIÇÃO DE PAGAMENTO \(ISPB 18236120\)/);
    expect(text).toMatch(/Amount +R\$ 10,50/);
    // The journal digest is one line, whole: a reader compares it with pix journal show's.
    expect(text).toMatch(new RegExp(`Journal digest +sha256:${receipt.journal.digest}\\s*$`, 'm'));
    // The name wraps within its column and is cut after four lines.
    const receiverLines = text.split('\n').slice(text.split('\n').findIndex((l) => l.startsWith('Receiver')));
    expect(receiverLines.slice(0, 4).every((line) => line.length < 110)).toBe(true);
    expect(receiverLines[3]).toMatch(/…\s*$/);
  });

  it('only a payment pix knows was made gets one (exit 8); a batch gets one per paid row', async () => {
    const file = join(dir, 'lote.csv');
    writeFileSync(file, 'id,key,amount\nr1,ana@example.com,10\nr2,ana@example.com,11\n');
    const batch = await pix(['pay', 'batch', file, '--yes']);
    expect(batch.code, batch.stderr + batch.stdout).toBe(0);
    now = new Date(now.getTime() + 60_000);
    const out = join(dir, 'recibos');
    const written = await pix(['receipt', '--batch', file, '--dir', out]);
    expect(written.code, written.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['r1.pdf', 'r2.pdf']);
    expect(readFileSync(join(out, 'r1.pdf')).subarray(0, 5).toString()).toBe('%PDF-');

    const journal = JSON.parse((await pix(['journal', '--json'])).stdout) as {
      results: Array<{ id: string; kind: string }>;
    };
    const charge = await pix([
      'charge',
      'immediate',
      '--amount',
      '10',
      '--key',
      SEEDED_KEYS.email.key,
      '--json',
      '--no-qr',
    ]);
    expect(charge.code, charge.stderr).toBe(0);
    const chargeId = (
      JSON.parse((await pix(['journal', '--json'])).stdout) as {
        results: Array<{ id: string; kind: string }>;
      }
    ).results.find((e) => e.kind === 'charge')!.id;
    const refused = await pix(['receipt', chargeId]);
    expect(refused.code).toBe(8);
    expect(refused.stderr).toContain('is a charge, not a payment');
    expect(journal.results.length).toBe(2);
    const missing = await pix(['receipt', 'ffffffff']);
    expect(missing.code).toBe(4);
  });
});
