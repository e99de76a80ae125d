import { type Command, Option } from 'commander';
import type { Deps } from '../context.js';
import { InvalidValue } from '../domain/invalid.js';
import { centavosToApi, formatBRL, formatDecimal } from '../domain/money.js';
import { UUID_PATTERN } from '../domain/pixkey.js';
import { counted } from '../domain/words.js';
import { PixError, usageError } from '../errors.js';
import { jsonDocument } from '../output/format.js';
import {
  loadAccount,
  loadBatchFile,
  loadFaults,
  loadPaths,
  loadServer,
  loadStore,
} from '../sandbox/index.js';
import * as z from '../zod.js';
import { durationFlag, fromDomain, integerFlag, parseOptions } from './shared/flags.js';
import { addExamples, completionValues } from './shared/help.js';

// ---------------------------------------------------------------------------------------------
// Options

const stateFlag = z.optional(z.string().check(z.minLength(1, 'a file path is required')));

const portFlag = fromDomain((text) => {
  if (!/^\d{1,5}$/.test(text.trim())) throw new InvalidValue(`"${text}" is not a port number`);
  const port = Number(text);
  if (port > 65_535) throw new InvalidValue('must be between 0 and 65535');
  return port;
});

export const serveSchema = z.object({
  port: z.optional(portFlag),
  state: stateFlag,
  faults: z.optional(z.string().check(z.minLength(1, 'a SPEC is required, e.g. statement:503x2'))),
  latencyMs: z.optional(integerFlag(0)),
});
export type ServeOptions = z.output<typeof serveSchema>;

export const stateSchema = z.object({ state: stateFlag });
export type StateOptions = z.output<typeof stateSchema>;

export const paySchema = z.object({
  chargeId: z.string().check(z.regex(UUID_PATTERN, 'must be a charge id (a UUID)')),
  state: stateFlag,
});
export type PayOptions = z.output<typeof paySchema>;

const isoFlag = fromDomain((text) => {
  const trimmed = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(trimmed)) {
    throw new InvalidValue(`"${text}" is not an ISO 8601 date or time, e.g. 2025-03-01T12:00:00Z`);
  }
  // A bare date or a time without an offset is Brasília time.
  const withZone = /T/.test(trimmed)
    ? /(Z|[+-]\d{2}:\d{2})$/.test(trimmed)
      ? trimmed
      : `${trimmed}-03:00`
    : `${trimmed}T00:00:00-03:00`;
  const ms = Date.parse(withZone);
  if (
    Number.isNaN(ms) ||
    new Date(Date.parse(`${trimmed.slice(0, 10)}T00:00:00Z`)).toISOString().slice(0, 10) !==
      trimmed.slice(0, 10)
  ) {
    throw new InvalidValue(`"${text}" is not a real date`);
  }
  return new Date(ms);
});

export const clockSchema = z
  .object({
    advance: z.optional(durationFlag),
    set: z.optional(isoFlag),
    reset: z.optional(z.boolean()),
    state: stateFlag,
  })
  .check(
    z.superRefine((opts, context) => {
      const given = [opts.advance && '--advance', opts.set && '--set', opts.reset && '--reset'].filter(
        Boolean,
      );
      if (given.length > 1) {
        context.addIssue({
          code: 'custom',
          path: [given[1] === '--set' ? 'set' : 'reset'],
          message: `cannot be combined with ${given[0]}`,
        });
      }
    }),
  );
export type ClockOptions = z.output<typeof clockSchema>;

export const seedSchema = z.object({
  transactions: integerFlag(0).check(z.refine((n) => n <= 1_000_000, 'at most 1000000')),
  state: stateFlag,
});
export type SeedOptions = z.output<typeof seedSchema>;

const SAMPLE_FORMATS = ['csv', 'ndjson'] as const;
const SAMPLE_ERRORS = ['invalid', 'refused', 'all'] as const;

