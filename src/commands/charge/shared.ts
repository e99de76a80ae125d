/**
 * What `pix charge immediate` and `pix charge duedate` share: the Commander flags both take, the PIX
 * key resolution, and how a created charge is shown and its QR PNG written. The value parsers of their
 * flags are pure and live in src/domain/charge-values.ts.
 */
import { stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import type { ApiClient } from '../../api/client.js';
import { type Charge, chargeTypeLabel } from '../../api/resources/charges.js';
import { everyKey, type RegisteredKey } from '../../api/resources/keys.js';
import type { Deps } from '../../context.js';
import {
  MAX_QUESTION,
  parseInfo,
  parseKeyIdOrStart,
  parseQuestion,
  parseText,
} from '../../domain/charge-values.js';
import { formatDocument } from '../../domain/documents.js';
import { describeModifiers } from '../../domain/duedate.js';
import { InvalidValue } from '../../domain/invalid.js';
import { centavosFromApi } from '../../domain/money.js';
import { UUID_PATTERN } from '../../domain/pixkey.js';
import { formatDate, formatDateTime } from '../../domain/when.js';
import { usageError } from '../../errors.js';
import type { ChargeStart } from '../../journal/entries.js';
import { jsonDocument, money, outputMode, stderrPalette } from '../../output/format.js';
import type { OutStream } from '../../output/iostreams.js';
import { parseQrTheme, QR_THEMES, type QrTheme, qrForTerminal, qrThemeOf } from '../../output/qr.js';
import { type Column, createListWriter } from '../../output/records.js';
import { safeText } from '../../output/sanitize.js';
import { renderTable } from '../../output/table.js';
import { asUsage } from '../../usage.js';
import * as z from '../../zod.js';
import { collect, fromDomain } from '../shared/flags.js';
import { completionValues } from '../shared/help.js';

/** Runs a parser on a value that came from `where` (a flag, or `--body: field`), naming it on failure. */
export function parseAt<I, T>(where: string, parse: (input: I) => T, input: I): T {
  return asUsage(where, () => parse(input));
}

// ---------------------------------------------------------------------------------------------
// Flags both commands take

/** Options fields both schemas share (zod), spread into each command's schema. */
export const sharedChargeShape = {
  keyId: z.optional(fromDomain(parseKeyIdOrStart)),
  key: z.optional(fromDomain(parseText)),
  question: z.optional(fromDomain(parseQuestion)),
  info: z._default(z.array(fromDomain(parseInfo)), []),
  qrPng: z.optional(fromDomain(parseText)),
  force: z._default(z.boolean(), false),
  qr: z._default(z.boolean(), true),
  qrTheme: z.optional(fromDomain(parseQrTheme)),
};

/** `--key-id` and `--key` name the same thing: one of them at most. */
export function refineSharedChargeOptions(
  options: { keyId?: string | undefined; key?: string | undefined },
  context: z.core.$RefinementCtx,
): void {
  if (options.keyId !== undefined && options.key !== undefined) {
    context.addIssue({ code: 'custom', path: ['key'], message: 'give either --key-id or --key, not both' });
  }
}

export function addKeyFlags(command: Command): Command {
  return command
    .option('--key-id <uuid>', 'id of the PIX key receiving the charge, or its start (see `pix keys`)')
    .option('--key <key>', 'the PIX key receiving the charge, looked up among the registered keys');
}

export function addCommonTailFlags(command: Command): Command {
  return command
    .option('--question <text>', `question shown to the payer (at most ${MAX_QUESTION} characters)`)
    .option('--info <name=value>', 'extra information shown to the payer (repeatable)', collect)
    .option(
      '--qr-png <file>',
      'write the QR code as a PNG file (`-`: to stdout; the charge then goes to stderr)',
    )
    .option('--no-qr', 'do not draw the QR code in the terminal')
    .addOption(
      completionValues(
        new Option(
          '--qr-theme <theme>',
          'the terminal QR code for a light or a dark terminal theme (default dark; PIX_QR_THEME)',
        ),
        QR_THEMES,
      ),
    );
}

// ---------------------------------------------------------------------------------------------
// The PIX key

/** The same key typed differently: e-mail in any case, CPF/CNPJ/phone with punctuation. */
function sameKey(typed: string, registered: string): boolean {
  if (typed === registered) return true;
  if (typed.includes('@')) return typed.toLowerCase() === registered.toLowerCase();
  const bare = (text: string) => text.replace(/[.\-/\s()]/g, '');
  const t = bare(typed);
  const r = bare(registered);
  return t === r || (r.startsWith('+55') && `+55${t}` === r) || t.toLowerCase() === r.toLowerCase();
}

function listing(keys: RegisteredKey[]): string {
  return keys.map((key) => `${key.key} (${key.keyType}, id ${key.id})`).join('; ');
}

export interface KeyChoice {
  keyId?: string | undefined;
  key?: string | undefined;
  /** pixKeyId of a `--body` request. */
  bodyKeyId?: string | undefined;
}

/**
 * The pixKeyId to charge to: `--key-id` as is; `--key` looked up among the registered keys; else the
 * body's pixKeyId; else the profile's `default-key` (an id or a key); else the account's only key.
 * Anything else is a usage error (exit 2) listing the keys; no charge is sent.
 */
export async function resolveChargeKey(choice: KeyChoice, deps: Deps, client: ApiClient): Promise<string> {
  if (choice.keyId !== undefined && UUID_PATTERN.test(choice.keyId)) return choice.keyId;
  if (choice.keyId === undefined && choice.key === undefined && choice.bodyKeyId !== undefined) {
    return choice.bodyKeyId;
  }
  const keys = await everyKey(client, 'nothing was created; run it again later');
  const hint = keys.length ? `this account's keys: ${listing(keys)}` : undefined;
  if (choice.keyId !== undefined) {
    // The start of an id, as a narrow `pix keys` shows it (git-style): it must name one key.
    const start = choice.keyId;
    const matches = keys.filter((key) => key.id.toLowerCase().startsWith(start));
    if (matches.length === 1) return matches[0]!.id;
    if (matches.length === 0)
      throw usageError('--key-id', `no key of this account has an id starting with ${start}`, hint);
    throw usageError(
      '--key-id',
      `${start} starts ${matches.length} key ids: give more of it`,
      `they are: ${listing(matches)}`,
    );
  }
  if (choice.key !== undefined) {
    const found = keys.find((key) => sameKey(choice.key!, key.key));
    if (!found) throw usageError('--key', `"${choice.key}" is not a PIX key of this account`, hint);
    return found.id;
  }
  const { defaultKey } = await deps.settings();
  if (defaultKey !== undefined) {
    const found =
      keys.find((key) => key.id === defaultKey) ?? keys.find((key) => sameKey(defaultKey, key.key));
    if (!found) {
      throw usageError(
        undefined,
        `the profile's default-key "${defaultKey}" is not a PIX key of this account`,
        `${hint ?? 'this account has no PIX keys'}; change it with \`pix config set default-key <key>\``,
      );
    }
    return found.id;
  }
  if (keys.length === 1) return keys[0]!.id;
  if (keys.length === 0) throw usageError('--key-id', 'this account has no registered PIX key to charge to');
  throw usageError(
    '--key-id',
    `this account has ${keys.length} PIX keys: choose one with --key-id or --key (or \`pix config set default-key\`)`,
    hint,
  );
}

// ---------------------------------------------------------------------------------------------
// Output

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_DATA_URL = 'data:image/png;base64,';

/** The PNG bytes of `qrCodeDataUrl`; InvalidValue unless it is a base64 PNG data URL holding a PNG. */
export function pngFromDataUrl(url: string | undefined): Buffer {
  if (url === undefined || url === '') throw new InvalidValue('the charge carries no qrCodeDataUrl');
  if (!url.toLowerCase().startsWith(PNG_DATA_URL)) {
    throw new InvalidValue(`qrCodeDataUrl is not a ${PNG_DATA_URL}… data URL`);
  }
  const base64 = url.slice(PNG_DATA_URL.length).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new InvalidValue('qrCodeDataUrl is not valid base64');
  const bytes = Buffer.from(base64, 'base64');
  if (!bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) {
    throw new InvalidValue('qrCodeDataUrl does not hold a PNG image');
  }
  return bytes;
}

export interface ChargeOutputOptions {
  qrPng?: string | undefined;
  force: boolean;
  qr: boolean;
  qrTheme?: QrTheme | undefined;
}

/**
 * Checks `--qr-png` BEFORE the charge is created, so a charge is never made whose PNG cannot be
 * written: an existing file without `--force`, a missing directory, or `-` with stdout on a terminal.
 */
export async function checkQrPngTarget(options: ChargeOutputOptions, deps: Deps): Promise<void> {
  qrThemeOf(options.qrTheme, deps.env); // and a bad PIX_QR_THEME, before anything is sent
  const target = options.qrPng;
  if (target === undefined) return;
  if (target === '-') {
    if (deps.io.stdout.isTTY) {
      throw usageError(
        '--qr-png',
        '`-` writes PNG bytes to stdout, which is a terminal; redirect it to a file',
      );
    }
    return;
  }
  const path = resolve(target);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw usageError('--qr-png', `${target} is a directory`);
  if (existing && !options.force) {
    throw usageError('--qr-png', `${target} already exists; add --force to replace it`);
  }
  const parent = await stat(dirname(path)).catch(() => undefined);
  if (!parent?.isDirectory()) throw usageError('--qr-png', `the directory of ${target} does not exist`);
}

/**
 * Piped output: one tab-separated line in this column order (README, "pix charge"):
 * id, status, type, amount, pixKey, pixKeyId, transactionIdentification, createdAt, expiresAt, dueDate, emvqrcps.
 */
export const CHARGE_COLUMNS: Column<Charge>[] = [
  { header: 'id', human: (c) => c.id, machine: (c) => c.id },
  { header: 'status', human: (c) => c.status, machine: (c) => c.status },
  { header: 'type', human: (c) => chargeTypeLabel(c.type), machine: (c) => c.type },
  {
    header: 'amount',
    human: (c) => money(centavosFromApi(c.amount), true),
    machine: (c) => money(centavosFromApi(c.amount), false),
  },
  { header: 'pixKey', human: (c) => c.pixKey ?? '', machine: (c) => c.pixKey },
  { header: 'pixKeyId', human: (c) => c.pixKeyId ?? '', machine: (c) => c.pixKeyId },
  {
    header: 'transactionIdentification',
    human: (c) => c.transactionIdentification ?? '',
    machine: (c) => c.transactionIdentification,
  },
  { header: 'createdAt', human: (c) => c.createdAt ?? '', machine: (c) => c.createdAt },
  { header: 'expiresAt', human: (c) => c.expiresAt ?? '', machine: (c) => c.expiresAt },
  { header: 'dueDate', human: (c) => c.dueDate ?? '', machine: (c) => c.dueDate },
  { header: 'emvqrcps', human: (c) => c.emvqrcps, machine: (c) => c.emvqrcps },
];

/** What pix sent with a charge that the API's answer does not repeat: the payer and a due-date charge's terms. */
export type ChargeSent = Pick<ChargeStart, 'payerName' | 'payerDocument' | 'terms'>;

/**
 * The charge for people: labelled fields in the profile's time zone, fitted to `width` columns, then
 * the copy-and-paste code (whole, whatever its length). `sent` adds the payer and every term sent, each
 * with its unit (what is sent is what is shown).
 */
export function renderChargeForPeople(
  charge: Charge,
  timeZone: string,
  bold: (text: string) => string,
  width: { width: number | undefined; wide: boolean } = { width: undefined, wide: false },
  sent: ChargeSent = {},
): string {
  const payer = [sent.payerName, sent.payerDocument && formatDocument(sent.payerDocument)].filter(Boolean);
  const rows: Array<[string, string | undefined]> = [
    ['Id', charge.id],
    ['Status', charge.status],
    ['Type', chargeTypeLabel(charge.type)],
    ['Amount', money(centavosFromApi(charge.amount), true)],
    ['Key', charge.pixKey ?? charge.pixKeyId],
    ['Created', charge.createdAt && formatDateTime(charge.createdAt, timeZone)],
    ['Due', charge.dueDate && formatDate(charge.dueDate, timeZone)],
    ['Payer', payer.length ? payer.join(', ') : undefined],
    ...(sent.terms ? describeModifiers(sent.terms) : []),
    ['Expires', charge.expiresAt && formatDateTime(charge.expiresAt, timeZone)],
    ['Description', charge.description],
  ];
  const details = renderTable(
    [
      { header: 'Field', kind: 'enum' },
      { header: 'Value', wrap: true },
    ],
    rows
      .filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '')
      .map(([label, value]) => [{ text: label, paint: bold }, value]),
    { ...width, style: 'plain' },
  );
  return `${details}\nPix copy and paste:\n${charge.emvqrcps}\n`;
}

