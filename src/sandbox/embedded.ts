/**
 * The embedded sandbox: the sandbox run in-process over the default state file, for the one command that
 * needs it (the built-in `sandbox` profile).
 *
 * It answers in-process: the API client's requests go to answerRequest (answer.ts) through
 * `inProcessTransport`, with no socket, no HTTP parsing, and neither node:http nor undici loaded. With
 * PIX_SANDBOX_FAULTS (same SPEC as `pix sandbox serve --faults`) it listens on a free loopback port
 * instead, because faults such as `reset` and `timeout` act on a real connection. With PIX_SANDBOX_SERVER
 * (a SPEC of serversettings.ts, the settings of `pix sandbox serve`) it is another server the API document
 * allows: a page maximum, a clock of its own, other spellings.
 */
import type { ApiTransport, TransportRequest, TransportResponse } from '../api/transport.js';
import type { Env } from '../context.js';
import { usageError } from '../errors.js';
import type { LockHost } from '../storage/locks.js';
import { answerRequest, type SandboxAnswer, type SandboxRequest } from './answer.js';
import { FaultSpecError } from './faults.js';
import { defaultStateFile } from './paths.js';
import {
  DEFAULT_SERVER,
  parseServerSpec,
  type ServerSettings,
  ServerSpecError,
  skewedClock,
} from './serversettings.js';
import { StateStore } from './store.js';

/**
 * The origin of in-process requests, as --verbose, the journal and the pay confirmation show it. A
 * `.localhost` name (RFC 6761: never resolved outside this machine) and no port, because nothing listens:
 * the requests never leave the process.
 */
export const IN_PROCESS_ORIGIN = 'http://sandbox.localhost';

export interface EmbeddedSandbox {
  baseUrl: string;
  /** Where the API client sends its requests when the sandbox answers in-process; else undefined. */
  transport: ApiTransport | undefined;
  /** Stops the server, or waits for the in-process answers still being made (their state writes). */
  close(): Promise<void>;
}

/** Bodies are handed over in pieces of this size, as a socket would (readBounded stops at its cap). */
const CHUNK_BYTES = 64 * 1024;

/** What undici rejects with when a request's signal aborts: the signal's reason. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function bodyOf(bytes: Buffer, signal: AbortSignal): TransportResponse['body'] {
  let destroyed = false;
  return {
    async *[Symbol.asyncIterator]() {
      for (let at = 0; at < bytes.length && !destroyed; at += CHUNK_BYTES) {
        if (signal.aborted) throw abortReason(signal);
        yield bytes.subarray(at, at + CHUNK_BYTES);
      }
    },
    destroy() {
      destroyed = true;
    },
  };
}

/**
 * An API transport that hands each request to `answer` in-process. Its signal is honoured as undici
 * honours it: aborted before the answer, the request rejects with the signal's reason (the client says
 * "interrupted" or "timed out", and a write handed over stays an unknown outcome: the answer may still
 * change the state); aborted while the body is read, the read throws it. `settle()` resolves once every
 * answer begun has ended.
 */
export function inProcessTransport(
  answer: (request: SandboxRequest) => Promise<SandboxAnswer>,
): ApiTransport & { settle(): Promise<void> } {
  const pending = new Set<Promise<unknown>>();
  return {
    request({ method, path, headers, body, signal }: TransportRequest) {
      if (signal.aborted) return Promise.reject(abortReason(signal));
      const lower: Record<string, string> = {};
      for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
      const answering = answer({ method, url: path, headers: lower, body: body ?? '' });
      const settled: Promise<unknown> = answering.then(
        () => pending.delete(settled),
        () => pending.delete(settled),
      );
      pending.add(settled);
      return new Promise((resolve, reject) => {
        const onAbort = () => reject(abortReason(signal));
        signal.addEventListener('abort', onAbort, { once: true });
        answering.then(
          (answered) => {
            // As over a socket, the answer arrives in a later turn of the event loop. Without that, an
            // export whose every answer is ready at once ran to its end in microtasks, and Ctrl-C, timers
            // and the writer's I/O waited for it (a signal meanwhile still rejects, through onAbort).
            setImmediate(() => {
              signal.removeEventListener('abort', onAbort);
              const bytes =
                typeof answered.body === 'string'
                  ? Buffer.from(answered.body, 'utf8')
                  : Buffer.from(answered.body);
              resolve({
                statusCode: answered.status,
                headers: { ...answered.headers, 'content-length': String(bytes.length) },
                body: bodyOf(bytes, signal),
              });
            });
          },
          (error: unknown) => {
            signal.removeEventListener('abort', onAbort);
            reject(error);
          },
        );
      });
    },
    async settle() {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}

/** PIX_SANDBOX_SERVER: the server the embedded sandbox is (serversettings.ts); a bad SPEC is exit 2. */
function serverOf(env: Env): ServerSettings {
  const spec = env.PIX_SANDBOX_SERVER;
  if (!spec) return DEFAULT_SERVER;
  try {
    return parseServerSpec(spec);
  } catch (error) {
    if (error instanceof ServerSpecError) {
      throw usageError(
        'PIX_SANDBOX_SERVER',
        error.message,
        'e.g. PIX_SANDBOX_SERVER=max-page=100,clock-skew=30s',
      );
    }
    throw error;
  }
}

/** `host`: the clock, randomness and pids of the command that starts it (storage/locks.ts LockHost). */
export async function startEmbeddedSandbox(env: Env, host: LockHost): Promise<EmbeddedSandbox> {
  const faults = env.PIX_SANDBOX_FAULTS;
  const settings = serverOf(env);
  if (!faults) {
    const clock = skewedClock(() => host.clock.now(), settings);
    const store = new StateStore(defaultStateFile(env), { host, clock });
    const transport = inProcessTransport((request) => answerRequest(store, request, settings));
    return { baseUrl: IN_PROCESS_ORIGIN, transport, close: () => transport.settle() };
  }
  try {
    // Loaded only here: node:http is what the in-process sandbox spares a command.
    const { startSandboxServer } = await import('./server.js');
    const server = await startSandboxServer({
      port: 0,
      stateFile: defaultStateFile(env),
      faults,
      host,
      settings,
    });
    return { baseUrl: server.url, transport: undefined, close: () => server.close() };
  } catch (error) {
    // The SPEC is parsed before the server listens.
    if (error instanceof FaultSpecError) throw usageError('PIX_SANDBOX_FAULTS', error.message);
    throw error;
  }
}
