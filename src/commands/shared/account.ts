/**
 * The account a command works on, as the API says it is (journal/accounts.ts): the bank account the DICT
 * answers for one of the account's own keys (API §4.6), learned once per set of credentials and kept where
 * the journal is (the shared ledger when there is one: every machine reads what one learned). Every
 * journal, charge-ledger, event and books question is asked of it, never of a profile's name, a URL's
 * spelling or a key. The ONE place an Account is made.
 *
 * - Credentials seen to reach an account less than a day ago reach it still: no request at all. Otherwise
 *   the keys are listed and the oldest one consulted: one DICT consultation per set of credentials a day
 *   (docs/performance.md).
 * - The same credentials (the same client key, or token) reaching ANOTHER bank account than before is exit
 *   8, on every machine, until an operator confirms it (`pix account confirm`).
 * - An account that lists no key cannot be learned: exit 8 until it is named once (`pix account bind`);
 *   one learned or bound before stays what it was. Two such accounts are never one by their URL.
 * - Names this machine wrote records under before accounts were known by their bank details are attached
 *   to the account the first time it is learned, counted and reported.
 */

import type { ApiClient } from '../../api/client.js';
import { everyKey, type RegisteredKey } from '../../api/resources/keys.js';
import { consultKey, type DictConsultation } from '../../api/resources/payments.js';
import { accountBaseUrl, accountHost, type Settings } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { answersForKey, type PixKey, parseKeyType, parsePixKey } from '../../domain/pixkey.js';
import { counted } from '../../domain/words.js';
import { PixError } from '../../errors.js';
import {
  type AccountDirectory,
  type AccountOwner,
  type AccountRecord,
  type BankAccount,
  bankAccountId,
  type CredentialRecord,
  credentialFingerprint,
  credentialId,
  describeBank,
  formerNames,
  openAccounts,
  RECHECK_AFTER_MS,
  type Recorded,
} from '../../journal/accounts.js';
import type { Account } from '../../journal/rules.js';
import { safeText } from '../../output/sanitize.js';

/** What a set of credentials is known by: its fingerprint (secrets included) and its id (not). */
export interface Identity {
  fingerprint: string;
  credential: string;
}

/**
 * What the credentials are known by (digests: never a secret). The embedded sandbox has none: its state's
 * keys stand for them (their ids are made with the state, and `pix sandbox reset` makes new ones).
 */
export function identityOf(
  settings: Settings,
  baseUrl: string,
  keys?: readonly RegisteredKey[],
): Identity | undefined {
  const { credentials } = settings;
  if (credentials.kind === 'token') {
    const token = credentials.token.value;
    return {
      fingerprint: credentialFingerprint(baseUrl, 'token', token),
      credential: credentialId(baseUrl, 'token', token),
    };
  }
  if (credentials.kind === 'client') {
    const key = credentials.clientKey.value;
    return {
      fingerprint: credentialFingerprint(baseUrl, 'client', key, credentials.clientSecret.value),
      credential: credentialId(baseUrl, 'client', key),
    };
  }
  if (keys === undefined) return undefined;
  const byKeys = credentialFingerprint(baseUrl, 'keys', ...keys.map((key) => key.id).sort());
  return { fingerprint: byKeys, credential: byKeys };
}

/** What one of the account's own keys is, as a consultation asks it; undefined when it is not one. */
function ownKey(key: RegisteredKey): PixKey | undefined {
  try {
    let type: PixKey['type'] | undefined;
    try {
      type = parseKeyType(key.keyType);
    } catch {
      type = undefined;
    }
    return parsePixKey(key.key, type);
  } catch {
    return undefined;
  }
}

/** The DICT's answer for one of the account's keys: its bank details and owner, if it names them. */
export interface Consulted {
  key: string;
  bank?: BankAccount;
  owner?: AccountOwner;
}

const nonEmpty = (text: unknown): text is string => typeof text === 'string' && text.trim() !== '';

/** What a consultation of `asked` says of the account, when it answers for that key. */
export function consultedAccount(asked: PixKey, answer: DictConsultation): Consulted {
  const consulted: Consulted = { key: asked.key };
  if (!answersForKey(asked, answer.key)) return consulted;
  const { account, owner } = answer;
  if (account && nonEmpty(account.participant) && nonEmpty(account.branch) && nonEmpty(account.account)) {
    consulted.bank = {
      participant: account.participant.trim(),
      branch: account.branch.trim(),
      number: account.account.trim(),
    };
  }
  if (nonEmpty(owner.name)) {
    consulted.owner = {
      name: owner.name,
      ...(nonEmpty(owner.documentNumber) ? { document: owner.documentNumber } : {}),
    };
  }
  return consulted;
}

