/**
 * The sandbox's only door: what code outside src/sandbox/ may use of it (test/architecture.test.ts holds
 * the rule). Behind it: the model (model.ts), the seed data (seed.ts), the store (store.ts, a log under a
 * lock), one module per area of the account (statement, charges, consultations, transfers), the answer to
 * a request (answer.ts), the server of `pix sandbox serve` and the embedded sandbox.
 *
 * Each entry point is a loader, not a re-export, and that is on purpose: start-up is a feature. The
 * factory loads this module for every command that talks to an API, sandbox or not; `pix statement` on
 * the embedded sandbox must load neither the HTTP server (node:http) nor batch-file generation, and
 * `pix sandbox reset` not the account. A module that re-exported everything statically would make any
 * `import()` of it load the whole wing (test/e2e/startup.test.ts counts what is loaded). So this file
 * imports nothing at run time, and each loader brings one part, in its own chunk, when it is called.
 * Types come through the door as types (erased from the build).
 */

export type { EmbeddedSandbox } from './embedded.js';
export type { SandboxServer, SandboxServerOptions } from './server.js';
export type { StateStore, StateStoreOptions } from './store.js';

type Embedded = typeof import('./embedded.js');
type Server = typeof import('./server.js');
type Faults = typeof import('./faults.js');
type Paths = typeof import('./paths.js');
type Store = typeof import('./store.js');
type Transfers = typeof import('./transfers.js');
type BatchFile = typeof import('./batchfile.js');
type Consultations = typeof import('./consultations.js');
type Time = typeof import('./time.js');

/** The embedded sandbox the factory starts for the built-in `sandbox` profile (in-process, or loopback). */
export function loadEmbedded(): Promise<Pick<Embedded, 'startEmbeddedSandbox'>> {
  return import('./embedded.js');
}

/** The sandbox's clock, followed from its answers (the account's clock when the API is the sandbox). */
export function loadTime(): Promise<Pick<Time, 'followClock'>> {
  return import('./time.js');
}

/** The sandbox over HTTP on loopback (`pix sandbox serve`). */
export function loadServer(): Promise<Pick<Server, 'startSandboxServer'>> {
  return import('./server.js');
}

/** FaultSpecError: what startSandboxServer throws for a bad `--faults` SPEC. */
export function loadFaults(): Promise<Pick<Faults, 'FaultSpecError'>> {
  return import('./faults.js');
}

/** Where the sandbox keeps its account by default: `<config dir>/sandbox-state.json`. */
export function loadPaths(): Promise<Pick<Paths, 'defaultStateFile'>> {
  return import('./paths.js');
}

/** The state file: StateStore (read, update, reset, the sandbox clock), and StateError for a file it cannot use. */
export function loadStore(): Promise<Pick<Store, 'StateStore' | 'StateError'>> {
  return import('./store.js');
}

/**
 * A charge paid by someone else, or money paid to one of the account's keys (`pix sandbox pay`), and
 * ApiFailure for what the account refuses.
 */
export function loadAccount(): Promise<Pick<Transfers, 'payByThirdParty' | 'payToOwnKey' | 'ApiFailure'>> {
  // One import() (transfers.ts passes ApiFailure on): a second target would be a chunk of its own.
  return import('./transfers.js');
}

/** A key of someone else given to another owner (`pix sandbox move-key`). */
export function loadDict(): Promise<Pick<Consultations, 'moveKey'>> {
  return import('./consultations.js');
}

/** Sample batch files for `pix pay batch` (`pix sandbox batch-file`). */
export function loadBatchFile(): Promise<Pick<BatchFile, 'sampleRows' | 'sampleLines'>> {
  return import('./batchfile.js');
}
