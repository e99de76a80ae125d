/**
 * `pix events verify`: the account's event log checked whole, as `pix listen` checks it before it starts
 * (src/events/log.ts): every line that cannot be read, by number, and the log as a whole against its
 * checkpoint (cut, emptied, missing, replaced). Exit 8 when anything is wrong (`pix listen` would refuse
 * to start: it never mistakes a damaged log for a first run), 0 when the log is sound. Nothing is sent. On a
 * database profile the events are rows of the shared ledger (src/events/postgres.ts): it counts them.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { PixError } from '../../errors.js';
import { describeLogDamage, readEventLog, recoveryHint } from '../../events/log.js';
import { jsonDocument, outputMode } from '../../output/format.js';
import * as z from '../../zod.js';
import { eventFiles } from '../shared/events.js';
import { parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';

const verifyOptionsSchema = z.object({});

export type EventsVerifyOptions = z.output<typeof verifyOptionsSchema>;

export async function runEventsVerify(_options: EventsVerifyOptions, deps: Deps): Promise<void> {
  const files = await eventFiles(deps);
  const mode = await outputMode(deps, (await deps.settings()).timeZone.value);
  const { stdout, stderr } = deps.io;
  const store = await deps.stores.events(files);
  if (store.backend !== 'file') {
    // Rows written whole by transactions: no line to be torn or damaged, no checkpoint to disagree with.
    const { events } = await store.history();
    const count = (state: string) => events.filter((event) => event.state === state).length;
    if (mode.format === 'json') {
      stdout.write(
        jsonDocument(
          {
            path: store.where,
            checkpoint: null,
            events: events.length,
            owed: count('pending'),
            dead: count('dead'),
            damaged: [],
            problem: null,
            torn: [],
          },
          mode.pretty,
        ),
      );
    }
    stderr.write(
      `events of this account in the shared ledger ${store.where}: ${events.length} (${count('pending')} owed, ${count('dead')} dead letters)\n`,
    );
    return;
  }
  const log = readEventLog(files, 'owed');
  const states = [...log.states.values()];
  const count = (state: string) => states.filter((event) => event.state === state).length;
  if (mode.format === 'json') {
    stdout.write(
      jsonDocument(
        {
          path: files.log,
          checkpoint: files.checkpoint,
          events: states.length,
          owed: count('pending'),
          dead: count('dead'),
          damaged: log.damage,
          problem: log.problem ?? null,
          torn: log.torn,
        },
        mode.pretty,
      ),
    );
  } else if (log.damage.length > 0) {
    stdout.write(
      mode.table(
        ['Line', 'Problem'],
        log.damage.map((problem) => [String(problem.line), problem.reason]),
      ),
    );
  }
  if (log.torn.length > 0) {
    stderr.write(
      `${log.torn.length} torn write${log.torn.length === 1 ? '' : 's'} skipped (line ${log.torn.slice(0, 5).join(', ')}${log.torn.length > 5 ? ', …' : ''}): lines a kill cut short, made again from their source\n`,
    );
  }
  const damage = describeLogDamage(files, log);
  if (damage === undefined) {
    stderr.write(
      `event log ${files.log}: ${states.length} events (${count('pending')} owed, ${count('dead')} dead letters), no damaged line\n`,
    );
    return;
  }
  throw new PixError('declined', `the event log is damaged: ${damage}`, { hint: recoveryHint(files) });
}

export const verb = describeVerb({
  summary: 'check the event log: exit 8 naming each damaged line, 0 when sound',
  examples: ['pix events verify', 'pix events verify --json'],
  exits: ['declined'],
});

export function register(command: Command, deps: Deps): void {
  command.action(async () => {
    await runEventsVerify(parseOptions(verifyOptionsSchema, {}), deps);
  });
}
