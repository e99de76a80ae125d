/**
 * `pix listen`: the webhooks the API does not have. It polls the statement (as `statement --follow` does)
 * and follows the journal, makes an event of every new fact (`entry.income`, `entry.outcome`,
 * `charge.paid`, `charge.expired`, `payment.sent`, `payment.unknown`, `payment.resolved`, `schedule.paid`,
 * `schedule.failed`, `schedule.held`, `schedule.missed`), then delivers
 * it (deliver.ts): POSTed to `--forward-to URL`, signed as Stripe signs; piped to `--exec CMD`; or printed.
 *
 * Every event and every attempt is a line of the account's event log (src/events/log.ts) before and
 * after it is delivered, so a stop or a kill loses nothing: the next `pix listen` delivers what is owed,
 * and repeats at most the deliveries that were in flight. A failed delivery is retried (1 s doubling to
 * 5 minutes) while newer events keep flowing; after `--max-attempts` it is a dead letter (`pix events
 * list --failed`, `pix events resend`). One listener per account: a second one exits 8 naming the first,
 * or waits for it with `--wait-lock`; on a database profile, a second one (on any machine) is a standby
 * that takes over when the active one dies (src/events/postgres.ts). A damaged, cut or emptied log is exit 8,
 * never a fresh start.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';
import { ListenerLockLost } from '../../events/cursor.js';
import { safeText } from '../../output/sanitize.js';
import * as z from '../../zod.js';
import {
  type Delivery,
  deliverDue,
  destinationOf,
  executor,
  forwarder,
  parseForwardTarget,
  printer,
} from '../shared/deliver.js';
import { eventFiles } from '../shared/events.js';
import { durationFlag, fromDomain, integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { catchUp, checkpoint, type Listener, poll, restoreListener } from './listener.js';

const listenOptionsSchema = z.object({
  forwardTo: z.optional(fromDomain(parseForwardTarget)),
  exec: z.optional(z.string().check(z.minLength(1))),
  interval: z.optional(durationFlag),
  backfill: z.optional(durationFlag),
  maxAttempts: z._default(integerFlag(1), 8),
  printSecret: z._default(z.boolean(), false),
  rotateSecret: z._default(z.boolean(), false),
  waitLock: z._default(z.boolean(), false),
});

export type ListenOptions = z.output<typeof listenOptionsSchema>;

export async function runListen(options: ListenOptions, deps: Deps): Promise<void> {
  if (options.forwardTo && options.exec)
    throw usageError('--exec', 'cannot go with --forward-to: one destination');
  const files = await eventFiles(deps);
  const store = await deps.stores.events(files);
  if (options.printSecret || options.rotateSecret) {
    deps.io.stdout.write(`${await store.secret(options.rotateSecret)}\n`);
    return;
  }
  const intervalMs = options.interval?.milliseconds ?? 5_000;
  await store.hold({ destination: destinationOf(options), wait: options.waitLock, intervalMs }, async () => {
    const { listener, start } = await restoreListener(files, store, deps);
    await catchUp(listener, start, options.backfill?.milliseconds, deps);
    announce(options, deps);
    const timeZone = (await deps.settings()).timeZone.value;
    const sink = sinkOf(await store.secret(), options, timeZone, deps);
    await listenUntilStopped(listener, sink, options, timeZone, deps);
  });
}

function sinkOf(secret: string, options: ListenOptions, timeZone: string, deps: Deps): Delivery {
  if (options.forwardTo) return forwarder(options.forwardTo, secret, () => deps.clock.now());
  return options.exec ? executor(options.exec, deps.env) : printer(deps, timeZone);
}

function announce(options: ListenOptions, deps: Deps): void {
  if (!deps.io.stderr.isTTY) return;
  const where = options.forwardTo ? `to ${options.forwardTo.href}` : options.exec ? 'to --exec' : 'here';
  const every = (options.interval?.milliseconds ?? 5_000) / 1000;
  deps.io.stderr.write(`listening to the statement every ${every} s, delivering ${where}; Ctrl-C to stop\n`);
}

/**
 * Delivers what is due, waits `--interval`, polls; until Ctrl-C or SIGTERM, which finish the delivery in
 * flight (deliver.ts, a grace of 5 s) and leave what is owed in the log for the next run. A poll that
 * cannot read the statement is said on stderr and tried again at the next.
 */
async function listenUntilStopped(
  listener: Listener,
  sink: Delivery,
  options: ListenOptions,
  timeZone: string,
  deps: Deps,
): Promise<void> {
  const interval = options.interval?.milliseconds ?? 5_000;
  // Delivering elsewhere, a person watching sees each event and each delivery (as `stripe listen` shows).
  const elsewhere = options.forwardTo !== undefined || options.exec !== undefined;
  const narrate = deps.io.stderr.isTTY && elsewhere ? timeZone : undefined;
  const stopped = () => deps.signal.aborted;
  try {
    for (;;) {
      await deliverDue(
        listener.owed,
        sink,
        options.maxAttempts,
        (lines) => listener.store.write(lines),
        deps,
        narrate,
      );
      if (!(await deps.pause(interval))) break;
      try {
        await poll(listener);
      } catch (error) {
        if (stopped()) break;
        if (error instanceof ListenerLockLost) throw error;
        const message = error instanceof Error ? error.message : String(error);
        deps.io.stderr.write(`warning: reading the statement: ${safeText(message, 200)}; trying again\n`);
      }
    }
  } catch (error) {
    if (!stopped()) throw error;
  }
  await checkpoint(listener, listener.client.clock.now());
}

export const verb = describeVerb({
  summary: 'Events from the statement, signed and delivered at least once (the webhooks the API lacks)',
  formats: ['table', 'ndjson'],
  examples: ['pix listen --print-secret', 'pix listen --forward-to http://127.0.0.1:3000/pix --backfill 1h'],
  exits: ['usage', 'auth', 'unavailable', 'declined'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--forward-to <url>', 'POST each event (JSON, signed: Pix-Signature) to URL')
    .option('--exec <command>', "run COMMAND once per event with the event's JSON on its stdin")
    .option(
      '--interval <duration>',
      'time between polls of the statement (default 5s; durations are whole seconds)',
    )
    .option('--backfill <duration>', 'on the first run, also the entries of this window before it (24h)')
    .option('--max-attempts <n>', 'deliveries of one event before it is a dead letter (default 8)')
    .option(
      '--wait-lock',
      'when another listener has this account, wait for it to stop instead of exit 8 (a shared ledger always waits)',
    )
    .option('--print-secret', 'print the signing secret of this account and exit')
    .option('--rotate-secret', 'make a new signing secret, print it and exit')
    .action(async (_options, self: Command) => {
      await runListen(parseOptions(listenOptionsSchema, self.opts()), deps);
    });
}
