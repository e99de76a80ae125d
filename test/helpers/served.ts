import { join } from 'node:path';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { tempConfigDir } from './cli.js';

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