/**
 * One consultation of the account's oldest key (the one least likely to have changed hands since it was
 * listed): what the DICT answers for it. Undefined when no key listed can be asked.
 */
async function consultOwnKey(
  client: ApiClient,
  keys: readonly RegisteredKey[],
): Promise<Consulted | undefined> {
  const ordered = [...keys].sort((a, b) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
  );
  for (const key of ordered) {
    const asked = ownKey(key);
    if (asked === undefined) continue;
    return consultedAccount(asked, await consultKey(client, asked.key));
  }
  return undefined;
}

const BIND_HINT =
  'name it once with its bank details, as the bank shows them: pix account bind --participant ISPB --branch BRANCH --number ACCOUNT';

function unlearnable(settings: Settings, why: string): PixError {
  return new PixError(
    'declined',
    `profile "${settings.profile.value}": ${why}, so pix cannot tell which bank account it is; nothing was sent`,
    { hint: BIND_HINT },
  );
}

/** `bank account acct_… (participant …, branch …, account …)`, safe to show. */
export function bankWords(account: Pick<AccountRecord, 'id' | 'bank'>): string {
  return `bank account ${account.id} (${safeText(describeBank(account.bank), 160)})`;
}

/** Exit 8: the same credentials reach another bank account than they did; held until confirmed. */
function changedAccount(
  settings: Settings,
  was: AccountRecord | undefined,
  now: Pick<AccountRecord, 'id' | 'bank'>,
  wasId: string,
): PixError {
  return new PixError(
    'declined',
    `the credentials of profile "${settings.profile.value}" reached ${was ? bankWords(was) : wasId} and now reach ${bankWords(now)}; nothing was sent`,
    {
      hint: 'if the account behind these credentials did change, record it with `pix account confirm` (what was paid from the first stays its own); otherwise check the credentials',
    },
  );
}

/** What learning needs, gathered once. */
export interface Context {
  deps: Deps;
  settings: Settings;
  client: ApiClient;
  directory: AccountDirectory;
  baseUrl: string;
  host: string;
}

/**
 * Learns the account these credentials reach now: keys listed, the oldest consulted, and what was found
 * kept. `confirm`: a bank account other than the one these credentials reached before is recorded (`pix
 * account confirm`) instead of refused.
 */
async function learnAccount(
  ctx: Context,
  identity: Identity,
  known: CredentialRecord | undefined,
  keys: readonly RegisteredKey[],
  confirm: boolean,
): Promise<{ account: AccountRecord; recorded?: Recorded }> {
  const { deps, settings, client, directory } = ctx;
  const now = deps.clock.now();
  const local = openAccounts((await deps.config()).dir, deps);
  const keyIds = keys.map((key) => key.id);
  const former = formerNames(local.former(), identity.fingerprint, keyIds);
  const claim = { baseUrl: ctx.baseUrl, host: ctx.host };
  const keep = (account: Pick<AccountRecord, 'id' | 'bank' | 'owner' | 'basis'>) =>
    directory.record({
      account,
      fingerprint: identity.fingerprint,
      credential: identity.credential,
      keyIds,
      formerIds: former.ids,
      legacy: former.legacy,
      baseUrl: claim,
      now,
    });
  const consulted = keys.length === 0 ? undefined : await consultOwnKey(client, keys);
  if (consulted?.bank === undefined) {
    // Nothing to learn from: what these credentials reached before (learned, or bound) stands.
    const before = known === undefined ? undefined : await directory.account(known.account);
    if (before === undefined) {
      throw unlearnable(
        settings,
        keys.length === 0
          ? 'its account lists no PIX key (the DICT answers a bank account only for a key)'
          : `the DICT's answer for the account's own key ${safeText(consulted?.key ?? keys[0]!.key, 80)} names no bank account`,
      );
    }
    if (known?.pending !== undefined && !confirm)
      throw changedAccount(settings, before, known.pending, before.id);
    deps.io.stderr.write(
      `note: profile "${settings.profile.value}" lists no PIX key to check its account by: it is still ${bankWords(before)}, as ${before.basis === 'bound' ? 'bound' : 'learned'} on ${before.learnedAt.slice(0, 10)}\n`,
    );
    return { account: before, recorded: await keep(before) };
  }
  const bank = consulted.bank;
  const found = { id: bankAccountId(bank), bank, ...(consulted.owner ? { owner: consulted.owner } : {}) };
  if (known !== undefined && known.account !== found.id && !confirm) {
    const was = await directory.account(known.account);
    await directory.hold(known, identity.fingerprint, { ...found, at: now.toISOString() });
    throw changedAccount(settings, was, found, known.account);
  }
  const recorded = await keep({ ...found, basis: 'dict' });
  return { account: recorded.account, recorded };
}

