/**
 * `pix schedule create --key KEY --amount A (--at DATE | --every RULE …)`: a payment scheduled ahead, once
 * or recurring. Nothing is paid and nothing is reserved now (a scheduled PIX is an ordinary transfer made
 * on its day); what is kept is what the operator confirms here: the account, the key, the amount, the rule,
 * and the receiver as the consultation answers now — each occurrence is paid only to that receiver
 * (commands/schedule/payment.ts).
 *
 * 1. Offline: the key, the amount, the rule and its dates (exit 2 naming the flag); the profile's
 *    max-amount (exit 8). Where the account (its enforced policy) or the profile pays only approved plans
 *    (require-plan), a schedule without `--plan` is exit 8.
 * 2. The key consulted (DICT): its receiver, named in the confirmation and kept.
 * 3. The next occurrences shown (in the schedule's zone), one question (or --yes); the schedule kept beside
 *    the journal (journal/schedules.ts). stdout: its id; `--json`: the schedule.
 *
 * `--plan FILE` (under a policy, docs/schedules.md "Under a policy"): instead of 3, the schedule written as
 * a standing plan its maker signs (every occurrence a row), nothing scheduled until `pix schedule activate`.
 *
 * `--code CODE` or `--file FILE` instead of `--key`: 2 and 3 by the batch's own run (make.ts createOfRows).
 */
import { randomUUID } from 'node:crypto';
import { type Command, Option } from 'commander';
import { consultKey } from '../../api/resources/payments.js';
import type { Payee } from '../../approvals/history.js';
import type { Deps } from '../../context.js';
import { type Centavos, formatBRL } from '../../domain/money.js';
import { KEY_TYPE_NAMES, type PixKey, parseKeyType, parsePixKey } from '../../domain/pixkey.js';
import {
  checkRecurrence,
  DEFAULT_TIME,
  EVERY_FORMS,
  HOLIDAY_SHIFTS,
  type HolidayShift,
  occurrences,
  parseEvery,
  parseTimeOfDay,
  type Recurrence,
  type Rule,
  WINDOW_END,
  windowOf,
} from '../../domain/schedule.js';
import { addDays, parseDay, todayIn } from '../../domain/when.js';
import { PixError, usageError } from '../../errors.js';
import { recordedAccount } from '../../journal/rules.js';
import type { Schedule } from '../../journal/schedules.js';
import { asUsage } from '../../usage.js';
import * as z from '../../zod.js';
import { accountOf } from '../shared/account.js';
import { amountFlag, fromDomain, fromDomainOptions, integerFlag, parseOptions } from '../shared/flags.js';
import { completionValues, describeVerb } from '../shared/help.js';
import { batchFileFlags, batchFileOptions } from '../shared/pay/batchread.js';
import { institution, maskedDocument } from '../shared/pay/details.js';
import { keyAnswerProblem } from '../shared/pay/guards.js';
import { checkPayee, expectationOf, payeeFlags, payeeOptions } from '../shared/pay/payeeflags.js';
import { planFlags, planRequestOf } from '../shared/pay/planflags.js';
import { refuseUnconfirmable, startPayment } from '../shared/pay/shared.js';
import { confirmAndKeep, createOfRows, type Draft, standingBounds, writeStanding } from './make.js';
import { accountNow, linesOf } from './shared.js';

const createOptionsSchema = z.object({
  key: z.optional(z.string().check(z.minLength(1))),
  code: z.optional(z.string().check(z.minLength(1))),
  file: z.optional(z.string().check(z.minLength(1))),
  ...batchFileFlags,
  keyType: z.optional(fromDomain(parseKeyType)),
  amount: z.optional(amountFlag),
  at: z.optional(z.string()),
  every: z.optional(fromDomain(parseEvery)),
  start: z.optional(z.string()),
  until: z.optional(z.string()),
  count: z.optional(integerFlag(1)),
  time: z._default(fromDomain(parseTimeOfDay), DEFAULT_TIME),
  onHoliday: z._default(z.enum(['next', 'previous', 'keep']), 'next'),
  description: z.optional(z.string().check(z.maxLength(140))),
  ...payeeFlags,
  plan: planFlags.plan,
  signingKey: planFlags.signingKey,
  by: planFlags.by,
});

