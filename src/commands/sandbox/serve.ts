import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { InvalidValue } from '../../domain/invalid.js';
import { usageError } from '../../errors.js';
import { loadFaults, loadPaths, loadServer } from '../../sandbox/index.js';
import * as z from '../../zod.js';
import { fromDomain, integerFlag, parseOptions } from '../shared/flags.js';
import { addExamples } from '../shared/help.js';
import { stateFlag, stateOption, writeJson } from './shared.js';

const portFlag = fromDomain((text) => {
  if (!/^\d{1,5}$/.test(text.trim())) throw new InvalidValue(`"${text}" is not a port number`);
  const port = Number(text);
  if (port > 65_535) throw new InvalidValue('must be between 0 and 65535');
  return port;
});

export const serveSchema = z.object({
  port: z.optional(portFlag),
  state: stateFlag,
  faults: z.optional(z.string().check(z.minLength(1, 'a SPEC is required, e.g. statement:503x2'))),
  latencyMs: z.optional(integerFlag(0)),
});
export type ServeOptions = z.output<typeof serveSchema>;

export async function runServe(opts: ServeOptions, deps: Deps): Promise<void> {
  const [{ startSandboxServer }, { defaultStateFile }, { FaultSpecError }] = await Promise.all([
    loadServer(),
    loadPaths(),
    loadFaults(),
  ]);
  const stateFile = opts.state ?? defaultStateFile(deps.env);
  let server: Awaited<ReturnType<typeof startSandboxServer>>;
  try {
    server = await startSandboxServer({
      port: opts.port ?? 0,
      stateFile,
      host: deps,
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
  deps.io.stderr.write(
    `sandbox: simulated account on ${server.url} (state ${stateFile}${opts.faults ? `, faults ${opts.faults}` : ''}); Ctrl-C stops it\n`,
  );
  await deps.waitForShutdown();
  await server.close();
}

export function register(command: Command, deps: Deps): void {
  command
    .option('--port <n>', 'port to listen on (0: a free port)', '0')
    .option(...stateOption)
    .option('--faults <spec>', 'misbehave on purpose, e.g. transfer:timeout,statement:503x2')
    .option('--latency-ms <n>', 'delay every answer by N ms, as a real API over a network would')
    .action(async (raw) => runServe(parseOptions(serveSchema, raw), deps));
  addExamples(
    command,
    ['pix sandbox serve --port 8080', 'pix sandbox serve --faults statement:503x2,transfer:timeout'],
    ['usage'],
  );
}
