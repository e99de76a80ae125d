import type { Command } from 'commander';
import { verifyCredentials } from '../../api/resources/keys.js';
import { describeLedgerText } from '../../config/ledger.js';
import { maskSecret, noCredentialsError, tokenCacheKey } from '../../config/tokens.js';
import type { Settings, Source } from '../../config/types.js';
import type { Deps } from '../../context.js';
import { formatDecimal } from '../../domain/money.js';
import { PixError } from '../../errors.js';
import { jsonDocument } from '../../output/format.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const statusOptionsSchema = z.object({
  offline: z._default(z.boolean(), false),
});

export type StatusOptions = z.output<typeof statusOptionsSchema>;

/** What the server said of the credentials. */
export type ServerCheck = 'accepted' | 'rejected' | 'unreachable' | 'not checked' | 'sandbox';

interface Row {
  label: string;
  value: string;
  source?: Source;
}

function credentialsJson(settings: Settings, cachedExpiry: string | undefined): Record<string, unknown> {
  const { credentials } = settings;
  switch (credentials.kind) {
    case 'token':
      return { kind: 'token', source: credentials.token.source, token: maskSecret(credentials.token.value) };
    case 'client':
      return {
        kind: 'client',
        clientKey: credentials.clientKey,
        clientSecret: {
          masked: maskSecret(credentials.clientSecret.value),
          source: credentials.clientSecret.source,
        },
        ...(cachedExpiry === undefined ? {} : { cachedTokenExpiresAt: cachedExpiry }),
      };
    default:
      return { kind: credentials.kind };
  }
}

function rows(settings: Settings, server: ServerCheck, cachedExpiry: string | undefined): Row[] {
  const { credentials } = settings;
  const list: Row[] = [
    { label: 'profile', ...settings.profile },
    settings.sandbox
      ? { label: 'base URL', value: '(embedded sandbox: simulated account, no real money moves)' }
      : { label: 'base URL', ...settings.baseUrl },
  ];
  switch (credentials.kind) {
    case 'token':
      list.push({ label: 'credentials', value: 'bearer token', source: credentials.token.source });
      list.push({
        label: 'token',
        value: maskSecret(credentials.token.value),
        source: credentials.token.source,
      });
      break;
    case 'client':
      list.push({ label: 'credentials', value: 'client credentials', source: credentials.clientKey.source });
      list.push({ label: 'client key', ...credentials.clientKey });
      list.push({
        label: 'client secret',
        value: maskSecret(credentials.clientSecret.value),
        source: credentials.clientSecret.source,
      });
      if (cachedExpiry !== undefined) list.push({ label: 'cached token', value: `expires ${cachedExpiry}` });
      break;
    case 'sandbox':
      list.push({ label: 'credentials', value: 'none needed (sandbox)' });
      break;
    default:
      list.push({ label: 'credentials', value: 'none' });
  }
  list.push({ label: 'time zone', ...settings.timeZone });
  if (settings.maxAmount !== undefined)
    list.push({ label: 'max amount', value: formatDecimal(settings.maxAmount) });
  if (settings.defaultKey !== undefined) list.push({ label: 'default key', value: settings.defaultKey });
  if (settings.tls) list.push({ label: 'client cert', value: settings.tls.cert });
  list.push(ledgerRow(settings));
  list.push({ label: 'server', value: server });
  return list;
}

/** The ledger: `file`, or the database's host and name only (the URL is a secret: docs/team.md). */
function ledgerRow(settings: Settings): Row {
  const { ledger } = settings;
  return ledger.kind === 'file'
    ? { label: 'ledger', value: 'file (this config directory)', source: ledger.source }
    : { label: 'ledger', value: describeLedgerText(ledger.url.value), source: ledger.url.source };
}

export async function runStatus(options: StatusOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const { credentials } = settings;
  const { stdout, stderr } = deps.io;

  let cachedExpiry: string | undefined;
  if (credentials.kind === 'client') {
    const store = await deps.config();
    const own = credentials.clientKey.source === 'profile' && credentials.clientSecret.source === 'profile';
    const cached = own
      ? store.getProfile(settings.profile.value)?.cachedToken
      : store.cachedToken(
          tokenCacheKey(settings.baseUrl.value, credentials.clientKey.value, credentials.clientSecret.value),
        );
    if (cached && cached.baseUrl === settings.baseUrl.value) cachedExpiry = cached.expiresAt;
  }

  let server: ServerCheck = settings.sandbox ? 'sandbox' : 'not checked';
  let failure: PixError | undefined;
  if (!options.offline && (credentials.kind === 'token' || credentials.kind === 'client')) {
    try {
      await verifyCredentials(await deps.api());
      server = 'accepted';
    } catch (error) {
      if (!(error instanceof PixError)) throw error;
      if (error.kind === 'auth') {
        server = 'rejected';
        failure = error;
      } else {
        server = 'unreachable';
        stderr.write(`warning: could not check the credentials with the server: ${error.message}\n`);
      }
    }
  }

  if (deps.globals.json) {
    const document = {
      profile: settings.profile,
      baseUrl: settings.baseUrl,
      sandbox: settings.sandbox,
      credentials: credentialsJson(settings, cachedExpiry),
      timeZone: settings.timeZone,
      maxAmount: settings.maxAmount === undefined ? null : formatDecimal(settings.maxAmount),
      defaultKey: settings.defaultKey ?? null,
      tls: settings.tls ?? null,
      ledger: { value: ledgerRow(settings).value, source: ledgerRow(settings).source },
      server,
    };
    stdout.write(jsonDocument(document, stdout.isTTY));
  } else {
    const list = rows(settings, server, cachedExpiry);
    if (stdout.isTTY) {
      const width = Math.max(...list.map((row) => row.label.length)) + 2;
      for (const row of list) {
        stdout.write(`${row.label.padEnd(width)}${row.value}${row.source ? ` (${row.source})` : ''}\n`);
      }
    } else {
      for (const row of list) stdout.write(`${row.label}\t${row.value}\t${row.source ?? ''}\n`);
    }
  }

  if (credentials.kind === 'none') throw noCredentialsError(settings.profile);
  if (failure) throw failure;
}

export const verb = describeVerb({
  summary: 'Profile, base URL and credentials, with where each comes from',
  examples: ['pix auth status', 'pix auth status --json | jq .credentials.kind', 'pix auth status --offline'],
  exits: ['usage', 'auth'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--offline', 'do not ask the server whether the credentials are accepted')
    .action(async (_options, self: Command) => {
      await runStatus(parseOptions(statusOptionsSchema, self.opts()), deps);
    });
  command.addHelpText(
    'after',
    '\nShows where each value comes from (flag, env, profile, default); secrets are masked.\n' +
      'Exits 3 when there are no credentials or the server rejects them; an unreachable server is only a warning.',
  );
}