const createSchema = z.pipe(
  createOptionsSchema,
  fromDomainOptions('key', ({ key, keyType, ...rest }: z.output<typeof createOptionsSchema>) => ({
    ...rest,
    keyType,
    key: key === undefined ? undefined : parsePixKey(key, keyType),
  })),
);

export type ScheduleCreateOptions = z.output<typeof createSchema>;

/** The rule and its bounds, from the flags, with days read relative to the account's today. */
function recurrenceOf(options: ScheduleCreateOptions, today: string): Recurrence {
  const day = (flag: string, text: string) => asUsage(flag, () => parseDay(text, today));
  const shift: HolidayShift = options.onHoliday;
  if (options.at !== undefined) {
    if (options.every !== undefined) throw usageError('--at', 'cannot be combined with --every');
    for (const [flag, value] of [
      ['--start', options.start],
      ['--until', options.until],
      ['--count', options.count],
    ] as const) {
      if (value !== undefined) throw usageError(flag, 'is for --every: a payment --at a date happens once');
    }
    const date = day('--at', options.at);
    if (date < today) throw usageError('--at', `${date} is in the past (today is ${today})`);
    return { rule: { kind: 'once', date }, start: date, shift };
  }
  if (options.every === undefined) {
    throw usageError(
      '--every',
      'say when: --at DATE for one payment, or --every RULE',
      `--every takes ${EVERY_FORMS}`,
    );
  }
  if (options.until !== undefined && options.count !== undefined) {
    throw usageError('--count', 'cannot be combined with --until: the schedule ends at one or the other');
  }
  const rule: Rule = options.every;
  const start = options.start === undefined ? today : day('--start', options.start);
  if (start < today) throw usageError('--start', `${start} is in the past (today is ${today})`);
  const recurrence: Recurrence = {
    rule,
    start,
    shift,
    ...(options.until === undefined ? {} : { until: day('--until', options.until) }),
    ...(options.count === undefined ? {} : { count: options.count }),
  };
  asUsage(options.until === undefined ? '--every' : '--until', () => checkRecurrence(recurrence));
  return recurrence;
}

/** Exit 8: the account (its enforced policy) or the profile pays only approved plans, and no --plan was given. */
function refuseWithoutPlan(why: string): never {
  throw new PixError('declined', `${why}: a schedule would pay without one; nothing was scheduled`, {
    hint: 'make it a standing plan with --plan FILE (and --count or --until), have it approved with `pix plan approve FILE`, then `pix schedule activate FILE`',
  });
}

export async function runScheduleCreate(options: ScheduleCreateOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const request = planRequestOf({ ...options, dryRun: false });
  if (settings.requirePlan && request === undefined) {
    refuseWithoutPlan(`profile "${settings.profile.value}" pays only approved plans (require-plan true)`);
  }
  checkOffline(options, settings.maxAmount, settings.profile.value);
  const timeZone = settings.timeZone.value;
  const now = await accountNow(deps);
  const recurrence = firstRecurrence(options, now, timeZone);
  if (request !== undefined) standingBounds(recurrence);
  else refuseUnconfirmable(deps, { dryRun: false, allowDuplicate: false });
  const [account, store] = await Promise.all([accountOf(deps), deps.stores.schedules()]);
  if (request === undefined) await refuseUnderRequirePlan(deps, account.id);
  const draft: Draft = {
    options,
    request,
    schedule: {
      id: `s-${randomUUID().replace(/-/g, '').slice(0, 12)}`,
      account: account.id,
      profile: recordedAccount(account).profile,
      createdAt: now.toISOString(),
      ...(options.description === undefined ? {} : { description: options.description }),
      recurrence,
      time: options.time,
      timeZone,
      state: 'active',
    },
  };
  if (options.key === undefined) {
    return createOfRows(deps, draft, store);
  }
  // Under --plan, the policies and the maker's key before anything is consulted (pay … --plan's start).
  const ctx =
    request === undefined
      ? undefined
      : await startPayment(deps, { dryRun: false, allowDuplicate: false, confirmLater: true, plan: request });
  const made = await keySchedule(deps, draft, options.key);
  if (ctx !== undefined) {
    await writeStanding(ctx, made.schedule, linesOf(made.schedule), [made.payee]);
    deps.io.stdout.write(`${made.schedule.id}\n`);
    return;
  }
  await confirmAndKeep(deps, made.schedule, store);
}

