/**
 * `pix events list`: the events `pix listen` made for this profile and API, newest first, with their
 * delivery: `delivered`, `pending` (owed: the next `pix listen` delivers it) or `dead` (out of attempts:
 * `pix events resend`). From the event log alone; nothing is sent.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { type EventState, parseLog, replay } from '../../domain/events.js';
import { outputMode } from '../../output/format.js';
import { type Column, createListWriter } from '../../output/records.js';
import { readPrivateFile } from '../../storage/files.js';
import * as z from '../../zod.js';
import { eventFiles } from '../listen/start.js';
import { integerFlag, parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';

const listOptionsSchema = z.object({
  failed: z._default(z.boolean(), false),
  limit: z._default(integerFlag(1), 20),
  all: z._default(z.boolean(), false),
});

export type EventsListOptions = z.output<typeof listOptionsSchema>;

/** The account's events as the log has them, oldest first. */
export async function loggedEvents(deps: Deps): Promise<EventState[]> {
  const files = await eventFiles(deps);
  return [...replay(parseLog(readPrivateFile(files.log) ?? '')).events.values()];
}

const COLUMNS: Column<EventState>[] = [
  { header: 'Id', kind: 'id', human: (s) => s.event.id, machine: (s) => s.event.id },
  { header: 'Type', kind: 'enum', human: (s) => s.event.type, machine: (s) => s.event.type },
  { header: 'Created', kind: 'date', human: (s) => s.event.created, machine: (s) => s.event.created },
  { header: 'State', kind: 'enum', human: (s) => s.state, machine: (s) => s.state },
  { header: 'Attempts', kind: 'number', human: (s) => String(s.attempts), machine: (s) => s.attempts },
  { header: 'Last error', priority: 2, human: (s) => s.lastError ?? '', machine: (s) => s.lastError ?? '' },
];

export async function runEventsList(options: EventsListOptions, deps: Deps): Promise<void> {
  const all = (await loggedEvents(deps)).reverse();
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

export function register(command: Command, deps: Deps): void {
  command
    .option('--failed', 'only the dead letters (out of attempts)')
    .option('--limit <n>', 'how many, newest first (default 20)')
    .option('--all', 'every event')
    .action(async (_options, self: Command) => {
      await runEventsList(parseOptions(listOptionsSchema, self.opts()), deps);
    });
  addExamples(command, ['pix events list', 'pix events list --failed --json'], ['usage']);
}
