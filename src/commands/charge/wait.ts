/**
 * `pix charge wait ID` and the `--wait` of `charge immediate`/`charge duedate`: polls the statement
 * for the INCOME entry that pays a charge of the ledger (domain/matching.ts decides), records the
 * match in the journal and prints the entry. Exit 0 paid — proven by the payer's document, or probable
 * (amount and time only: the output says which) —, 7 when the payment is ambiguous (more than one
 * entry or charge could be it: none is marked paid), 9 (`pending`) at the end of `--wait`, 5 when the charge
 * expired unpaid (by the account's clock: the sandbox's in the sandbox), 130 on Ctrl-C.
 *
 * Polling: every `--interval` (3 s), through deps.clock/deps.sleep. The first poll reads the statement
 * from the creation of the oldest unmatched charge that competes for the same entries; later polls read
 * only the newest page(s), until an entry already seen. A 429 is retried by the client honouring
 * Retry-After; when the server stays unavailable the wait backs off (doubling, at most 60 s) and goes on.
 */
import type { Command } from 'commander';
import type { StatementEntry } from '../../api/resources/statement.js';
import { DEFAULT_TIMEOUT_MS, type Deps } from '../../context.js';
import { parseText } from '../../domain/charge-values.js';
import { type ChargeMatch, matchWindow } from '../../domain/matching.js';
import { formatBRL, formatDecimal } from '../../domain/money.js';
import { formatDateTime, formatForMessage } from '../../domain/when.js';
import { interruptedError, PixError, stopSignalOf } from '../../errors.js';
import type { LedgerRecord } from '../../journal/ledger.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import { escapeUnsafe, safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import {
  chargeNamed,
  ledgerJson,
  lookAtStatement,
  openLedger,
  type ProfileLedger,
  SeenStatement,
} from '../shared/chargeledger.js';
import { durationFlag, fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';

export const DEFAULT_INTERVAL = '3s';
export const DEFAULT_WAIT = '10m';
const MAX_BACKOFF_MS = 60_000;

// ---------------------------------------------------------------------------------------------
// Options

/** The flags of a wait, shared with `--wait` (zod shape). */
export const waitShape = {
  interval: durationFlag,
  timeout: durationFlag,
};

const waitOptionsSchema = z.object({
  id: fromDomain(parseText),
  ...waitShape,
  qr: z._default(z.boolean(), true),
});

export type WaitOptions = z.output<typeof waitOptionsSchema>;

export interface WaitLimits {
  interval: { milliseconds: number };
  timeout: { milliseconds: number; value: number; unit: string };
}

/** The `--wait` of the commands that create a charge (zod shape). */
export const createWaitShape = { wait: z._default(z.boolean(), false), ...waitShape };

export function addWaitFlags(command: Command, withSwitch = false): Command {
  if (withSwitch) {
    command.option(
      '--wait [duration]',
      `then wait until it is paid, like \`pix charge wait\`, at most this long (default ${DEFAULT_WAIT})`,
    );
  } else {
    command.option('--wait <duration>', `how long to wait (default ${DEFAULT_WAIT})`);
  }
  return command.option('--interval <duration>', 'how often to read the statement', DEFAULT_INTERVAL);
}

/**
 * How long a wait lasts: `--wait DURATION`. The global `--timeout` is each request's limit, on a wait as
 * everywhere. A wait that has no duration of its own but a `--timeout` takes it as the wait's, as the first
 * release did (contract §4: exit 9 at the end of the wait), with a warning that names the new flag; each
 * request then keeps the default limit.
 */
export function waitDuration(self: Command, deps: Deps): string {
  const wait: unknown = self.opts().wait;
  if (typeof wait === 'string') return wait;
  const source = self.getOptionValueSourceWithGlobals('timeout');
  if (source !== 'cli' && source !== 'env') return DEFAULT_WAIT;
  const given = String(self.optsWithGlobals().timeout);
  deps.io.stderr.write(
    `warning: --timeout on a wait is deprecated: it is each request's time limit; use --wait ${given} (taken as --wait this time)\n`,
  );
  deps.globals.timeoutMs = DEFAULT_TIMEOUT_MS;
  return given;
}

/** The raw options of a command that creates a charge: a wait only with `--wait` (its duration, if given). */
export function createCommandOptions(self: Command, deps: Deps): Record<string, unknown> {
  const wait = self.opts().wait !== undefined;
  // --force is global (it lets --output-file replace a file too): --qr-png's, here.
  return {
    ...self.opts(),
    wait,
    force: deps.globals.force,
    timeout: wait ? waitDuration(self, deps) : DEFAULT_WAIT,
  };
}

// ---------------------------------------------------------------------------------------------
// Polling

export interface WaitResult {
  record: LedgerRecord;
  /** Set when this wait found the entry (absent when the ledger already had the match). */
  match?: ChargeMatch<StatementEntry>;
  /** When the look that found it read the statement (the account's clock). */
  checkedAt?: string | undefined;
}

function sleepOrAbort(ms: number, deps: Deps): Promise<void> {
  if (deps.signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      deps.signal.removeEventListener('abort', done);
      resolve();
    };
    deps.signal.addEventListener('abort', done, { once: true });
    deps.sleep(ms).then(done, done);
  });
}