/** Step 1, offline: which target, the time, the amount against the profile's max-amount (exit 8). */
function checkOffline(options: ScheduleCreateOptions, max: Centavos | undefined, profile: string): void {
  const given = (['key', 'code', 'file'] as const).filter((flag) => options[flag] !== undefined);
  if (given.length !== 1) {
    throw usageError(
      given.length === 0 ? '--key' : `--${given[1]}`,
      given.length === 0
        ? 'say what to pay: --key KEY, --code CODE or --file FILE'
        : `cannot be combined with --${given[0]}: a schedule pays one of them`,
    );
  }
  if (options.key !== undefined && options.amount === undefined)
    throw usageError('--amount', 'is required with --key: how much each occurrence pays');
  if (options.key === undefined && options.keyType !== undefined)
    throw usageError('--key-type', 'is for --key');
  for (const flag of ['format', 'map'] as const) {
    if (options.file === undefined && options[flag] !== undefined)
      throw usageError(`--${flag}`, 'is for --file: how its rows are read');
  }
  if (options.file !== undefined) {
    for (const [flag, value] of [
      ['--amount', options.amount],
      ['--expect-document', options.expectDocument],
      ['--expect-name', options.expectName],
      ['--description', options.description],
    ] as const) {
      if (value !== undefined)
        throw usageError(
          flag,
          "is the file's: each row has its own (its amount, document, name, description)",
        );
    }
  }
  if (options.time >= WINDOW_END) {
    throw usageError('--time', `an occurrence is due before ${WINDOW_END}, when its window ends`);
  }
  if (max !== undefined && options.amount !== undefined && options.amount > max) {
    throw new PixError(
      'declined',
      `${formatBRL(options.amount)} is above the max-amount of profile "${profile}" (${formatBRL(max)}); nothing was scheduled`,
      { hint: 'raise it with `pix config set max-amount A` if this payment is intended' },
    );
  }
}

/**
 * The recurrence from the flags on the account's today; a rule for today made after today's window starts
 * with the next occurrence; a first occurrence whose window has passed is exit 2.
 */
function firstRecurrence(options: ScheduleCreateOptions, now: Date, timeZone: string): Recurrence {
  const today = todayIn(timeZone, now);
  let recurrence = recurrenceOf(options, today);
  const passed = (r: Recurrence) => {
    const [first] = occurrences(r, 1);
    return first !== undefined && windowOf(first.payOn, options.time, timeZone).end <= now.getTime();
  };
  if (options.at === undefined && options.start === undefined && passed(recurrence)) {
    // Made after today's window (a rule for today, in the evening): it starts with the next occurrence.
    recurrence = { ...recurrence, start: addDays(today, 1) };
    asUsage('--every', () => checkRecurrence(recurrence));
  }
  const [first] = occurrences(recurrence, 1);
  if (first !== undefined && passed(recurrence)) {
    throw usageError(
      options.at === undefined ? '--start' : '--at',
      `the first occurrence, ${first.payOn}, is due from ${options.time} to ${WINDOW_END}, which has passed`,
      'start another day (tomorrow)',
    );
  }
  return recurrence;
}

/** Exit 8 when the policy enforced on the account says require-plan and no --plan was given. */
async function refuseUnderRequirePlan(deps: Deps, account: string): Promise<void> {
  const { enforcedPolicy } = await import('../../approvals/inforce.js');
  const bound = await enforcedPolicy(deps, account);
  if (bound?.policy.requirePlan)
    refuseWithoutPlan(
      `this account pays only approved plans (the policy enforced on it, ${bound.policy.digest.slice(0, 19)}, says require-plan)`,
    );
}

