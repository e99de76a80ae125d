import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { checkProfileName } from '../../config/resolve.js';
import { cachedToken } from '../../config/tokens.js';
import {
  type CachedToken,
  DEFAULT_TIME_ZONE,
  type ProfileData,
  SANDBOX_PROFILE,
  type Settings,
  type Sourced,
} from '../../config/types.js';
import type { Deps } from '../../context.js';
import { normalizeBaseUrl } from '../../domain/url.js';
import { PixError, usageError } from '../../errors.js';
import * as z from '../../zod.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const loginOptionsSchema = z.object({
  /** The global -p/--profile. */
  profile: z.optional(fromDomain(checkProfileName)),
  /** The global --base-url. */
  baseUrl: z.optional(fromDomain(normalizeBaseUrl)),
  withToken: z._default(z.boolean(), false),
  clientKey: z.optional(
    z.string().check(z.regex(/^[\x21-\x7e]+$/, 'must be one word of printable characters')),
  ),
  tlsCert: z.optional(z.string().check(z.minLength(1))),
  tlsKey: z.optional(z.string().check(z.minLength(1))),
});

export type LoginOptions = z.output<typeof loginOptionsSchema>;

/** What a token or secret read from stdin or a prompt must look like: one header-safe word. */
const SECRET = /^[\x21-\x7e]+$/;

function readableFile(flag: string, path: string): string {
  const absolute = resolve(path);
  try {
    accessSync(absolute, constants.R_OK);
  } catch {
    throw usageError(flag, `cannot read ${absolute}`);
  }
  return absolute;
}

async function readSecret(deps: Deps, flag: string, what: string, question: string): Promise<string> {
  const { stdin } = deps.io;
  let text: string;
  if (!stdin.isTTY) {
    text = (await stdin.readAll()).toString('utf8').trim();
    if (text === '') throw usageError(flag, `no ${what} on stdin`, `pipe it in: ... | pix login ${flag}`);
  } else if (deps.prompter.canPrompt()) {
    text = (await askHidden(deps, question)).trim();
    if (text === '') throw usageError(flag, `no ${what} given`);
  } else {
    throw usageError(flag, `no ${what}: pipe it on stdin`, 'secrets are never read from flags');
  }
  if (!SECRET.test(text)) throw usageError(flag, `the ${what} must be one line of printable characters`);
  return text;
}

/**
 * Asks with no echo. Ctrl-C there (the terminal is raw, so it arrives as a character, not as SIGINT) ends
 * the login quietly with exit 130, as at every other prompt: nothing was stored.
 */
async function askHidden(deps: Deps, question: string): Promise<string> {
  try {
    return await deps.prompter.ask(question, true);
  } catch (error) {
    if (error instanceof PixError || !(error instanceof Error) || error.message !== 'interrupted')
      throw error;
    deps.io.stderr.write('\n'); // the cursor is still after the question
    throw new PixError('interrupted', '', { signal: 'SIGINT' });
  }
}

/** The profile login writes: --profile > PIX_PROFILE > the current profile > "default". */
function targetProfile(options: LoginOptions, deps: Deps, current: string | undefined): string {
  if (options.profile !== undefined) return options.profile;
  const fromEnv = deps.env.PIX_PROFILE;
  if (fromEnv) {
    try {
      return checkProfileName(fromEnv);
    } catch (error) {
      throw usageError('PIX_PROFILE', (error as Error).message);
    }
  }
  if (current !== undefined && current !== SANDBOX_PROFILE) return current;
  return 'default';
}