export const batchFileSchema = z.object({
  rows: integerFlag(1).check(z.refine((n) => n <= 100_000, 'at most 100000')),
  seed: z._default(integerFlag(0).check(z.refine((n) => n <= 0xffff_ffff, 'at most 4294967295')), 1),
  format: z._default(z.enum(SAMPLE_FORMATS), 'csv'),
  // `--with-errors` alone is `true`: every kind of mistake.
  withErrors: z.optional(
    z.pipe(
      z.union([z.literal(true), z.enum(SAMPLE_ERRORS)]),
      z.transform((value) => (value === true ? ('all' as const) : value)),
    ),
  ),
});
export type BatchFileOptions = z.output<typeof batchFileSchema>;

// ---------------------------------------------------------------------------------------------
// Shared

async function openStore(deps: Deps, file: string | undefined) {
  const [{ StateStore }, { defaultStateFile }] = await Promise.all([loadStore(), loadPaths()]);
  return new StateStore(file ?? defaultStateFile(deps.env), { clock: () => deps.clock.now() });
}

/** The sandbox's own refusals and state problems, as the contract's error kinds. */
async function translate<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // Loaded only on failure: reset, clock and seed never need the account module otherwise.
    const [{ ApiFailure }, { StateError }] = await Promise.all([loadAccount(), loadStore()]);
    if (error instanceof ApiFailure) {
      const failure = error;
      const kind = failure.status === 404 ? 'not_found' : 'rejected';
      throw new PixError(kind, failure.status === 404 ? 'charge not found' : 'charge cannot be paid', {
        status: failure.status,
        serverMessage: failure.message,
        server: { message: failure.message, code: failure.code },
      });
    }
    if (error instanceof StateError) {
      throw new PixError('unavailable', error.message, {
        hint: 'run `pix sandbox reset` to start a fresh account',
      });
    }
    throw error;
  }
}

function writeJson(deps: Deps, value: unknown): void {
  deps.io.stdout.write(jsonDocument(value, deps.io.stdout.isTTY));
}

// ---------------------------------------------------------------------------------------------
// Actions

export async function runServe(opts: ServeOptions, deps: Deps): Promise<void> {
  const [{ startSandboxServer }, { defaultStateFile }, { FaultSpecError }] = await Promise.all([
    loadServer(),
    loadPaths(),
    loadFaults(),
  ]);
  const stateFile = opts.state ?? defaultStateFile(deps.env);
  let server: Awaited<ReturnType<typeof startSandboxServer>>;
  try {
    server = await startSandboxServer({
      port: opts.port ?? 0,
      stateFile,
      clock: () => deps.clock.now(),
      ...(opts.faults ? { faults: opts.faults } : {}),
      ...(opts.latencyMs ? { latencyMs: opts.latencyMs } : {}),
    });
  } catch (error) {
    // The SPEC is parsed before the server listens: a bad one is the flag's fault.
    if (error instanceof FaultSpecError) throw usageError('--faults', error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      throw usageError(
        '--port',
        `cannot listen on 127.0.0.1:${opts.port} (${code})`,
        'use --port 0 for a free port',
      );
    }
    throw error;
  }
  if (deps.globals.json) writeJson(deps, { url: server.url, port: server.port, stateFile });
  else deps.io.stdout.write(`${server.url}\n`);
  deps.io.stderr.write(
    `sandbox: simulated account on ${server.url} (state ${stateFile}${opts.faults ? `, faults ${opts.faults}` : ''}); Ctrl-C stops it\n`,
  );
  await deps.waitForShutdown();
  await server.close();
}

export async function runReset(opts: StateOptions, deps: Deps): Promise<void> {
  const store = await openStore(deps, opts.state);
  await translate(() => store.reset());
  if (deps.globals.json) writeJson(deps, { stateFile: store.file, reset: true });
  deps.io.stderr.write(`sandbox: fresh account in ${store.file}\n`);
}