async function writeCharge(
  charge: Charge,
  out: OutStream,
  options: ChargeOutputOptions,
  deps: Deps,
  timeZone: string,
  sent?: ChargeSent,
) {
  const mode = await outputMode(deps, timeZone);
  const human = out === deps.io.stdout ? mode.human : mode.format === 'table' && out.isTTY;
  const pretty = out.isTTY;
  if (mode.format === 'json') {
    out.write(jsonDocument(charge, pretty));
    return;
  }
  if (human) {
    const colors = out === deps.io.stdout ? mode.colors : await stderrPalette(deps);
    const width = out.isTTY ? out.columns : undefined;
    out.write(renderChargeForPeople(charge, timeZone, colors.bold, { width, wide: deps.globals.wide }, sent));
    if (options.qr && out.isTTY) {
      const qr = await qrForTerminal(
        charge.emvqrcps,
        qrThemeOf(options.qrTheme, deps.env),
        { columns: out.columns, rows: out.rows },
        // No hint for a flag already given: the PNG is being written.
        options.qrPng === undefined
          ? `\`pix charge show ${safeText(charge.id, 64)} --qr-png qr.png\``
          : undefined,
      );
      if (qr.drawn) out.write(`\n${qr.text}`);
      else deps.io.stderr.write(`\n${qr.text}`);
    }
    return;
  }
  const writer = createListWriter(out, {
    ...mode,
    human: false,
    pretty,
    columns: CHARGE_COLUMNS,
    listField: 'results',
    raw: (c) => c,
  });
  await writer.begin(1);
  await writer.write(charge);
  await writer.end();
}

/**
 * Shows the created charge and writes its PNG. A PNG that cannot be written once the charge exists is
 * a warning, never a failure: the charge is printed anyway and the exit code stays 0.
 */
export async function deliverCharge(
  charge: Charge,
  options: ChargeOutputOptions,
  deps: Deps,
  sent?: ChargeSent,
): Promise<void> {
  const { stdout, stderr } = deps.io;
  deps.output.ifLost(`the charge was created: id ${charge.id}`);
  const timeZone = (await deps.settings()).timeZone.value;
  let out = stdout;
  if (options.qrPng !== undefined) {
    const target = options.qrPng;
    try {
      const png = pngFromDataUrl(charge.qrCodeDataUrl);
      if (target === '-') {
        stdout.write(png);
        out = stderr;
      } else {
        await writeFile(target, png, { flag: options.force ? 'w' : 'wx' });
        if (stderr.isTTY) stderr.write(`QR code written to ${target}\n`);
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      stderr.write(`warning: --qr-png: the charge was created but its PNG was not written: ${reason}\n`);
      if (target === '-') out = stderr;
    }
  }
  await writeCharge(charge, out, options, deps, timeZone, sent);
}
