import { type Command, Option } from 'commander';
import { consultKey, type DictConsultation, dictEndToEndId } from '../../api/resources/payments.js';
import type { Deps } from '../../context.js';
import type { Centavos } from '../../domain/money.js';
import { KEY_TYPE_NAMES, type PixKey, parseKeyType, parsePixKey } from '../../domain/pixkey.js';
import { PixError } from '../../errors.js';
import * as z from '../../zod.js';
import {
  amountFlag,
  duplicateWindowFlag,
  fromDomain,
  fromDomainOptions,
  parseOptions,
} from '../shared/flags.js';
import { completionValues, describeVerb } from '../shared/help.js';
import { institution, maskedDocument, moneyRow, textRow } from '../shared/pay/details.js';
import { checkDuplicate, checkMaxAmount, keyAnswerProblem } from '../shared/pay/guards.js';
import { checkPayee, expectationOf, payeeFlags, payeeOptions } from '../shared/pay/payeeflags.js';
import { planFlags, planOptions, planRequestOf } from '../shared/pay/planflags.js';
import {
  confirmAndPay,
  type DetailRow,
  DUPLICATE_WINDOW_OPTION,
  startPayment,
} from '../shared/pay/shared.js';

const payKeyOptionsSchema = z.object({
  key: z.string(),
  keyType: z.optional(fromDomain(parseKeyType)),
  amount: amountFlag,
  dryRun: z._default(z.boolean(), false),
  allowDuplicate: z._default(z.boolean(), false),
  duplicateWindow: z.optional(duplicateWindowFlag),
  ...planFlags,
  ...payeeFlags,
});

/** The key is read with its named type, if any (`--key-type`): one parse, so one rule (domain/pixkey.ts). */
const payKeySchema = z.pipe(
  payKeyOptionsSchema,
  fromDomainOptions('key', ({ key, keyType, ...rest }: z.output<typeof payKeyOptionsSchema>) => ({
    ...rest,
    key: parsePixKey(key, keyType),
  })),
);

export type PayKeyOptions = z.output<typeof payKeySchema>;

const OWNER_TYPES: Record<string, string> = { NATURAL_PERSON: 'person', LEGAL_PERSON: 'company' };

function details(key: PixKey, consult: DictConsultation, amount: Centavos): DetailRow[] {
  const rows: DetailRow[] = [];
  const owner = consult.owner;
  textRow(rows, 'Owner', 'owner', owner.name);
  if (owner.type) {
    rows.push({
      label: 'Owner type',
      key: 'ownerType',
      human: OWNER_TYPES[owner.type] ?? owner.type,
      machine: owner.type,
    });
  }
  textRow(rows, 'Trade name', 'tradeName', owner.tradeName);
  textRow(rows, 'Document', 'document', maskedDocument(owner.documentNumber));
  textRow(rows, 'Institution', 'institution', institution(consult.account?.participant));
  textRow(rows, 'Branch', 'branch', consult.account?.branch);
  textRow(rows, 'Account type', 'accountType', consult.account?.accountType);
  textRow(rows, 'Key', 'key', `${consult.key ?? key.key} (${consult.keyType ?? key.type})`);
  moneyRow(rows, 'To pay', 'pay', amount);
  textRow(rows, 'endToEndId', 'endToEndId', dictEndToEndId(consult));
  return rows;
}

export async function runPayKey(options: PayKeyOptions, deps: Deps): Promise<void> {
  // 1. Offline: the key and the amount were checked by the schema; the guards need no server.
  const plan = planRequestOf(options, { key: options.key.key });
  const ctx = await startPayment(deps, {
    dryRun: options.dryRun,
    allowDuplicate: options.allowDuplicate,
    duplicateWindowMs: options.duplicateWindow,
    ...(plan === undefined ? {} : { plan }),
  });
  const identity = { method: 'key' as const, key: options.key.key };
  checkMaxAmount(ctx, options.amount);
  await checkDuplicate(ctx, { ...identity, amountCentavos: options.amount });

  // 2. Consult the key (DICT).
  const consult = await consultKey(await deps.api(), options.key.key);
  const other = keyAnswerProblem(options.key, consult);
  if (other) throw new PixError('declined', `${other}; nothing was sent`);
  const expect = expectationOf(options);
  checkPayee(expect, { ...consult.owner, document: consult.owner.documentNumber });

  // 3. Show, confirm, journal, transfer {endToEndId, amount}.
  await confirmAndPay(ctx, {
    consult,
    endToEndId: dictEndToEndId(consult),
    amount: options.amount,
    sendAmount: true,
    receiver: {
      name: consult.owner.name,
      document: maskedDocument(consult.owner.documentNumber),
      institution: institution(consult.account?.participant),
    },
    details: details(options.key, consult, options.amount),
    // Known by its receiver too, as the consultation answered: the same person by another key is the
    // same payment.
    identity: {
      ...identity,
      ...(consult.owner.documentNumber ? { document: consult.owner.documentNumber } : {}),
      ...(consult.account?.participant ? { participant: consult.account.participant } : {}),
    },
    expect,
  });
}

export const verb = describeVerb({
  summary: 'Pay a PIX key',
  examples: [
    'pix pay key ana@example.com --amount 10,50 --yes           # -y: no y/N question',
    "pix pay key '+55 11 91234-5678' --amount 25 --dry-run",
    "pix pay key ana@example.com --amount 10 --expect-name 'Distribuidora Sol' --dry-run   # exit 8 if the owner is someone else",
    'pix pay key 123e4567-e89b-12d3-a456-426614174000 --amount 99.90 --yes --json',
    'pix pay key 11912345678 --key-type phone --amount 5 --dry-run   # 11 digits are a CPF unless typed',
  ],
  exits: ['usage', 'auth', 'not_found', 'rejected', 'unavailable', 'unknown_outcome', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('<KEY>', 'CPF, CNPJ, +55 phone, e-mail or random key (EVP)')
    .requiredOption('--amount <A>', 'amount in reais, e.g. 10.50')
    .addOption(
      completionValues(
        new Option('--key-type <type>', `the key's type, not detected: ${KEY_TYPE_NAMES.join('|')}`),
        KEY_TYPE_NAMES,
      ),
    )
    .option('--dry-run', 'consult and show, send nothing')
    .option(
      '--allow-duplicate',
      'pay even if the journal or the statement shows the same payment made already (not while one is unresolved)',
    )
    .option(...DUPLICATE_WINDOW_OPTION);
  payeeOptions(command);
  planOptions(command).action(async (key: string, _options, self: Command) => {
    await runPayKey(parseOptions(payKeySchema, { ...self.opts(), key }, { key: 'KEY' }), deps);
  });
}
