import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { InvalidValue } from '../../domain/invalid.js';
import { usageError } from '../../errors.js';
import {
  loadFaults,
  loadPaths,
  loadServer,
  loadServerSettings,
  type ServerSettings,
} from '../../sandbox/index.js';
import * as z from '../../zod.js';
import { fromDomain, integerFlag, parseOptions } from '../shared/flags.js';
import { describeVerb } from '../shared/help.js';
import { stateFlag, stateOption, writeJson } from './shared.js';

const portFlag = fromDomain((text) => {
  if (!/^\d{1,5}$/.test(text.trim())) throw new InvalidValue(`"${text}" is not a port number`);
  const port = Number(text);
  if (port > 65_535) throw new InvalidValue('must be between 0 and 65535');
  return port;
});

/**
 * The server settings of the sandbox (sandbox/serversettings.ts), one flag each: what the API document
 * leaves open, as a server may choose it. `--gzip` is a switch; the others take a value.
 */
const SERVER_FLAGS: ReadonlyArray<readonly [name: string, value: string, help: string]> = [
  ['max-page', 'n', 'refuse (400) a page larger than N (default 1000)'],
  ['clamp-page', 'n', 'answer at most N records a page, whatever is asked'],
  ['clock-skew', 'duration', "the server's clock off by DUR (30s, -30s): only its Date tells it"],
  ['order', 'order', 'list results newest (default) or oldest first'],
  ['names', 'how', 'statement names as-is (default) or upper-ascii'],
  ['documents', 'how', 'statement documents bare (default), masked or none'],
  ['list-field', 'name', "the lists' array: document (default: result, results), results or result"],
  ['e2e-spelling', 'name', "the key consultation's endtoEndId (default) or endToEndId"],
  ['due-date-type', 'type', "a due-date charge's type: DUEDATE_QRCODE (default) or DUE_DATE"],
  ['post-status', 'code', 'the status of a charge or transfer created: 201 (default) or 200'],
  [
    'error-shape',
    'shape',
    'error bodies: message (default), error, errors, description, detail, text, empty',
  ],
  ['empty-after', 'n', 'lose records: pages from offset N come back empty (pix must refuse them)'],
  ['short-after', 'n', 'lose records: pages from offset N lose their last one (pix must refuse them)'],
];

/** camelCase as Commander names an option's value (`max-page` → `maxPage`). */
const optionKey = (name: string) => name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

export const serveSchema = z.object({
  port: z.optional(portFlag),
  state: stateFlag,
  faults: z.optional(z.string().check(z.minLength(1, 'a SPEC is required, e.g. statement:503x2'))),
  latencyMs: z.optional(integerFlag(0)),
  /** The server settings as given, NAME → VALUE (read by sandbox/serversettings.ts). */
  server: z._default(z.array(z.tuple([z.string(), z.string()])), []),
});
export type ServeOptions = z.output<typeof serveSchema>;

export async function runServe(opts: ServeOptions, deps: Deps): Promise<void> {
  const [
    { startSandboxServer },
    { defaultStateFile },
    { FaultSpecError },
    { serverSettings, ServerSpecError, serverSpec },
  ] = await Promise.all([loadServer(), loadPaths(), loadFaults(), loadServerSettings()]);
  let settings: ServerSettings;
  try {
    settings = serverSettings(opts.server);
  } catch (error) {
    if (error instanceof ServerSpecError) {
      throw usageError(`--${error.setting ?? 'server'}`, error.message.replace(/^[a-z-]+: /, ''));
    }
    throw error;
  }
  const stateFile = opts.state ?? defaultStateFile(deps.env);
  let server: Awaited<ReturnType<typeof startSandboxServer>>;
  try {
    server = await startSandboxServer({
      port: opts.port ?? 0,
      stateFile,
      host: deps,
      settings,
      ...(opts.faults ? { faults: opts.faults } : {}),
      ...(opts.latencyMs ? { latencyMs: opts.latencyMs } : {}),
    });
  } catch (error) {
    // The SPEC is parsed before the server listens: a bad one is the flag's fault.
    if (error instanceof FaultSpecError) throw usageError('--faults', error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      throw usageError(
        '--port',
        `cannot listen on 127.0.0.1:${opts.port} (${code})`,
        'use --port 0 for a free port',
      );
    }
    throw error;
  }
  if (deps.globals.json) writeJson(deps, { url: server.url, port: server.port, stateFile });
  else deps.io.stdout.write(`${server.url}\n`);
  const spec = serverSpec(settings);
  deps.io.stderr.write(
    `sandbox: simulated account on ${server.url} (state ${stateFile}${opts.faults ? `, faults ${opts.faults}` : ''}${spec ? `, server ${spec}` : ''}); Ctrl-C stops it\n`,
  );
  await deps.waitForShutdown();
  await server.close();
}

export const verb = describeVerb({
  summary: 'Run the sandbox API on 127.0.0.1 and print its URL (for other tools and CI)',
  examples: [
    'pix sandbox serve --port 8080',
    'pix sandbox serve --faults statement:503x2,transfer:timeout',
    'pix sandbox serve --max-page 100 --clock-skew 30s --order oldest --names upper-ascii',
  ],
  exits: ['usage'],
});

export function register(command: Command, deps: Deps): void {
  command
    .option('--port <n>', 'port to listen on (0: a free port)', '0')
    .option(...stateOption)
    .option('--faults <spec>', 'misbehave on purpose, e.g. transfer:timeout,statement:503x2')
    .option('--latency-ms <n>', 'delay every answer by N ms, as a real API over a network would');
  for (const [name, value, help] of SERVER_FLAGS) command.option(`--${name} <${value}>`, help);
  command
    .option('--gzip', 'compress every answer with gzip, asked for or not')
    .action(async (raw: Record<string, unknown>) => {
      const server: Array<[string, string]> = [];
      for (const [name] of SERVER_FLAGS) {
        const value = raw[optionKey(name)];
        if (typeof value === 'string') server.push([name, value]);
      }
      if (raw.gzip === true) server.push(['gzip', 'on']);
      const { port, state, faults, latencyMs } = raw;
      await runServe(parseOptions(serveSchema, { port, state, faults, latencyMs, server }), deps);
    });
}
