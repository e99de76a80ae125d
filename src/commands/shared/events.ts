/**
 * Where one account's event files are (src/events/log.ts says what each holds), found from the command's
 * account (shared/account.ts accountOf), earlier versions' files adopted: the one place `pix listen` and
 * `pix events` name them. The files themselves are read and written by src/events/.
 */
import { createHash } from 'node:crypto';
import { renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from '../../config/store.js';
import type { Deps } from '../../context.js';
import type { EventFiles } from '../../events/log.js';
import { openAccounts } from '../../journal/accounts.js';
import { ensurePrivateDir } from '../../storage/dirs.js';
import { accountOf } from './account.js';

/** The account's event files (the directory made 0700), earlier versions' files adopted. */
export async function eventFiles(deps: Deps): Promise<EventFiles> {
  const [settings, account, config] = await Promise.all([deps.settings(), accountOf(deps), deps.config()]);
  const dir = join(configDir(deps.env), 'events');
  ensurePrivateDir(dir);
  const at = (suffix: string) => join(dir, `${account.id}.${suffix}`);
  const files = { log: at('jsonl'), checkpoint: at('checkpoint'), secret: at('secret'), lock: at('lock') };
  // The files of the account's former names (journal/accounts.ts) are its own: adopted under its id.
  for (const former of account.formerIds) {
    for (const suffix of ['jsonl', 'checkpoint', 'secret'] as const) {
      adoptFile(join(dir, `${former}.${suffix}`), at(suffix));
    }
  }
  const earlier = openAccounts(config.dir, deps).former()?.accounts ?? {};
  // Earlier versions named files and ids after the base URL as the settings spell it (the embedded
  // sandbox's `http://127.0.0.1:0`), not as the account is known.
  const baseUrls = [
    ...new Set([
      account.baseUrl,
      settings.baseUrl.value,
      ...account.formerIds.flatMap((id) => earlier[id]?.baseUrls ?? []),
      ...account.legacy.map((claim) => claim.baseUrl),
    ]),
  ];
  for (const name of [settings.profile.value, ...settings.formerNames]) {
    for (const baseUrl of baseUrls) {
      const legacy = createHash('sha256').update(`${name}\n${baseUrl}`).digest('hex').slice(0, 16);
      adoptFile(join(dir, `${legacy}.jsonl`), files.log);
      adoptFile(join(dir, `${legacy}.secret`), files.secret);
    }
  }
  return { ...files, profile: account.profile, account, baseUrls };
}

/** Moves an earlier version's file to its account's name, unless the account has one already. */
function adoptFile(from: string, to: string): void {
  const exists = (path: string) => statSync(path, { throwIfNoEntry: false }) !== undefined;
  if (exists(to) || !exists(from)) return;
  renameSync(from, to);
}
