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
}

export async function serveSandbox(): Promise<ServedSandbox> {
  const dir = tempConfigDir();
  const stateFile = join(dir, 'sandbox-state.json');
  const server = await startSandboxServer({ port: 0, stateFile });
  return {
    server,
    dir,
    stateFile,
    env: { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'e2e-token' },
  };
}
