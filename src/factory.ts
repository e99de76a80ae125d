/**
 * The composition root: what every command that reads settings or talks to the API runs with, wired once —
 * the global flags, the config store, the settings, and the API client with its transport. Here, and only
 * here, it is decided whether a command talks to the embedded sandbox or to a real API (as the GitHub CLI
 * decides it in pkg/cmd/factory/default.go): api/ is handed a transport and never learns which it was.
 *
 * deps.ts and program.ts reach this module through one dynamic import, so the bundle makes it one chunk and a
 * command loads a few files where it loaded a waterfall of imports, one after another (docs/performance.md).
 * The sandbox itself is loaded only when the profile is the sandbox.
 */
import { type ApiClient, createApiClient } from './api/client.js';
import { type ApiTransport, createDispatcher } from './api/transport.js';
import { isLoopbackHost } from './api/url.js';
import type { Settings } from './config/types.js';
import type { Deps } from './context.js';
import { loadEmbedded } from './sandbox/index.js';

export { parseGlobalOptions } from './commands/shared/globals.js';
export { resolveSettings } from './config/resolve.js';
export { openConfigStore } from './config/store.js';

/**
 * The API client for `settings`. The built-in sandbox profile starts the embedded sandbox (in-process, or a
 * loopback server when PIX_SANDBOX_FAULTS asks for one), says so on stderr, and stops it when the command
 * ends; any other profile gets a connection pool to its base URL (api/transport.ts), made at the first
 * request. A transport in deps (a test's MockAgent) is used whatever the profile.
 */
export async function apiClientFor(deps: Deps, settings: Settings): Promise<ApiClient> {
  const { io, globals } = deps;
  let baseUrl = settings.baseUrl.value;
  let transport: ApiTransport | undefined = deps.dispatcher;
  if (settings.sandbox) {
    const { startEmbeddedSandbox } = await loadEmbedded();
    const sandbox = await startEmbeddedSandbox(deps.env);
    deps.defer(() => sandbox.close());
    baseUrl = sandbox.baseUrl;
    // In-process (no socket, no HTTP) unless PIX_SANDBOX_FAULTS asked for a loopback server.
    transport ??= sandbox.transport;
    io.stderr.write('sandbox: simulated account, no real money moves\n');
  }
  const origin = new URL(baseUrl);
  const given = transport;
  return createApiClient({
    baseUrl,
    transport: given
      ? async () => given
      : async () => {
          const pool = await createDispatcher(origin, settings.tls, deps.env, globals.timeoutMs);
          // Registered after the sandbox: closed before it (deps.close() goes last to first).
          deps.defer(() => pool.close());
          return pool;
        },
    credentials: settings.sandbox ? { kind: 'sandbox' } : settings.credentials,
    profile: settings.profile,
    store: deps.config,
    // The sandbox's clock (api/clock.ts) is believed from the sandbox: the embedded one, or one on loopback.
    trustServerClock: settings.sandbox || isLoopbackHost(origin.hostname),
    timeoutMs: globals.timeoutMs,
    verbose: globals.verbose,
    stderr: io.stderr,
    signal: deps.signal,
    clock: deps.clock,
    sleep: deps.sleep,
    random: deps.random,
  });
}
