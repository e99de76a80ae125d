/**
 * What `pix account`'s verbs share beyond the account itself (commands/shared/account.ts): naming an account
 * that lists no key (bind), and the account as kept, for people (show, confirm).
 */

import { everyKey } from '../../api/resources/keys.js';
import type { Deps } from '../../context.js';
import { counted } from '../../domain/words.js';
import { PixError } from '../../errors.js';
import {
  type AccountOwner,
  type AccountRecord,
  type BankAccount,
  bankAccountId,
  formerNames,
  openAccounts,
} from '../../journal/accounts.js';
import { accountOf, bankWords, context, knownOf, reportAttached } from '../shared/account.js';

/**
 * `pix account bind`: names the account these credentials reach by its bank details, for an account that
 * lists no key (one that does is learned from the DICT: exit 2). Returns the account and whether it was
 * named so before.
 */
export async function bindAccount(
  deps: Deps,
  bank: BankAccount,
  owner: AccountOwner | undefined,
): Promise<{ account: AccountRecord; before?: AccountRecord }> {
  const ctx = await context(deps);
  const { identity, known, keys } = await knownOf(ctx);
  const listed = keys ?? (await everyKey(ctx.client, 'nothing was bound; run it again later'));
  if (listed.length > 0) {
    throw new PixError(
      'usage',
      `profile "${ctx.settings.profile.value}" lists ${counted(listed.length, 'PIX key')}: pix learns its bank account from the DICT, it needs no binding`,
      { hint: 'pix account shows what was learned' },
    );
  }
  const id = bankAccountId(bank);
  const before = known === undefined ? undefined : await ctx.directory.account(known.account);
  if (before !== undefined && before.id !== id && known?.pending?.id !== id) {
    throw new PixError(
      'declined',
      `the credentials of profile "${ctx.settings.profile.value}" are bound to ${bankWords(before)} already; nothing was changed`,
      {
        hint: 'a different account behind the same credentials: bind it with new credentials, or check the bank details',
      },
    );
  }
  const local = openAccounts((await deps.config()).dir, deps);
  const former = formerNames(local.former(), identity.fingerprint, []);
  const recorded = await ctx.directory.record({
    account: { id, bank, ...(owner === undefined ? {} : { owner }), basis: 'bound' },
    fingerprint: identity.fingerprint,
    credential: identity.credential,
    keyIds: [],
    formerIds: former.ids,
    legacy: former.legacy,
    baseUrl: { baseUrl: ctx.baseUrl, host: ctx.host },
    now: deps.clock.now(),
  });
  await reportAttached(deps, recorded);
  return { account: recorded.account, ...(before === undefined ? {} : { before }) };
}

/** `pix account`: the account these credentials reach, as kept (learned now if need be). */
export async function describeAccount(
  deps: Deps,
): Promise<{ account: AccountRecord; checkedAt?: string; where: string }> {
  const account = await accountOf(deps);
  const ctx = await context(deps);
  const record = await ctx.directory.account(account.id);
  const { known } = await knownOf(ctx);
  return {
    account: record!,
    ...(known?.checkedAt === undefined ? {} : { checkedAt: known.checkedAt }),
    where: ctx.directory.where,
  };
}