/** Records under names just attached: counted in the journal, and said once. */
export async function reportAttached(deps: Deps, recorded: Recorded): Promise<void> {
  const { attached, shared } = recorded;
  if (attached.length > 0) {
    const names = new Set(attached);
    const held =
      recorded.counted ??
      (await (async () => {
        const entries = (await (await deps.stores.journal()).read()).filter(
          (entry) => entry.account !== undefined && names.has(entry.account),
        );
        return {
          payments: entries.filter((entry) => entry.kind === 'payment').length,
          entries: entries.length,
        };
      })());
    deps.io.stderr.write(
      `note: records written under ${attached.length === 1 ? 'the former name' : 'the former names'} ${attached.join(', ')} (before pix knew accounts by their bank details) are now ${bankWords(recorded.account)}'s: ${counted(held.payments, 'payment')}, ${counted(held.entries - held.payments, 'other journal entry', 'other journal entries')}; its events and books follow when next used\n`,
    );
  }
  for (const { name, accounts } of shared) {
    deps.io.stderr.write(
      `warning: the former name ${name} is claimed by ${accounts.length} bank accounts (${accounts.join(', ')}): what was recorded under it counts for each, so pix refuses rather than pays what it may have paid; a row it holds needs a new id\n`,
    );
  }
}

const made = new WeakMap<Deps, Promise<Account>>();

/**
 * The account of the resolved profile, made once per command. Asks the API only when these credentials
 * were not seen to reach an account in the last day (or another bank account waits to be confirmed).
 */
export function accountOf(deps: Deps): Promise<Account> {
  let account = made.get(deps);
  if (account === undefined) {
    account = findAccount(deps, false);
    made.set(deps, account);
    // A failure is not kept: a later call of the same command asks again.
    account.catch(() => made.delete(deps));
  }
  return account;
}

/** `pix account confirm`: the account these credentials reach now, recorded whichever it is. */
export function confirmAccount(deps: Deps): Promise<Account> {
  const account = findAccount(deps, true);
  made.set(deps, account);
  return account;
}

export async function context(deps: Deps): Promise<Context> {
  const [settings, client] = await Promise.all([deps.settings(), deps.api()]);
  return {
    deps,
    settings,
    client,
    directory: await deps.stores.accounts(),
    // The embedded sandbox by its own name, whichever way it runs (config/types.ts accountBaseUrl).
    baseUrl: accountBaseUrl(settings.baseUrl.value),
    host: accountHost(settings.baseUrl.value, client.baseUrl),
  };
}

/** The credentials' identity and record, listing the keys first when only they can say (the sandbox). */
export async function knownOf(
  ctx: Context,
): Promise<{ identity: Identity; known: CredentialRecord | undefined; keys?: RegisteredKey[] }> {
  let keys: RegisteredKey[] | undefined;
  let identity = identityOf(ctx.settings, ctx.baseUrl);
  if (identity === undefined) {
    keys = await everyKey(ctx.client, 'nothing was sent; run it again later');
    identity = identityOf(ctx.settings, ctx.baseUrl, keys)!;
  }
  const known = await ctx.directory.credential(identity.fingerprint, identity.credential);
  return { identity, known, ...(keys === undefined ? {} : { keys }) };
}

async function findAccount(deps: Deps, confirm: boolean): Promise<Account> {
  const ctx = await context(deps);
  const { identity, known, keys } = await knownOf(ctx);
  const now = deps.clock.now();
  let record: AccountRecord | undefined;
  const fresh =
    known !== undefined &&
    known.fingerprint === identity.fingerprint &&
    known.pending === undefined &&
    now.getTime() - Date.parse(known.checkedAt) <= RECHECK_AFTER_MS;
  if (fresh && !confirm) record = await ctx.directory.account(known.account);
  if (record === undefined) {
    const listed = keys ?? (await everyKey(ctx.client, 'nothing was sent; run it again later'));
    const learned = await learnAccount(ctx, identity, known, listed, confirm);
    record = learned.account;
    if (learned.recorded) await reportAttached(deps, learned.recorded);
  }
  const profile = ctx.settings.profile.value;
  const before = await openAccounts((await deps.config()).dir, deps).reached(profile, record.id);
  if (before !== undefined) {
    deps.io.stderr.write(
      `note: profile "${profile}" now reaches ${bankWords(record)}; it reached ${before} before\n`,
    );
  }
  return {
    id: record.id,
    profile,
    baseUrl: ctx.baseUrl,
    host: ctx.host,
    legacy: record.legacy,
    formerIds: record.formerIds,
  };
}