export async function runPay(opts: PayOptions, deps: Deps): Promise<void> {
  const store = await openStore(deps, opts.state);
  const [{ payByThirdParty }, { loadBusinessDayTest }] = await Promise.all([
    loadAccount(),
    import('../domain/duedate.js'),
  ]);
  const isBusinessDay = await loadBusinessDayTest();
  const paid = await translate(() =>
    store.update((state, now) => {
      const result = payByThirdParty(state, now, opts.chargeId, isBusinessDay);
      return {
        id: result.charge.id,
        status: result.charge.status,
        amount: result.amount,
        payer: result.payer.name,
      };
    }),
  );
  if (deps.globals.json) {
    writeJson(deps, {
      id: paid.id,
      status: paid.status,
      amount: centavosToApi(paid.amount),
      payer: paid.payer,
    });
  } else if (deps.io.stdout.isTTY) {
    deps.io.stdout.write(
      `Charge ${paid.id} paid by ${paid.payer}: ${formatBRL(paid.amount)} (${paid.status})\n`,
    );
  } else {
    deps.io.stdout.write(`${paid.id}\t${paid.status}\t${formatDecimal(paid.amount)}\t${paid.payer}\n`);
  }
}

export async function runClock(opts: ClockOptions, deps: Deps): Promise<void> {
  const store = await openStore(deps, opts.state);
  const result = await translate(async () => {
    if (!opts.advance && !opts.set && !opts.reset) {
      const state = await store.read();
      return { now: store.now(state), offsetMs: state.clockOffsetMs };
    }
    return store.update((state) => {
      const real = store.realNow().getTime();
      if (opts.reset) state.clockOffsetMs = 0;
      else if (opts.set) state.clockOffsetMs = opts.set.getTime() - real;
      else if (opts.advance) state.clockOffsetMs += opts.advance.milliseconds;
      return { now: new Date(real + state.clockOffsetMs), offsetMs: state.clockOffsetMs };
    });
  });
  if (deps.globals.json) writeJson(deps, { now: result.now.toISOString(), offsetMs: result.offsetMs });
  else deps.io.stdout.write(`${result.now.toISOString()}\n`);
}

export async function runSeed(opts: SeedOptions, deps: Deps): Promise<void> {
  const store = await openStore(deps, opts.state);
  const generated = await translate(() =>
    store.update((state, now) => {
      state.generated = { ...state.generated, count: opts.transactions, anchor: now.toISOString() };
      return state.generated;
    }),
  );
  if (deps.globals.json) writeJson(deps, { transactions: generated.count, stateFile: store.file });
  deps.io.stderr.write(
    `sandbox: ${counted(generated.count, 'generated transaction')} over the 60 days up to ${generated.anchor} (plus your own activity)\n`,
  );
}

export async function runBatchFile(opts: BatchFileOptions, deps: Deps): Promise<void> {
  const { sampleRows, sampleLines } = await loadBatchFile();
  const rows = sampleRows({
    rows: opts.rows,
    seed: opts.seed,
    ...(opts.withErrors === undefined ? {} : { withErrors: opts.withErrors }),
  });
  const lines = sampleLines(rows, opts.format);
  const out = deps.io.stdout;
  for (let from = 0; from < lines.length; from += 1000) {
    if (!out.write(lines.slice(from, from + 1000).join(''))) await out.drained();
  }
  let keys = 0;
  let sum = 0;
  const expected = { payable: 0, invalid: 0, not_payable: 0, rejected: 0 };
  for (const row of rows) {
    if (row.key !== undefined) keys++;
    expected[row.expect]++;
    if (row.expect === 'payable') sum += row.pays ?? 0;
  }
  const mistakes = [
    expected.invalid && `${expected.invalid} invalid (pix refuses the file)`,
    expected.not_payable && `${expected.not_payable} with a key the sandbox does not know`,
    expected.rejected && `${expected.rejected} with an amount the sandbox refuses`,
  ].filter(Boolean);
  deps.io.stderr.write(
    `sandbox: ${rows.length} row${rows.length === 1 ? '' : 's'} (${keys} by key, ${rows.length - keys} by code), ` +
      `${expected.payable} payable for ${formatBRL(sum)}` +
      (mistakes.length > 0 ? `; on purpose: ${mistakes.join(', ')} (ids ending in -err-<kind>)` : '') +
      '\n',
  );
}

// ---------------------------------------------------------------------------------------------
// Wiring

const stateOption = ['--state <file>', 'state file (default: <config dir>/sandbox-state.json)'] as const;

