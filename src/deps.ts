/**
 * createDeps: the Deps a command runs with (the types are context.ts's). What every command needs at once is
 * here; what only some need — the config store, the settings, the API client — is made on first use by the
 * composition root, src/factory.ts, loaded then and only then.
 */
import { type Deps, type DepsOverrides, defaultGlobals, LOCAL_PROCESSES } from './context.js';
import { createPrompter } from './output/prompt.js';

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

export function createDeps(overrides: DepsOverrides): Deps {
  const cleanups: Array<() => unknown> = [];
  const deps: Deps = {
    clock: { now: () => new Date() },
    processes: LOCAL_PROCESSES,
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        const stop = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          signal?.removeEventListener('abort', stop);
          resolve();
        }, ms);
        signal?.addEventListener('abort', stop, { once: true });
      }),
    random: Math.random,
    dispatcher: undefined,
    // main.ts gives the process's SIGINT/SIGTERM; in-process tests give their own AbortController's.
    signal: new AbortController().signal,
    waitForShutdown: () =>
      new Promise<string>((resolve, reject) => {
        const { signal } = deps;
        if (signal.aborted) return resolve(String(signal.reason));
        // A context with no signal source (a test that gave none) must not wait forever.
        if (!overrides.signal) return reject(new Error('no shutdown signal source in this context'));
        signal.addEventListener('abort', () => resolve(String(signal.reason)), { once: true });
      }),
    globals: defaultGlobals(),
    prompter: createPrompter(
      overrides.io,
      () => deps.globals.input,
      () => deps.signal,
    ),
    // A context without main.ts's writer (a unit test) writes straight to io.stdout, counting nothing.
    output: {
      records: () => ({ add() {}, done() {} }),
      ifLost() {},
      open: async () => {},
      keep: async () => {},
    },
    ...overrides,
    config: once(async () => {
      const { openConfigStore } = await import('./factory.js');
      return openConfigStore(deps.env);
    }),
    settings: once(async () => {
      const { resolveSettings } = await import('./factory.js');
      const settings = resolveSettings(deps.globals, deps.env, await deps.config());
      for (const warning of settings.warnings) deps.io.stderr.write(`warning: ${warning}\n`);
      return settings;
    }),
    api: once(async () => {
      const { apiClientFor } = await import('./factory.js');
      return apiClientFor(deps, await deps.settings());
    }),
    defer: (cleanup) => {
      cleanups.push(cleanup);
    },
    close: async () => {
      // Last registered, first closed: the client's pool goes before the server it talks to.
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    },
  };
  return deps;
}
