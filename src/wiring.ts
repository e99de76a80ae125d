/**
 * The composition root: the one place a command's context (Deps, context.ts) is made, whole, before Commander
 * parses the command line, and never changed afterwards — as the GitHub CLI builds its factory
 * (pkg/cmd/factory/default.go) before cobra runs. It holds:
 * - the I/O: the output writer (output/writer.ts) over the process's streams or a test's, which owns stdout,
 *   the pager, `--output-file` and the `--jq`/`--fields` mode;
 * - the system: the clock, randomness, this process's id and the others', timers, the stop signal;
 * - the global flags, read from argv by cli/globals.ts;
 * - made on first use, each loaded then and only then: the config store, the settings (flag > environment
 *   > profile > default) and the API client. Here, and only here, it is decided whether a command talks to
 *   the embedded sandbox or to a real API: api/ is handed a transport and a clock and never learns which;
 * - the stores of the profile's ledger (src/wiring-stores.ts): here, and only here, it is decided whether
 *   they are the config directory's files or the shared PostgreSQL ledger.
 *
 * What it makes on first use comes in one import() of src/wiring-lazy.ts (one chunk). It imports nothing of
 * src/commands/ (test/architecture.test.ts holds it).
 */
import type { ApiClient } from './api/client.js';
import type { ApiTransport } from './api/transport.js';
import { type CommandOutput, readGlobals } from './cli/globals.js';
import type { Mint, TokenProvider } from './config/tokens.js';
import type { Settings } from './config/types.js';
import type { Deps, DepsOverrides } from './context.js';
import type { IOStreams } from './output/iostreams.js';
import type { OutputWriter } from './output/output.js';
import { createPrompter } from './output/prompt.js';
import { createOutputWriter } from './output/writer.js';
import { SYSTEM } from './system.js';
import { createStores } from './wiring-stores.js';

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

export interface ContextOptions extends DepsOverrides {
  /** The command line, for the global flags. */
  argv: readonly string[];
  /** The command argv names (cli/load.ts), for the rules of its output flags; none when it names none. */
  command?: CommandOutput | undefined;
  /** Whether a pager may be started: only on the process's own terminal. */
  canPage?: boolean;
}

export interface Context {
  deps: Deps;
  /** The writer behind deps.io.stdout, which main.ts commits or aborts. */
  output: OutputWriter;
  /** A global flag that is wrong (`-o ofx` on a command without it): thrown when the command would run. */
  globalsError?: unknown;
}

/**
 * The embedded sandbox, started for this command (closed by deps.close()): its address and, unless
 * PIX_SANDBOX_FAULTS asked for a loopback server, its in-process transport (no socket, no HTTP).
 */
async function startSandbox(deps: Deps, terminal: boolean) {
  const { loadEmbedded } = await import('./wiring-lazy.js');
  const { startEmbeddedSandbox } = await loadEmbedded();
  const sandbox = await startEmbeddedSandbox(deps.env, deps);
  deps.defer(() => sandbox.close());
  // Said to a person every time; a CI log (CI set, stderr not a terminal) is spared it on every
  // command: there only what moves money names the sandbox (`paying from … (sandbox)`).
  const ci = (deps.env.CI ?? '') !== '' && !['false', '0'].includes(deps.env.CI!.toLowerCase());
  if (terminal || !ci) deps.io.stderr.write('sandbox: simulated account, no real money moves\n');
  return sandbox;
}

/**
 * How the client reaches `origin`: the transport given (a test's, the sandbox's), or a connection pool
 * opened on first use. The account's clock is the sandbox's when the API is the sandbox, the embedded one or
 * one on loopback (sandbox/time.ts): its answers set it. Any other API's is this machine's clock.
 */
async function connectionOf(deps: Deps, settings: Settings, origin: URL, given: ApiTransport | undefined) {
  const { createConnection, isLoopbackHost, loadTime } = await import('./wiring-lazy.js');
  const connect = given
    ? async () => given
    : async () => {
        const pool = await createConnection(origin, settings.tls, deps.env, deps.globals.timeoutMs);
        // Registered after the sandbox: closed before it (deps.close() goes last to first).
        deps.defer(() => pool.close());
        return pool;
      };
  if (!settings.sandbox && !isLoopbackHost(origin.hostname)) return { clock: deps.clock, connect };
  const { followClock } = await loadTime();
  const followed = followClock(deps.clock);
  return { clock: followed.clock, connect: async () => followed.follow(await connect()) };
}

/** The API client of `settings`: the sandbox's or a real API's, decided here and only here. */
async function apiFor(deps: Deps, terminal: boolean, settings: Settings): Promise<ApiClient> {
  const { createApiClient, safeText } = await import('./wiring-lazy.js');
  let baseUrl = settings.baseUrl.value;
  let transport = deps.dispatcher;
  if (settings.sandbox) {
    const sandbox = await startSandbox(deps, terminal);
    baseUrl = sandbox.baseUrl;
    transport ??= sandbox.transport;
  }
  const { clock, connect } = await connectionOf(deps, settings, new URL(baseUrl), transport);
  const { credentials } = settings;
  const tokens = settings.sandbox
    ? // The sandbox takes any bearer: this one grants nothing and is no secret.
      { token: async () => 'sandbox', refresh: async () => undefined, secret: false }
    : await tokenSource(deps, settings, () => client.mintToken);
  const client = await createApiClient({
    baseUrl,
    transport: connect,
    tokens,
    secrets: [
      ...(credentials.kind === 'token' ? [credentials.token.value] : []),
      ...(credentials.kind === 'client' ? [credentials.clientSecret.value] : []),
    ],
    sanitize: safeText,
    timeoutMs: deps.globals.timeoutMs,
    verbose: deps.globals.verbose,
    stderr: deps.io.stderr,
    signal: deps.signal,
    clock,
    sleep: deps.sleep,
    random: deps.random,
    pageLimits: pageLimitsOf(deps, baseUrl),
  });
  return client;
}

