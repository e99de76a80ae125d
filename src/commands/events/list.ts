/**
 * `pix events list`: the events `pix listen` made for this account, newest first, with their delivery:
 * `delivered`, `pending` (owed: the next `pix listen` delivers it) or `dead` (out of attempts: `pix events
 * resend`). From the event log alone (the shared ledger's, on a database profile); nothing is sent. A damaged log is said on stderr (`pix events
 * verify`) and what can be read of it is listed.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import type { EventState } from '../../domain/event-log.js';
import type { PixEvent } from '../../domain/events.js';
import { describeLogDamage, type EventFiles } from '../../events/log.js';
import type { EventStore } from '../../events/stores.js';
import { outputMode } from '../../output/format.js';
import { type Column, createListWriter } from '../../output/records.js';
import * as z from '../../zod.js';
import { eventFiles } from '../shared/events.js';
import { integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb, LIST_FORMATS } from '../shared/help.js';

const listOptionsSchema = z.object({
  failed: z._default(z.boolean(), false),
  limit: z._default(integerFlag(1), 20),
  all: z._default(z.boolean(), false),
});

export type EventsListOptions = z.output<typeof listOptionsSchema>;

/**
 * The account's events as its store has them (the log of the config directory, or the shared ledger's),
 * oldest first, bodies and all; a damaged log is said on stderr (what can be read of it is still given).
 */
export async function loggedEvents(
  files: EventFiles,
  store: EventStore,
  deps: Deps,
): Promise<Array<EventState & { event: PixEvent }>> {
  const { events, log } = await store.history();
  const damage = log === undefined ? undefined : describeLogDamage(files, log);
  if (damage !== undefined) {
    deps.io.stderr.write(`warning: the event log is damaged (${damage}); see \`pix events verify\`\n`);
  }
  return events;
}

const COLUMNS: Column<EventState>[] = [
  { header: 'Id', kind: 'id', human: (s) => s.id, machine: (s) => s.id },
  { header: 'Type', kind: 'enum', human: (s) => s.type, machine: (s) => s.type },
  { header: 'Created', kind: 'date', human: (s) => s.created, machine: (s) => s.created },
  { header: 'State', kind: 'enum', human: (s) => s.state, machine: (s) => s.state },
  { header: 'Attempts', kind: 'number', human: (s) => String(s.attempts), machine: (s) => s.attempts },
  { header: 'Last error', priority: 2, human: (s) => s.lastError ?? '', machine: (s) => s.lastError ?? '' },
];

export async function runEventsList(options: EventsListOptions, deps: Deps): Promise<void> {
  const files = await eventFiles(deps);
  const all = (await loggedEvents(files, await deps.stores.events(files), deps)).reverse();
  const matching = options.failed ? all.filter((state) => state.state === 'dead') : all;
  const shown = options.all ? matching : matching.slice(0, options.limit);
  const mode = await outputMode(deps, (await deps.settings()).timeZone.value);
  const writer = createListWriter(deps.io.stdout, {
    ...mode,
    columns: COLUMNS,
    listField: 'results',
    sheet: 'Events',
    raw: (state) => ({
      ...state.event,
      delivery: { state: state.state, attempts: state.attempts, lastError: state.lastError ?? null },
    }),
  });
  await writer.begin(matching.length);
  for (const state of shown) await writer.write(state);
  await writer.end();
  if (matching.length === 0 && mode.human)
    deps.io.stderr.write(options.failed ? 'no dead letters\n' : 'no events yet: pix listen makes them\n');
}

export const verb = describeVerb({
  summary: 'recent events and their delivery (--failed: the dead letters)',
  formats: LIST_FORMATS,
  examples: ['pix events list', 'pix events list --failed --json'],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--failed', 'only the dead letters (out of attempts)')
    .option('--limit <n>', 'how many, newest first (default 20)')
    .option('--all', 'every event')
    .action(async (_options, self: Command) => {
      await runEventsList(parseOptions(listOptionsSchema, self.opts()), deps);
    });
}