export async function runLogin(options: LoginOptions, deps: Deps): Promise<void> {
  if (options.withToken && options.clientKey !== undefined) {
    throw usageError('--with-token', 'give either --with-token or --client-key, not both');
  }
  if (!options.withToken && options.clientKey === undefined) {
    throw usageError(
      undefined,
      'give --with-token (the token on stdin) or --client-key KEY (the secret from PIX_CLIENT_SECRET, stdin or a prompt)',
    );
  }
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) {
    throw usageError(
      options.tlsCert === undefined ? '--tls-key' : '--tls-cert',
      '--tls-cert and --tls-key go together',
    );
  }
  const store = await deps.config();
  const name = targetProfile(options, deps, store.currentProfile());
  if (name === SANDBOX_PROFILE) {
    throw usageError('--profile', 'sandbox is the built-in profile and needs no login');
  }
  const existing = store.getProfile(name);

  let baseUrl: Sourced<string>;
  const envBaseUrl = deps.env.PIX_BASE_URL;
  if (options.baseUrl !== undefined) {
    baseUrl = { value: options.baseUrl, source: 'flag' };
    if (envBaseUrl && envBaseUrl !== options.baseUrl) {
      deps.io.stderr.write(`warning: --base-url ${options.baseUrl} overrides PIX_BASE_URL=${envBaseUrl}\n`);
    }
  } else if (envBaseUrl) {
    try {
      baseUrl = { value: normalizeBaseUrl(envBaseUrl), source: 'env' };
    } catch (error) {
      throw usageError('PIX_BASE_URL', (error as Error).message);
    }
  } else if (existing?.['base-url'] !== undefined) {
    const stored = existing['base-url'];
    try {
      baseUrl = { value: normalizeBaseUrl(stored), source: 'profile' };
    } catch (error) {
      throw usageError(`base-url (profile "${name}")`, (error as Error).message, 'pass --base-url');
    }
  } else {
    throw usageError(
      '--base-url',
      `required for the new profile "${name}"`,
      'e.g. --base-url https://api.example.com',
    );
  }

  const tls =
    options.tlsCert !== undefined && options.tlsKey !== undefined
      ? { cert: readableFile('--tls-cert', options.tlsCert), key: readableFile('--tls-key', options.tlsKey) }
      : undefined;

  const credentials: ProfileData = { 'base-url': baseUrl.value, tokenBaseUrl: baseUrl.value };
  if (tls) {
    credentials['tls-cert'] = tls.cert;
    credentials['tls-key'] = tls.key;
  }
  let clientKey: string | undefined;
  if (options.withToken) {
    credentials.token = await readSecret(deps, '--with-token', 'token', 'Token: ');
  } else {
    clientKey = options.clientKey!;
    const fromEnv = deps.env.PIX_CLIENT_SECRET;
    const clientSecret =
      fromEnv !== undefined && fromEnv !== ''
        ? fromEnv
        : await readSecret(deps, '--client-key', 'client secret', 'Client secret: ');
    credentials['client-key'] = clientKey;
    credentials.clientSecret = clientSecret;
    credentials.cachedToken = await verifyClientCredentials(
      deps,
      name,
      baseUrl,
      tls,
      clientKey,
      clientSecret,
    );
  }

  // On the profile as it is now (not as read before the prompt): its other settings (time zone, max
  // amount, …), changed meanwhile or not, are kept; only the old credentials go.
  await store.update((document) => {
    const {
      token: _token,
      clientSecret: _secret,
      cachedToken: _cached,
      tokenBaseUrl: _bound,
      ...kept
    } = Object.hasOwn(document.profiles, name) ? (document.profiles[name] ?? {}) : {};
    const profile: ProfileData = { ...kept, ...credentials };
    if (clientKey === undefined) delete profile['client-key'];
    document.profiles[name] = profile;
    document.currentProfile = name;
  });
  deps.io.stderr.write(`Logged in to ${new URL(baseUrl.value).host} as profile ${name}\n`);
}

/** Mints once with the new credentials (exit 3 when they are refused); the token is cached. */
async function verifyClientCredentials(
  deps: Deps,
  name: string,
  baseUrl: Sourced<string>,
  tls: { cert: string; key: string } | undefined,
  clientKey: string,
  clientSecret: string,
): Promise<CachedToken> {
  const settings: Settings = {
    profile: { value: name, source: 'flag' },
    formerNames: [],
    baseUrl,
    sandbox: false,
    credentials: { kind: 'none' },
    timeZone: { value: DEFAULT_TIME_ZONE, source: 'default' },
    maxAmount: undefined,
    defaultKey: undefined,
    tls,
    ledger: { kind: 'file', source: 'default' },
    warnings: [],
  };
  const client = await deps.apiFor(settings);
  try {
    return cachedToken(await client.mintToken(clientKey, clientSecret), baseUrl.value, deps.clock.now());
  } catch (error) {
    if (error instanceof PixError && (error.kind === 'auth' || error.kind === 'rejected')) {
      throw new PixError('auth', 'the client credentials were rejected; nothing was stored', {
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(error.serverMessage === undefined ? {} : { serverMessage: error.serverMessage }),
      });
    }
    throw error;
  }
}

export const verb = describeVerb({
  summary: 'Store credentials in a profile and make it current',
  examples: [
    'echo "$TOKEN" | pix login --with-token --base-url https://api.example.com',
    'PIX_CLIENT_SECRET=… pix login --profile prod --client-key my-key --base-url https://api.example.com',
    'pix login --client-key my-key          # asks for the secret',
  ],
  exits: ['usage', 'auth', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--with-token', 'read a bearer token from stdin')
    .option(
      '--client-key <key>',
      'log in with client credentials; the secret comes from PIX_CLIENT_SECRET, stdin or a prompt',
    )
    .option('--tls-cert <file>', 'client certificate for mutual TLS (PEM)')
    .option('--tls-key <file>', 'private key of the client certificate (PEM)')
    .action(async (_options, self: Command) => {
      const raw = { ...self.opts(), profile: deps.globals.profile, baseUrl: deps.globals.baseUrl };
      await runLogin(parseOptions(loginOptionsSchema, raw), deps);
    });
  command.addHelpText(
    'after',
    '\nThe profile is --profile, else PIX_PROFILE, else the current profile, else "default"; it becomes the current profile.\nSecrets are never taken from flags.',
  );
}
