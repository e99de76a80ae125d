/**
 * The stores of a run, part of the composition root (src/wiring.ts): the one place it is decided whether
 * the profile's ledger is the config directory's files or the shared PostgreSQL ledger its `ledger` names
 * (docs/team.md), as the GitHub CLI's factory decides each service once (pkg/cmd/factory/default.go). Every
 * store — the journal (and through it the charge ledger and the books' closed days), the accounts, the
 * schedules, the approvals' verdicts and policies, pix listen's events — comes from here, each module
 * loaded on first use (a database's driver only then: architecture rule 8); a database's connections are
 * closed by the context's close(). Nothing else asks which the ledger is (test/architecture.test.ts).
 */
import type { ApprovalStores } from './approvals/remembered.js';
import type { Deps, Stores } from './context.js';
import type { EventFiles } from './events/log.js';
import type { EventStore } from './events/stores.js';
import type { JournalEntry } from './journal/entries.js';
import type { JournalStore } from './journal/stores.js';
import type { System } from './system.js';

/** What of this machine the stores are handed beyond the context: a lease's clock, a test's pause. */
export type StoreSystem = Pick<System, 'monotonic' | 'stopSelf'>;

/** The stores of the context `context()` makes, over its profile's ledger (nothing is opened yet). */
export function createStores(context: () => Deps, system: StoreSystem): Stores {
  const place = async () => {
    const deps = context();
    const [settings, config] = await Promise.all([deps.settings(), deps.config()]);
    return { ledger: settings.ledger, dir: config.dir };
  };
  /** A database's journal: one pool for the run, closed when it ends. */
  let journal: Promise<JournalStore> | undefined;
  let schedules: Promise<Awaited<ReturnType<Stores['schedules']>>> | undefined;
  let approvals: Promise<ApprovalStores> | undefined;

  const stores: Stores = {
    async journal(only?: (entry: JournalEntry) => boolean) {
      const deps = context();
      const { ledger, dir } = await place();
      if (ledger.kind === 'file') {
        // A file store holds what `only` asks (journal/store.ts openJournal): one per question.
        const { fileStore } = await import('./journal/stores.js');
        return fileStore(dir, deps, only);
      }
      if (journal === undefined) {
        journal = import('./journal/postgres/store.js').then(({ openPostgresJournal }) =>
          openPostgresJournal({
            url: ledger.url.value,
            dir,
            clock: deps.clock,
            processes: deps.processes,
            system: { random: deps.random, monotonic: system.monotonic, stopSelf: system.stopSelf },
            env: deps.env,
            requestTimeoutMs: deps.globals.timeoutMs,
            stopAt: deps.env.PIX_TEST_STOP_AT,
          }),
        );
        const opened = journal;
        deps.defer(async () => (await opened).close());
      }
      return journal;
    },
    async accounts() {
      const deps = context();
      const { ledger, dir } = await place();
      // On a database every machine names an account alike: the shared ledger keeps them.
      if (ledger.kind !== 'file') return (await stores.journal()).accounts!();
      const { openAccounts } = await import('./journal/accounts.js');
      return openAccounts(dir, deps);
    },
    async schedules() {
      const deps = context();
      const { ledger, dir } = await place();
      if (ledger.kind === 'file') {
        const { fileSchedules } = await import('./journal/schedules.js');
        return fileSchedules(dir, deps);
      }
      if (schedules === undefined) {
        schedules = import('./journal/postgres/schedules.js').then(({ openPostgresSchedules }) =>
          openPostgresSchedules(ledger.url.value, deps.env),
        );
        const opened = schedules;
        deps.defer(async () => (await opened).close());
      }
      return schedules;
    },
    approvals() {
      approvals ??= (async () => {
        const deps = context();
        const { ledger, dir } = await place();
        if (ledger.kind === 'file') {
          const { fileApprovalStores } = await import('./approvals/stores.js');
          return fileApprovalStores(dir, deps);
        }
        // Its pool is closed by the context's close() (approvals/postgres.ts).
        const { postgresApprovalStores } = await import('./approvals/postgres.js');
        return postgresApprovalStores(ledger.url.value, deps);
      })();
      return approvals;
    },
    async events(files: EventFiles): Promise<EventStore> {
      const deps = context();
      const { ledger } = await place();
      if (ledger.kind === 'file') {
        const { fileEventStore } = await import('./events/stores.js');
        return fileEventStore(files, deps);
      }
      const { postgresEventStore } = await import('./events/postgres.js');
      const store = postgresEventStore(ledger.url.value, files, deps);
      deps.defer(() => store.close());
      return store;
    },
  };
  return stores;
}