/**
 * The largest pages the server at `baseUrl` took (api/pager.ts), kept with the profile's cache in the
 * config directory (config/store.ts page-limits.json). Only a cache: a directory that cannot be written
 * costs the next command the learning again, never the command itself.
 */
function pageLimitsOf(deps: Deps, baseUrl: string) {
  return {
    read: async (list: string) => (await deps.config()).pageLimit(baseUrl, list, deps.clock.now()),
    remember: async (list: string, limit: number) => {
      try {
        await (await deps.config()).rememberPageLimit(baseUrl, list, limit, deps.clock.now());
      } catch {
        // Not kept: the pager keeps it for this command.
      }
    },
  };
}

/** The profile's token (config/tokens.ts), minted through the client and cached in the config store. */
async function tokenSource(deps: Deps, settings: Settings, mint: () => Mint) {
  const { createTokenProvider, noCredentialsError } = await import('./wiring-lazy.js');
  let provider: TokenProvider | undefined;
  const open = async () => {
    provider ??= createTokenProvider(
      settings,
      await deps.config(),
      (key, secret) => mint()(key, secret),
      deps.clock,
      (text) => deps.io.stderr.write(`warning: ${text}\n`),
    );
    return provider;
  };
  return {
    secret: true,
    async token() {
      const token = await (await open()).token();
      if (token === undefined) throw noCredentialsError(settings.profile);
      return token;
    },
    refresh: async (rejected: string) => (await open()).refresh(rejected),
  };
}

/** Resolves with the signal's reason when the command is asked to stop. */
function waitForShutdown(signal: AbortSignal, hasSource: boolean): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    if (signal.aborted) return resolve(String(signal.reason));
    // A context with no signal source (a test that gave none) must not wait forever.
    if (!hasSource) return reject(new Error('no shutdown signal source in this context'));
    signal.addEventListener('abort', () => resolve(String(signal.reason)), { once: true });
  });
}

/** Sleeps `ms` unless the command is stopped first: whether it slept the whole time. */
function pause(deps: Deps, ms: number): Promise<boolean> {
  const { signal } = deps;
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const stop = () => resolve(false);
    signal.addEventListener('abort', stop, { once: true });
    // The sleep ends with the signal too: a stopped command has no long timer holding it up.
    void deps.sleep(ms, signal).then(() => {
      signal.removeEventListener('abort', stop);
      resolve(!signal.aborted);
    });
  });
}

/** The context of one run of pix. */
export function createContext(options: ContextOptions): Context {
  const { argv, command, canPage, io: raw, ...overrides } = options;
  const random = overrides.random ?? SYSTEM.random;
  const output = createOutputWriter(raw, { canPage: canPage === true, random });
  const io: IOStreams = { ...raw, stdout: output.stdout, stderr: output.stderr };
  const { globals, error: globalsError } = readGlobals(argv, command);
  const signal = overrides.signal ?? new AbortController().signal;
  const cleanups: Array<() => unknown> = [];
  // Made before deps, which its stores are handed when first opened.
  const stores = createStores(() => deps, SYSTEM);
  const deps: Deps = {
    clock: SYSTEM.clock,
    processes: SYSTEM.processes,
    sleep: SYSTEM.sleep,
    dispatcher: undefined,
    waitForShutdown: () => waitForShutdown(signal, overrides.signal !== undefined),
    prompter: createPrompter(
      io,
      () => globals.input,
      () => signal,
    ),
    ...overrides,
    io,
    random,
    signal,
    globals,
    output,
    config: once(async () => {
      const { openConfigStore } = await import('./wiring-lazy.js');
      return openConfigStore(deps.env, deps);
    }),
    settings: once(async () => {
      const [{ resolveSettings }, store] = await Promise.all([import('./wiring-lazy.js'), deps.config()]);
      const settings = resolveSettings(globals, deps.env, store);
      for (const warning of settings.warnings) io.stderr.write(`warning: ${warning}\n`);
      return settings;
    }),
    api: once(async () => apiFor(deps, raw.stderr.isTTY, await deps.settings())),
    apiFor: (settings) => apiFor(deps, raw.stderr.isTTY, settings),
    stores,
    pause: (ms) => pause(deps, ms),
    defer: (cleanup) => {
      cleanups.push(cleanup);
    },
    close: async () => {
      // Last registered, first closed: the client's pool goes before the server it talks to.
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    },
  };
  return { deps, output, ...(globalsError === undefined ? {} : { globalsError }) };
}