/** When an unpaid `record` counts as expired (its window's end), in ms; Infinity without an expiry. */
function expiredAfter(record: LedgerRecord): number {
  return matchWindow(record)?.to ?? Number.POSITIVE_INFINITY;
}

/**
 * A charge that more than one entry could have paid, or whose entry another charge could have taken:
 * pix cannot tell which, and waiting longer does not settle it (more payments only add candidates).
 * Exit 7, as for any outcome only the statement can settle, with the candidates named.
 */
function ambiguousError(record: LedgerRecord): PixError {
  const found = record.ambiguity!;
  const entries = found.candidates
    .map((c) => `${safeText(c.entryId, 64)} (${formatBRL(c.amount)})`)
    .join(', ');
  const rivals = found.rivals.length
    ? `; charge(s) ${found.rivals.map((id) => safeText(id, 64)).join(', ')} could take the same payment`
    : '';
  return new PixError(
    'unknown_outcome',
    `charge ${record.id} may have been paid, but pix cannot tell by which entry: ${entries}${rivals}`,
    {
      hint: 'none of them is marked paid; check these entries in `pix statement` (payer and document) before you deliver',
    },
  );
}

function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const m = Math.floor(seconds / 60);
  return `${m}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * Waits for `target` to be paid. Shows its QR (with `showQr`) and a live elapsed/remaining line on
 * stderr when it is a terminal. Throws `pending` at the timeout, `rejected` once expired unpaid,
 * `interrupted` on Ctrl-C.
 */
export async function waitForCharge(
  ledger: ProfileLedger,
  target: LedgerRecord,
  limits: WaitLimits,
  deps: Deps,
  showQr: boolean,
): Promise<WaitResult> {
  const { stderr } = deps.io;
  const live = stderr.isTTY;
  if (target.match) return { record: target };
  if (live && showQr && target.emv) {
    const { qrForTerminal, qrThemeOf } = await import('../../output/qr.js');
    // The code first, then its drawing (or, when the drawing does not fit, a line saying so): the drawing
    // and the live line below it stay on the screen together.
    const qr = await qrForTerminal(
      target.emv,
      qrThemeOf(undefined, deps.env),
      { columns: stderr.columns, rows: stderr.rows },
      `\`pix charge show ${escapeUnsafe(target.id)} --qr-png qr.png\``,
      2,
    );
    stderr.write(`Pix copy and paste:\n${escapeUnsafe(target.emv)}\n\n${qr.text}`);
  }
  const client = await deps.api();
  const start = deps.clock.now().getTime();
  const deadline = start + limits.timeout.milliseconds;
  const seen = new SeenStatement();
  let interval = limits.interval.milliseconds;
  let warned = false;
  const clearLine = () => {
    if (live) stderr.write('\r\u001b[2K');
  };
  try {
    for (;;) {
      if (deps.signal.aborted) {
        throw interruptedError(
          stopSignalOf(deps.signal),
          `waiting for charge ${target.id}`,
          `wait again with \`pix charge wait ${target.id}\``,
        );
      }
      let current =
        (await ledger.reload(client.clock.now())).find((record) => record.id === target.id) ?? target;
      if (current.match) return { record: current };
      try {
        const look = await lookAtStatement(ledger, client, [current], seen);
        current = look.records.find((record) => record.id === target.id) ?? current;
        interval = limits.interval.milliseconds;
        const mine = look.matches.find((match) => match.chargeId === target.id);
        if (mine) return { record: current, match: mine, checkedAt: look.checkedAt };
        if (current.match) return { record: current, checkedAt: look.checkedAt };
        if (current.ambiguity) throw ambiguousError(current);
      } catch (error) {
        if (!(error instanceof PixError) || error.kind !== 'unavailable' || deps.signal.aborted) throw error;
        if (!warned) {
          clearLine();
          stderr.write(`warning: ${error.message}; still waiting, reading less often\n`);
          warned = true;
        }
        interval = Math.min(interval * 2, MAX_BACKOFF_MS);
      }
      const now = deps.clock.now().getTime();
      // Expiry by the account's clock (the sandbox's, when the API is the sandbox: api/clock.ts).
      const expires = expiredAfter(current);
      if (client.clock.now().getTime() > expires) {
        const zone = (await deps.settings()).timeZone.value;
        throw new PixError(
          'rejected',
          `charge ${current.id} expired unpaid (at ${formatForMessage(current.expiresAt ?? '', zone)})`,
        );
      }
      if (now >= deadline) {
        const waited = `${limits.timeout.value}${limits.timeout.unit}`;
        throw new PixError('pending', `charge ${current.id} is still pending after ${waited}`, {
          hint: `wait again with \`pix charge wait ${current.id}\``,
        });
      }
      if (live) {
        const remaining = Math.min(deadline - now, expires - client.clock.now().getTime());
        stderr.write(
          `\r\u001b[2KWaiting for ${formatBRL(current.amountCentavos)}… ${clock(now - start)} elapsed, ${clock(remaining)} left (Ctrl-C stops)`,
        );
      }
      await sleepOrAbort(Math.min(interval, deadline - now), deps);
    }
  } finally {
    clearLine();
  }
}

