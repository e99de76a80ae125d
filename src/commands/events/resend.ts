/**
 * `pix events resend ID|--all-failed`: delivers events again, now, to `--forward-to` or `--exec`, signed as
 * `pix listen` signs; each attempt is logged. A delivered resend marks the event delivered.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { attemptLines } from '../../domain/event-log.js';
import { PixError, usageError } from '../../errors.js';
import * as z from '../../zod.js';
import { executor, forwarder, parseForwardTarget } from '../shared/deliver.js';
import { eventFiles } from '../shared/events.js';
import { fromDomain, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { loggedEvents } from './list.js';

const resendOptionsSchema = z.object({
  id: z.optional(z.string().check(z.minLength(1))),
  allFailed: z._default(z.boolean(), false),
  forwardTo: z.optional(fromDomain(parseForwardTarget)),
  exec: z.optional(z.string().check(z.minLength(1))),
});

export type EventsResendOptions = z.output<typeof resendOptionsSchema>;

export async function runEventsResend(options: EventsResendOptions, deps: Deps): Promise<void> {
  if ((options.id === undefined) === !options.allFailed)
    throw usageError('ID', 'give an event id, or --all-failed');
  if ((options.forwardTo === undefined) === (options.exec === undefined)) {
    throw usageError('--forward-to', 'give where to deliver: --forward-to URL or --exec COMMAND');
  }
  const files = await eventFiles(deps);
  const store = await deps.stores.events(files);
  const events = await loggedEvents(files, store, deps);
  const chosen = options.allFailed
    ? events.filter((state) => state.state === 'dead')
    : events.filter((state) => state.id.startsWith(options.id!));
  if (!options.allFailed && chosen.length !== 1) {
    throw usageError(
      'ID',
      chosen.length === 0 ? `no event ${options.id}` : `${options.id} starts ${chosen.length} event ids`,
    );
  }
  const url = options.forwardTo;
  const sink = url
    ? forwarder(url, await store.secret(), () => deps.clock.now())
    : executor(options.exec!, deps.env);
  let failed = 0;
  for (const state of chosen) {
    const at = deps.clock.now().toISOString();
    await store.write([{ t: 'resend', id: state.id, at }]);
    const result = await sink.deliver(state.event);
    await store.write(attemptLines(state.id, at, result));
    if (!result.ok) failed++;
    deps.io.stderr.write(
      `${state.id}: ${result.ok ? 'delivered' : `failed (${result.status ?? result.error})`}\n`,
    );
  }
  if (failed > 0) {
    throw new PixError('unavailable', `${failed} of ${chosen.length} events not delivered`, {
      hint: 'they stay owed: the next pix listen delivers them, or resend again',
    });
  }
}

export const verb = describeVerb({
  summary: 'deliver events again, now',
  examples: [
    'pix events resend evt_1a2b3c --forward-to http://127.0.0.1:3000/pix',
    'pix events resend --all-failed --exec ./handle-event.sh',
  ],
  exits: ['usage', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .argument('[id]', 'the event id (or its start), from pix events list')
    .option('--all-failed', 'every dead letter')
    .option('--forward-to <url>', 'POST the events to URL, signed')
    .option('--exec <command>', "run COMMAND once per event with the event's JSON on stdin")
    .action(async (id: string | undefined, _options, self: Command) => {
      await runEventsResend(parseOptions(resendOptionsSchema, { ...self.opts(), id }), deps);
    });
}