export function register(command: Command, deps: Deps): void {
  addExamples(
    command,
    [
      'pix sandbox serve --port 8080',
      'pix sandbox pay "$(pix charge immediate --amount 10 --json --no-qr | jq -r .id)"',
      'pix sandbox clock --advance 2d',
    ],
    ['usage', 'not_found', 'rejected', 'unavailable'],
  );
  const serve = command
    .command('serve')
    .description('Run the sandbox API on 127.0.0.1 and print its URL (for other tools and CI)')
    .option('--port <n>', 'port to listen on (0: a free port)', '0')
    .option(...stateOption)
    .option('--faults <spec>', 'misbehave on purpose, e.g. transfer:timeout,statement:503x2')
    .option('--latency-ms <n>', 'delay every answer by N ms, as a real API over a network would')
    .action(async (raw) => runServe(parseOptions(serveSchema, raw), deps));
  addExamples(
    serve,
    ['pix sandbox serve --port 8080', 'pix sandbox serve --faults statement:503x2,transfer:timeout'],
    ['usage'],
  );

  const reset = command
    .command('reset')
    .description('Start the sandbox account afresh (keys, statement, no charges, real time)')
    .option(...stateOption)
    .action(async (raw) => runReset(parseOptions(stateSchema, raw), deps));
  addExamples(
    reset,
    ['pix sandbox reset', 'pix sandbox reset --state ./ci-sandbox.json'],
    ['usage', 'unavailable'],
  );

  const pay = command
    .command('pay')
    .description('Have a third party pay one of your sandbox charges')
    .argument('<charge-id>', 'the id of a charge created on the sandbox')
    .option(...stateOption)
    .action(async (chargeId, raw) =>
      runPay(parseOptions(paySchema, { ...raw, chargeId }, { chargeId: '<charge-id>' }), deps),
    );
  addExamples(
    pay,
    [
      'pix sandbox pay "$CHARGE_ID"',
      'pix sandbox pay "$(pix charge immediate --amount 10 --json --no-qr | jq -r .id)"',
    ],
    ['usage', 'not_found', 'rejected', 'unavailable'],
  );

  const clock = command
    .command('clock')
    .description('Show or move sandbox time (shared by every process using the state file)')
    .addOption(
      completionValues(new Option('--advance <duration>', 'move time forward, e.g. 2d'), {
        units: ['s', 'm', 'h', 'd'],
      }),
    )
    .option('--set <iso>', 'set time, e.g. 2025-03-01T12:00:00Z')
    .option('--reset', 'back to real time')
    .option(...stateOption)
    .action(async (raw) => runClock(parseOptions(clockSchema, raw), deps));
  addExamples(
    clock,
    [
      'pix sandbox clock',
      'pix sandbox clock --advance 31d',
      'pix sandbox clock --set 2025-03-01',
      'pix sandbox clock --reset',
    ],
    ['usage', 'unavailable'],
  );

  const seed = command
    .command('seed')
    .description('Replace the generated statement with N transactions over the last 60 days')
    .requiredOption('--transactions <n>', 'how many generated transactions')
    .option(...stateOption)
    .action(async (raw) => runSeed(parseOptions(seedSchema, raw), deps));
  const batchFile = command
    .command('batch-file')
    .description('Write a sample batch payout file (for pix pay batch) the sandbox can pay')
    .requiredOption('--rows <n>', 'how many rows (at most 100000)')
    .option('--seed <n>', 'another seed gives other rows and ids (default 1)')
    .addOption(new Option('--format <format>', 'csv or ndjson (default csv)').choices(SAMPLE_FORMATS))
    .addOption(
      new Option(
        '--with-errors [which]',
        'one row in five a mistake: invalid, refused or all (default)',
      ).choices(SAMPLE_ERRORS),
    )
    .action(async (raw) => runBatchFile(parseOptions(batchFileSchema, raw), deps));
  addExamples(
    batchFile,
    [
      'pix sandbox batch-file --rows 50 > payouts.csv',
      'pix sandbox batch-file --rows 1000 --format ndjson --seed 7 > payouts.ndjson',
      'pix sandbox batch-file --rows 20 --with-errors invalid > broken.csv',
    ],
    ['usage'],
  );

  addExamples(
    seed,
    [
      'pix sandbox seed --transactions 100000',
      'pix sandbox seed --transactions 500 && pix statement --all -o csv > statement.csv',
    ],
    ['usage', 'unavailable'],
  );
}
