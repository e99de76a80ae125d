/**
 * An operator's second day: what a person reads on a terminal (a real pty, 80 × 24, rendered by a terminal
 * emulator) when the work is not the happy path — a batch with a row that cannot be paid, a confirmation
 * to read before money moves, a journal to look through, a listener, a QR code on a standard terminal.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { maskDocument } from '../../src/domain/documents.js';
import { JOURNAL_FILE } from '../../src/journal/entries.js';
import { parseJournal } from '../../src/journal/parser.js';
import { recoveryHint } from '../../src/journal/record.js';
import { BIN, NODE, runCli } from '../helpers/cli.js';
import { readQrFromScreen } from '../helpers/qr.js';
import { tempDir } from '../helpers/temp.js';
import { runOnPty } from '../helpers/terminal.js';
import { until } from '../helpers/wait.js';

// Each test runs pix several times (an account made, then looked at), some of them live views: on a busy
// 2-core machine that is seconds, far from this limit.
vi.setConfig({ testTimeout: 90_000 });

/** A fresh account (the embedded sandbox in a fresh PIX_CONFIG_DIR) with a folder for files. */
function account() {
  const dir = tempDir('pix-operator-');
  const env = { PIX_CONFIG_DIR: join(dir, 'config') };
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  return { dir, env, file };
}

/** A key the sandbox answers 404 for (sandbox/people.ts). */
const MISSING = 'naoexiste@sandbox.pix.local';

const BATCH = [
  'id,key,amount,description',
  'r1,ana@example.com,10.50,aluguel',
  `r2,${MISSING},5,frete`,
  'r3,+5511912345678,7,taxa',
].join('\n');

describe('pix pay batch on an 80-column terminal', () => {
  it('each row not paid has its reason under the table, in full, whatever the width', async () => {
    const { env, file } = account();
    const result = await runOnPty(['pay', 'batch', file('b.csv', BATCH), '--yes'], { env });
    const shown = result.lines.join('\n');
    expect(result.code, shown).toBe(5);
    // The table drops its error column at 80 columns; the reason is still there, whole, under it.
    expect(shown).toMatch(/└─+┴/);
    expect(shown.replace(/\n/g, ' ')).toContain(
      'not payable: row r2: consulting the PIX key: not found (404): Chave PIX não encontrada',
    );
  });

  it('the confirmation shows the plan first: each row id, the receiver as consulted, the amount', async () => {
    const { env, file } = account();
    const result = await runOnPty(['pay', 'batch', file('b.csv', BATCH)], {
      env,
      steps: [{ after: '[y/N]', send: 'n\r' }],
    });
    expect(result.code).toBe(8);
    const question = result.lines.findIndex((line) => line.includes('[y/N]'));
    const plan = result.lines.slice(0, question).join('\n');
    expect(plan).toMatch(/│ r1 +│ Distribuidora Sol Ltda +│.*R\$ 10,50 │/);
    expect(plan).toMatch(/│ r3 +│ Loja Sandbox Ltda +│.*R\$ 7,00 │/);
    // The row that cannot be paid is not in the plan.
    expect(plan).not.toMatch(/│ r2 /);
  });

  it('a long plan goes through the pager before the question', async () => {
    const { env, file } = account();
    const rows = Array.from({ length: 30 }, (_, index) => `p${index},ana@example.com,${index + 5},x`);
    const result = await runOnPty(
      ['pay', 'batch', file('long.csv', `id,key,amount,description\n${rows.join('\n')}`)],
      {
        // A pager that marks what it shows: the plan's rows come through it.
        env: { ...env, PIX_PAGER: "sed 's/^/paged: /'" },
        steps: [{ after: '[y/N]', send: 'n\r' }],
      },
    );
    const shown = result.lines.join('\n');
    expect(result.code, shown).toBe(8);
    expect(shown).toMatch(/^paged: │ p29 +│ Distribuidora Sol/m);
    expect(shown.indexOf('paged: │ p29')).toBeLessThan(shown.indexOf('[y/N]'));
  });

  it('--dry-run exits with the code the real run would: 5 for a key that does not exist', async () => {
    const { env, file } = account();
    const path = file('b.csv', BATCH);
    const dry = await runOnPty(['pay', 'batch', path, '--dry-run'], { env });
    expect(dry.code, dry.lines.join('\n')).toBe(5);
    expect(dry.lines.join('\n')).toContain('nothing was sent');
    const real = await runCli(['pay', 'batch', path, '--yes'], { env });
    expect(real.code).toBe(dry.code);
  });

  it('--dry-run exits 8 for a row that repeats a payment made outside the file, as the real run does', async () => {
    const { env, file } = account();
    expect((await runCli(['pay', 'key', 'ana@example.com', '--amount', '10', '--yes'], { env })).code).toBe(
      0,
    );
    const path = file('dup.csv', 'id,key,amount\nd1,ana@example.com,10\n');
    const dry = await runOnPty(['pay', 'batch', path, '--dry-run'], { env });
    expect(dry.code, dry.lines.join('\n')).toBe(8);
    expect(dry.lines.join(' ')).toContain('duplicate: row d1: the same payment was made outside this file');
    expect((await runCli(['pay', 'batch', path, '--yes'], { env })).code).toBe(8);
  });

  it('--dry-run of a batch all paid before exits 0, as its real run would', async () => {
    const { env, file } = account();
    const path = file('ok.csv', 'id,key,amount\nk1,ana@example.com,10\n');
    expect((await runCli(['pay', 'batch', path, '--yes'], { env })).code).toBe(0);
    const dry = await runOnPty(['pay', 'batch', path, '--dry-run'], { env });
    expect(dry.code, dry.lines.join('\n')).toBe(0);
  });
});

