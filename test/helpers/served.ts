import { join } from 'node:path';
import { run } from '../../src/main.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import type { Deferred } from './cleanup.js';
import { tempConfigDir } from './cli.js';
import { createTestIO } from './io.js';

/** A real `pix sandbox serve` on a free loopback port, with a fresh config dir for the pix that talks to it. */
export interface ServedSandbox {
  server: SandboxServer;
  /** The config dir of the pix under test (the sandbox's state file sits in it). */
  dir: string;
  stateFile: string;
  /** PIX_CONFIG_DIR, PIX_BASE_URL and a token: what an e2e run of the built binary needs. */
  env: Record<string, string>;
  /** The ids of this state's four keys (each state makes its own: src/sandbox/seed.ts). */
  keyIds: Record<'email' | 'evp' | 'cpf' | 'phone', string>;
}

/** The ids of a sandbox's keys by type, as its key list gives them (what `--key-id` takes). */
export async function sandboxKeyIds(url: string): Promise<ServedSandbox['keyIds']> {
  const response = await fetch(`${url}/api/financial/v1/pix/keys?limit=10`, {
    headers: { authorization: 'Bearer e2e-token' },
  });
  const page = (await response.json()) as { result: Array<{ id: string; keyType: string }> };
  const id = (type: string) => page.result.find((key) => key.keyType === type)!.id;
  return { email: id('EMAIL'), evp: id('EVP'), cpf: id('CPF'), phone: id('PHONE') };
}

export async function serveSandbox(): Promise<ServedSandbox> {
  const dir = tempConfigDir();
  const stateFile = join(dir, 'sandbox-state.json');
  const server = await startSandboxServer({ port: 0, stateFile });
  const keyIds = await sandboxKeyIds(server.url);
  // The look-up is the test's, not the pix under test's.
  server.requests.length = 0;
  return {
    server,
    dir,
    stateFile,
    env: { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'e2e-token' },
    keyIds,
  };
}

/** What `pix` run in-process against a served sandbox gave. */
export interface InProcessRun {
  code: number;
  stdout: string;
  bytes: Buffer;
  stderr: string;
}

/**
 * A sandbox served on loopback whose clock is the test's (`now()`), closed and removed after the test
 * (`deferred`, test/helpers/cleanup.ts), and `pix` run in-process against it with that clock, piped.
 */
export async function servedInProcess(
  deferred: Deferred,
  options: { now: () => Date; faults?: string },
): Promise<{
  dir: string;
  stateFile: string;
  server: SandboxServer;
  pix(args: string[]): Promise<InProcessRun>;
}> {
  const dir = deferred.dir();
  const stateFile = join(dir, 'sandbox.json');
  const server = await startSandboxServer({
    port: 0,
    stateFile,
    clock: options.now,
    ...(options.faults === undefined ? {} : { faults: options.faults }),
  });
  deferred.defer(() => server.close());
  const pix = async (args: string[]): Promise<InProcessRun> => {
    const test = createTestIO({ columns: 80 });
    const code = await run(args, {
      io: test.io,
      env: { PIX_CONFIG_DIR: dir, HOME: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'test-token-served' },
      clock: { now: options.now },
    });
    return { code, stdout: test.stdout(), bytes: test.stdoutBytes(), stderr: test.stderr() };
  };
  return { dir, stateFile, server, pix };
}