/** Step 2 for a key: consulted (DICT), held to --expect-*, its receiver kept. */
async function keySchedule(
  deps: Deps,
  draft: Draft,
  key: PixKey,
): Promise<{ schedule: Schedule; payee: Payee }> {
  const { options } = draft;
  const consult = await consultKey(await deps.api(), key.key);
  const other = keyAnswerProblem(key, consult);
  if (other) throw new PixError('declined', `${other}; nothing was scheduled`);
  // Who the operator means to pay (contract §7.8): checked now, kept, and checked at every occurrence.
  const expect = expectationOf(options);
  checkPayee(expect, { ...consult.owner, document: consult.owner.documentNumber });
  const schedule: Schedule = {
    ...draft.schedule,
    target: {
      key: key.key,
      ...(options.keyType === undefined ? {} : { keyType: options.keyType.toLowerCase() }),
    },
    amountCentavos: options.amount!,
    receiver: {
      name: consult.owner.name,
      document: maskedDocument(consult.owner.documentNumber),
      institution: institution(consult.account?.participant),
    },
    ...(expect === undefined ? {} : { expect }),
  };
  const payee: Payee = {
    key: key.key,
    ...(consult.owner.documentNumber ? { document: consult.owner.documentNumber } : {}),
    ...(consult.account?.participant ? { participant: consult.account.participant } : {}),
  };
  return { schedule, payee };
}

export const verb = describeVerb({
  summary: 'schedule a payment by key, code or batch file: --at DATE, or --every RULE (a day, a weekday…)',
  examples: [
    'pix schedule create --key ana@example.com --amount 1500 --every 10 --count 12 --yes   # rent, on the 10th',
    'pix schedule create --key ana@example.com --amount 3200 --every 5bd --until 2027-12-31 --yes',
    'pix schedule create --key ana@example.com --amount 80 --every fri --time 09:30 --yes',
    'pix schedule create --key ana@example.com --amount 250 --at +7d --yes',
    'pix schedule create --code "$STATIC_CODE" --amount 25 --every 10 --count 6 --yes   # a static code, on the 10th',
    'pix schedule create --file payouts.csv --every 5 --count 12 --yes   # every row, on the 5th',
    "pix schedule create --file fornecedores.csv --map 'key=Chave PIX,amount=Valor,document=CNPJ' --every 5 --count 12 --yes",
    'pix schedule create --key ana@example.com --amount 1500 --every 10 --count 12 --plan rent.plan.json --signing-key ~/.ssh/id_ed25519',
  ],
  exits: ['usage', 'not_found', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--key <KEY>', 'the receiver: CPF, CNPJ, +55 phone, e-mail or random key')
    .option(
      '--code <CODE>',
      'a BR Code (copia e cola): a static one, or a dynamic one --at a day before it expires',
    )
    .option(
      '--file <FILE>',
      'a batch file (as `pix pay batch` reads it): its rows read, checked and consulted now and kept; each occurrence pays them',
    );
  batchFileOptions(command, 'with --file: ');
  payeeOptions(command)
    .addOption(
      completionValues(
        new Option('--key-type <type>', `the key's type, not detected: ${KEY_TYPE_NAMES.join('|')}`),
        KEY_TYPE_NAMES,
      ),
    )
    .option('--amount <A>', 'amount in reais, e.g. 10.50 (with --key; with --code, when the code has none)')
    .option('--at <DATE>', 'one payment on this day (YYYY-MM-DD, DD/MM/YYYY, tomorrow, +30d)')
    .option('--every <RULE>', `recurring: ${EVERY_FORMS}`)
    .option('--start <DATE>', 'the first day the rule may give (default today)')
    .option('--until <DATE>', 'no occurrence after this day')
    .option('--count <N>', 'this many occurrences')
    .option(
      '--time <HH:MM>',
      `when on its day an occurrence is due (default ${DEFAULT_TIME}; its window ends at ${WINDOW_END})`,
    )
    .addOption(
      completionValues(
        new Option(
          '--on-holiday <how>',
          'a date on a weekend or holiday: next business day (default), previous, keep',
        ),
        HOLIDAY_SHIFTS,
      ),
    )
    .option('--description <text>', 'your note, kept in the journal of each payment; never sent')
    .option(
      '--plan <file>',
      'under a policy: write the schedule as a standing plan to FILE for `pix plan approve`, then `pix schedule activate FILE`',
    )
    .option(
      '--signing-key <path>',
      'with --plan: the SSH key the maker signs it with, as `pix plan approve --key` (default: git user.signingkey, else ssh-agent)',
    )
    .option(
      '--by <who>',
      'with --plan: a label for the maker, "Name <e-mail>" (default: git user.name/user.email)',
    )
    .action(async (_options, self: Command) => {
      await runScheduleCreate(parseOptions(createSchema, self.opts()), deps);
    });
}