describe('pix journal', () => {
  it('at 80 columns keeps the receiver and names batch rows; piped, each line says its profile', async () => {
    const { env, file } = account();
    expect((await runCli(['pay', 'batch', file('b.csv', BATCH), '--yes'], { env })).code).toBe(5);
    const shown = await runOnPty(['journal'], { env });
    const screen = shown.lines.join('\n');
    expect(shown.code, screen).toBe(0);
    expect(screen).toMatch(/│ Receiver/);
    expect(screen).toMatch(/│ row r1 +│ done +│ +R\$ 10,50 │ Distribuidora Sol/);
    const piped = await runCli(['journal'], { env });
    expect(piped.code, piped.stderr).toBe(0);
    const rows = piped.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows.map((row) => row.slice(-2))).toEqual([
      ['sandbox', 'r3'],
      ['sandbox', 'r1'],
    ]);
  });
});

describe('the hint after an unknown outcome', () => {
  it('is one statement command whose filters show that payment alone, not a window of pages', async () => {
    const { env } = account();
    const pay = (key: string, amount: string) =>
      runCli(['pay', 'key', key, '--amount', amount, '--yes'], { env });
    expect((await pay('ana@example.com', '10')).code).toBe(0);
    expect((await pay('+5511912345678', '7')).code).toBe(0); // another payment in the same window
    // The hint as an unknown outcome of the first payment would give it (the receiver's document as the
    // consultation showed it: the sandbox's Distribuidora Sol Ltda).
    const [first] = parseJournal(readFileSync(join(env.PIX_CONFIG_DIR, JOURNAL_FILE), 'utf8'));
    const hint = recoveryHint(first!, {
      timeZone: 'America/Sao_Paulo',
      document: maskDocument('23338691000133'),
    });
    const command = /`(pix statement [^`]+)`/.exec(hint)?.[1];
    expect(command, hint).toMatch(/--min 10\.00 --max 10\.00 --all$/);
    // The sandbox confirms a transfer a moment after it: ask until it shows, within a deadline.
    const deadline = Date.now() + 45_000;
    let rows: string[] = [];
    while (Date.now() < deadline) {
      const shown = await runOnPty([], { env, shell: command! });
      expect(shown.code, shown.lines.join('\n')).toBe(0);
      rows = shown.lines.filter((line) => /^│ \d/.test(line));
      if (rows.length > 0) break;
    }
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/-R\$ 10,00.*Distribuidora Sol/);
  });
});

describe('names a person reaches for', () => {
  it('pix profile create NAME makes a profile (it said: did you mean rename?)', async () => {
    const { env } = account();
    const created = await runOnPty(['profile', 'create', 'prod', '--base-url', 'https://api.example.com'], {
      env,
    });
    expect(created.code, created.lines.join('\n')).toBe(0);
    expect(created.lines.join('\n')).toContain('Created profile prod');
    const listed = await runCli(['profile', 'list'], { env });
    expect(listed.stdout).toContain('\tprod\thttps://api.example.com\n');
    const again = await runOnPty(['profile', 'create', 'prod'], { env });
    expect(again.code).toBe(2);
  });

  it('pix sandbox pay takes the short id that charge list shows and charge show accepts', async () => {
    const { env } = account();
    const created = await runCli(['charge', 'immediate', '--amount', '12', '--no-qr'], { env });
    const id = created.stdout.split('\t')[0]!;
    const paid = await runOnPty(['sandbox', 'pay', id.slice(0, 8)], { env });
    expect(paid.code, paid.lines.join('\n')).toBe(0);
    expect(paid.lines.join('\n')).toContain(`Charge ${id} paid by`);
  });

  it("charge wait --wait DURATION is how long to wait; --timeout stays each request's limit", async () => {
    const { env } = account();
    const created = await runCli(['charge', 'immediate', '--amount', '12', '--no-qr'], { env });
    const id = created.stdout.split('\t')[0]!;
    const waited = await runOnPty(['charge', 'wait', id, '--wait', '2s', '--interval', '1s', '--no-qr'], {
      env,
    });
    const shown = waited.lines.join('\n');
    expect(waited.code, shown).toBe(9);
    expect(shown).toContain('still pending after 2s');
    expect(shown).not.toContain('deprecated');
  });
});

describe('pix listen on a terminal', () => {
  /** The hour on the profile's clock (the sandbox's default zone), at the start and at the end of a run. */
  const hourThere = () =>
    new Intl.DateTimeFormat('en-GB', {
      timeZone: 'America/Sao_Paulo',
      hour: '2-digit',
      hourCycle: 'h23',
    }).format(new Date());

  it('--forward-to: each event in local time with R$, then one line per delivery with status and time', async () => {
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { env } = account();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pix`;
      const before = hourThere();
      const shown = await runOnPty(['listen', '--interval', '1s', '--backfill', '90d', '--forward-to', url], {
        env,
        steps: [{ after: /→ evt_\S+ 200 in \d+ ms/, send: '\u0003' }],
        timeoutMs: 60_000,
      });
      const hours = [before, hourThere()];
      // (Its exit code on Ctrl-C is listen.test.ts's: here the pty's shell is interrupted too.)
      const screen = shown.lines.join('\n');
      const event = /^(\d\d):\d\d:\d\d {2}entry\.(income|outcome) +-?R\$ [\d.]+,\d\d {2}/m.exec(screen);
      expect(event, screen).not.toBeNull();
      expect(hours).toContain(event![1]);
      expect(screen).toMatch(/^ {2}→ evt_\S+ 200 in \d+ ms$/m);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('small untruths', () => {
  it('the embedded sandbox is sandbox.localhost in what pix says and records, faults on or off', async () => {
    const { env, file } = account();
    const faulty = { ...env, PIX_SANDBOX_FAULTS: 'emv:500x1' };
    const paid = await runOnPty(['pay', 'key', 'ana@example.com', '--amount', '10', '--yes'], {
      env: faulty,
    });
    expect(paid.lines.join('\n')).toContain('paying from profile "sandbox" via sandbox.localhost (sandbox)');
    const journal = JSON.parse((await runCli(['journal', '--json'], { env })).stdout);
    expect(journal.results[0]).toMatchObject({
      host: 'sandbox.localhost',
      baseUrl: 'http://sandbox.localhost',
    });
    const again = await runOnPty(
      ['pay', 'batch', file('again.csv', 'id,key,amount\na1,ana@example.com,10\n'), '--dry-run'],
      {
        env,
      },
    );
    const said = again.lines.join(' ');
    expect(said).toContain('via http://sandbox.localhost (profile "sandbox")');
    expect(said).not.toContain('127.0.0.1');
  });

  it("a journal line of an earlier version (http://127.0.0.1:0) is still the embedded sandbox's: paid is paid", async () => {
    const { env } = account();
    expect((await runCli(['keys'], { env })).code).toBe(0); // makes the account's folder
    const at = new Date(Date.now() - 60_000).toISOString();
    const id = '0c0c0c0c-1111-4222-8333-444455556666';
    const lines = [
      {
        id,
        at,
        kind: 'payment',
        state: 'sending',
        profile: 'sandbox',
        host: 'sandbox.localhost',
        baseUrl: 'http://127.0.0.1:0',
        amountCentavos: 1000,
        receiver: 'Distribuidora Sol Ltda',
        endToEndId: 'E1',
        payment: { method: 'key', key: 'ana@example.com' },
      },
      { id, at, state: 'done', transferId: 't1', status: 'PENDING' },
    ];
    writeFileSync(
      join(env.PIX_CONFIG_DIR, JOURNAL_FILE),
      lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
    );
    const paid = await runOnPty(['pay', 'key', 'ana@example.com', '--amount', '10', '--yes'], { env });
    expect(paid.code, paid.lines.join('\n')).toBe(8);
    expect(paid.lines.join(' ')).toContain('already paid: R$ 10,00 to Distribuidora Sol Ltda');
    const shown = await runOnPty(['journal', 'show', id.slice(0, 8)], { env });
    expect(shown.lines.join('\n')).toMatch(/Account +│ http:\/\/sandbox\.localhost/);
  });

  it('one rule for files pix writes: an existing one is replaced only with --force (--output-file as --qr-png)', async () => {
    const { env, file } = account();
    const csv = file('statement.csv', 'last month\n');
    const refused = await runOnPty(['statement', '-o', 'csv', '--output-file', csv], { env });
    expect(refused.code).toBe(2);
    expect(refused.lines.join(' ')).toContain(
      `error: --output-file: ${csv} already exists; add --force to replace it`,
    );
    expect(readFileSync(csv, 'utf8')).toBe('last month\n');
    const png = file('qr.png', 'old');
    const qr = await runOnPty(['charge', 'immediate', '--amount', '10', '--qr-png', png, '--no-qr'], { env });
    expect(qr.code).toBe(2);
    expect(qr.lines.join(' ')).toContain(`error: --qr-png: ${png} already exists; add --force to replace it`);
    const replaced = await runOnPty(['statement', '-o', 'csv', '--output-file', csv, '--force'], { env });
    expect(replaced.code).toBe(0);
    expect(readFileSync(csv, 'utf8')).toMatch(/^confirmedAt,type,amount/);
  });

  it('Ctrl-C ends statement --follow with 130, and an --output-file keeps what was followed', async () => {
    const { dir, env } = account();
    const target = join(dir, 'followed.csv');
    const child = spawn(
      NODE,
      [BIN, 'statement', '--follow', '--interval', '1s', '-o', 'csv', '--output-file', target],
      {
        env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
        stdio: 'ignore',
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The header and a first row (two lines) are in its temporary file: then Ctrl-C.
    const written = () =>
      readdirSync(dir).some(
        (name) =>
          name.startsWith('followed.csv.') && readFileSync(join(dir, name), 'utf8').split(/\r?\n/).length > 2,
      );
    await until(written, 'the header and a first row in the temporary file', 45_000);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const rows = readFileSync(target, 'utf8').trimEnd().split(/\r?\n/);
    expect(rows[0]).toMatch(/^confirmedAt,/);
    expect(rows.length).toBeGreaterThan(1);
  });
});

describe('shell habits', () => {
  it('--amount R$5 typed unquoted: the shell ate $5, and pix says to quote it', async () => {
    const { env } = account();
    const shown = await runOnPty([], { env, shell: 'pix pay key ana@example.com --amount R$5' });
    expect(shown.code).toBe(2);
    const screen = shown.lines.join(' ');
    expect(screen).toContain(
      'error: --amount: "R" is not an amount: unquoted, the shell took $ and the digits after it',
    );
    expect(screen).toContain("hint: quote it: --amount 'R$ 5'");
  });

  it.each([
    [['config', 'set', 'time-zone', 'America/Manus'], 'did you mean America/Manaus?'],
    [['statement', '-o', 'xls'], 'did you mean xlsx?'],
    [['statement', '--month', '11/2026'], 'did you mean 2026-11?'],
    [['statement', '--from', '-1w'], 'did you mean -7d?'],
  ])('a value a letter off gets a did-you-mean, as commands and flags do: pix %j', async (args, hint) => {
    const { env } = account();
    const shown = await runOnPty(args, { env });
    expect(shown.code).toBe(2);
    expect(shown.lines.join('\n')).toContain(`hint: ${hint}`);
  });
});

describe('for people', () => {
  it('-o csv-br speaks Portuguese, the same words for the same column in every command', async () => {
    const { env } = account();
    expect((await runCli(['pay', 'key', 'ana@example.com', '--amount', '5', '--yes'], { env })).code).toBe(0);
    expect((await runCli(['charge', 'immediate', '--amount', '10', '--no-qr'], { env })).code).toBe(0);
    const header = async (args: string[]) => {
      const result = await runCli([...args, '-o', 'csv-br'], { env });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.replace(/^\ufeff/, '').split('\r\n');
    };
    const statement = await header(['statement', '--limit', '3']);
    expect(statement[0]).toBe(
      'Data;Tipo;Valor;Tarifa;Meio;Contraparte;Documento da contraparte;Banco da contraparte;Situação;Id',
    );
    expect(statement.slice(1).join('\n')).toMatch(/;(Entrada|Saída);.*;Confirmado;/);
    const charges = await header(['charge', 'list']);
    expect(charges[0]).toBe('Id;Situação;Tipo;Valor;Criada em;Vencimento ou expiração;Txid;Pago por');
    expect(charges[1]).toMatch(/;pendente;imediata;10,00;/);
    const journal = await header(['journal']);
    expect(journal[0]).toMatch(/^Id;Início;Tipo;Situação;Resolução;Valor;Recebedor;/);
    expect(journal.slice(1).join('\n')).toMatch(/;pagamento;concluído;;5,00;Distribuidora Sol Ltda;/);
    const keys = await header(['keys']);
    expect(keys[0]).toBe('Chave;Tipo;Criada em;Id');
  });

  it('on a 40-column terminal an id is never split with an indent: it can be copied whole', async () => {
    const { env } = account();
    const shown = await runOnPty(['charge', 'immediate', '--amount', '10', '--no-qr'], { env, columns: 40 });
    expect(shown.code).toBe(0);
    const id = (await runCli(['charge', 'list', '--json'], { env })).stdout.match(/"id":"([^"]+)"/)![1]!;
    // A line the terminal wrapped goes on at the left edge: joined, the id is whole.
    expect(shown.lines.join('')).toContain(id);
  });
});

describe('the QR code on a standard terminal', () => {
  it('a due-date charge at 80×24 is drawn with the compact quiet zone, whole on the screen, and a phone reads it', async () => {
    const { env } = account();
    const args = [
      'charge',
      'duedate',
      '--amount',
      '20',
      '--due',
      '+3d',
      '--debtor-name',
      'Ana',
      '--debtor-cpf',
      '52998224725',
    ];
    const shown = await runOnPty(args, { env, columns: 80, rows: 24 });
    expect(shown.code).toBe(0);
    const read = readQrFromScreen(shown.screen, 80, 'dark');
    expect(read, shown.lines.join('\n')).toBeDefined();
    expect(shown.raw).toContain(read!.text); // the code printed to copy and paste
    expect(read!.quietZone).toBeGreaterThanOrEqual(2);
  });
});
