/**
 * The embedded sandbox: the sandbox server run in-process, on a free loopback port, over the default
 * state file, for the one command that needs it (the built-in `sandbox` profile).
 * Faults come from PIX_SANDBOX_FAULTS (same SPEC as `pix sandbox serve --faults`).
 */
import type { Env } from '../deps.js';
import { usageError } from '../errors.js';
import { FaultSpecError } from './faults.js';
import { defaultStateFile } from './paths.js';
import { startSandboxServer } from './server.js';

export interface EmbeddedSandbox {
  baseUrl: string;
  close(): Promise<void>;
}

export async function startEmbeddedSandbox(env: Env): Promise<EmbeddedSandbox> {
  const faults = env.PIX_SANDBOX_FAULTS;
  try {
    const server = await startSandboxServer({
      port: 0,
      stateFile: defaultStateFile(env),
      ...(faults ? { faults } : {}),
    });
    return { baseUrl: server.url, close: () => server.close() };
  } catch (error) {
    // The SPEC is parsed before the server listens.
    if (error instanceof FaultSpecError) throw usageError('PIX_SANDBOX_FAULTS', error.message);
    throw error;
  }
}
