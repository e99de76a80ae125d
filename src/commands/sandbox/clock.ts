import { type Command, Option } from 'commander';
import type { Deps } from '../../context.js';
import { InvalidValue } from '../../domain/invalid.js';
import * as z from '../../zod.js';
import { durationFlag, fromDomain, parseOptions } from '../shared/flags.js';
import { completionValues, describeVerb } from '../shared/help.js';
import { openStore, stateFlag, stateOption, translate, writeJson } from './shared.js';

const isoFlag = fromDomain((text) => {
  const trimmed = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(trimmed)) {
    throw new InvalidValue(`"${text}" is not an ISO 8601 date or time, e.g. 2025-03-01T12:00:00Z`);
  }
  // A bare date or a time without an offset is Brasília time.
  const withZone = /T/.test(trimmed)
    ? /(Z|[+-]\d{2}:\d{2})$/.test(trimmed)
      ? trimmed
      : `${trimmed}-03:00`
    : `${trimmed}T00:00:00-03:00`;
  const ms = Date.parse(withZone);
  if (
    Number.isNaN(ms) ||
    new Date(Date.parse(`${trimmed.slice(0, 10)}T00:00:00Z`)).toISOString().slice(0, 10) !==
      trimmed.slice(0, 10)
  ) {
    throw new InvalidValue(`"${text}" is not a real date`);
  }
  return new Date(ms);
});

export const clockSchema = z
  .object({
    advance: z.optional(durationFlag),
    set: z.optional(isoFlag),
    reset: z.optional(z.boolean()),
    state: stateFlag,
  })
  .check(
    z.superRefine((opts, context) => {
      const given = [opts.advance && '--advance', opts.set && '--set', opts.reset && '--reset'].filter(
        Boolean,
      );
      if (given.length > 1) {
        context.addIssue({
          code: 'custom',
          path: [given[1] === '--set' ? 'set' : 'reset'],
          message: `cannot be combined with ${given[0]}`,
        });
      }
    }),
  );
export type ClockOptions = z.output<typeof clockSchema>;

export async function runClock(opts: ClockOptions, deps: Deps): Promise<void> {
  const store = await openStore(deps, opts.state);
  const result = await translate(async () => {
    if (!opts.advance && !opts.set && !opts.reset) {
      const state = await store.read();
      return { now: store.now(state), offsetMs: state.clockOffsetMs };
    }
    return store.update((state) => {
      const real = store.realNow().getTime();
      if (opts.reset) state.clockOffsetMs = 0;
      else if (opts.set) state.clockOffsetMs = opts.set.getTime() - real;
      else if (opts.advance) state.clockOffsetMs += opts.advance.milliseconds;
      return { now: new Date(real + state.clockOffsetMs), offsetMs: state.clockOffsetMs };
    });
  });
  if (deps.globals.json) writeJson(deps, { now: result.now.toISOString(), offsetMs: result.offsetMs });
  else deps.io.stdout.write(`${result.now.toISOString()}\n`);
}

export const verb = describeVerb({
  summary: 'Show or move sandbox time (shared by every process using the state file)',
  examples: [
    'pix sandbox clock',
    'pix sandbox clock --advance 31d',
    'pix sandbox clock --set 2025-03-01',
    'pix sandbox clock --reset',
  ],
  exits: ['usage', 'unavailable'],
});

export function register(command: Command, deps: Deps): void {
  command
    .addOption(
      completionValues(new Option('--advance <duration>', 'move time forward, e.g. 2d'), {
        units: ['s', 'm', 'h', 'd'],
      }),
    )
    .option('--set <iso>', 'set time, e.g. 2025-03-01T12:00:00Z')
    .option('--reset', 'back to real time')
    .option(...stateOption)
    .action(async (raw) => runClock(parseOptions(clockSchema, raw), deps));
}