// ---------------------------------------------------------------------------------------------
// Output

/** Prints the payment found: a few lines for people, a TSV row piped, one JSON object with `--json`. */
export async function printPaid(result: WaitResult, deps: Deps): Promise<void> {
  const timeZone = (await deps.settings()).timeZone.value;
  const mode = await outputMode(deps, timeZone);
  const { record, match } = result;
  const paid = record.match;
  const proven = (paid?.evidence ?? match?.evidence) === 'payer-document';
  if (!proven) {
    deps.io.stderr.write(
      `note: probable, not proven: charge ${record.id} names no payer, so this is a payment of its amount in its time, from anyone; check the payer before you deliver\n`,
    );
  }
  if (mode.format === 'json' || mode.format === 'ndjson') {
    const json = { charge: ledgerJson(record, result.checkedAt), entry: match?.entry ?? null };
    deps.io.stdout.write(jsonDocument(json, mode.format === 'json' && mode.pretty));
    return;
  }
  const how = paid?.how ?? match?.how ?? '';
  const entryId = paid?.entryId ?? match?.entryId ?? '';
  const amount = paid?.amountCentavos ?? match?.amount ?? record.amountCentavos;
  const confirmedAt = match?.entry.confirmedAt;
  if (mode.human) {
    const payer = match?.entry.creditor?.name;
    const rows: Array<[string, string | undefined]> = [
      ['Charge', record.id],
      [
        'Status',
        proven
          ? mode.colors.green("paid (the payer's document)")
          : mode.colors.yellow('probable (amount and time only)'),
      ],
      ['Amount', formatBRL(amount)],
      ['Payer', payer === undefined ? undefined : safeText(payer)],
      ['Confirmed', confirmedAt === undefined ? undefined : formatDateTime(confirmedAt, timeZone)],
      ['Entry', safeText(entryId)],
      ['How', how],
    ];
    const lines = rows
      .filter((row): row is [string, string] => row[1] !== undefined)
      .map(([label, value]) => `${mode.colors.bold(label.padEnd(11))}${value}`);
    deps.io.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  const cells = [
    record.id,
    proven ? 'paid' : 'probable',
    entryId,
    formatDecimal(amount),
    confirmedAt ?? '',
    how,
  ];
  deps.io.stdout.write(`${cells.map((cell) => escapeUnsafe(cell)).join('\t')}\n`);
}

/** `--wait` after a charge was created and shown: the wait of `pix charge wait`, its QR already drawn. */
export async function waitAfterCreate(entry: { id: string }, options: WaitLimits, deps: Deps): Promise<void> {
  const ledger = await openLedger(deps);
  const record = ledger.records.find((r) => r.journalId === entry.id);
  if (!record) throw new PixError('internal', 'the charge just created is not in the ledger');
  await printPaid(await waitForCharge(ledger, record, options, deps, false), deps);
}

// ---------------------------------------------------------------------------------------------
// pix charge wait

export async function runWait(options: WaitOptions, deps: Deps): Promise<void> {
  const ledger = await openLedger(deps);
  const record = chargeNamed(ledger, options.id);
  const result = await waitForCharge(ledger, record, options, deps, options.qr);
  await printPaid(result, deps);
}

export const verb = describeVerb({
  summary: 'Wait until a charge is paid (exit 0), still pending at the end of --wait (9) or expired (5)',
  formats: LIST_FORMATS,
  examples: [
    'pix sandbox pay "$CHARGE_ID" && pix charge wait "$CHARGE_ID" --wait 15m --interval 5s',
    'pix sandbox pay "$CHARGE_ID" && pix charge wait "$CHARGE_ID" --json | jq .charge.paid',
  ],
  exits: ['usage', 'not_found', 'rejected', 'unavailable', 'unknown_outcome', 'pending'],
});

export function register(command: Command, deps: Deps): void {
  command.argument('<id>', 'the charge: its id, txid, or the start of its id (see `pix charge list`)');
  addWaitFlags(command)
    .option('--no-qr', 'do not draw the QR code while waiting')
    .action(async (id: string, _options, self: Command) => {
      const { wait: _wait, ...own } = self.opts();
      const raw = { ...own, id, timeout: waitDuration(self, deps) };
      await runWait(parseOptions(waitOptionsSchema, raw, { id: '<id>', timeout: '--wait' }), deps);
    });
}
