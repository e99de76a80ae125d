import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { readBounded } from '../../src/api/body.js';
import type { SandboxAnswer, SandboxRequest } from '../../src/sandbox/answer.js';
import { IN_PROCESS_ORIGIN, inProcessTransport, startEmbeddedSandbox } from '../../src/sandbox/embedded.js';
import { defaultStateFile } from '../../src/sandbox/paths.js';
import { SYSTEM } from '../../src/system.js';
import { tempDir } from '../helpers/temp.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('pix-embedded-');
});

const REQUEST = {
  origin: IN_PROCESS_ORIGIN,
  method: 'GET' as const,
  headers: { Authorization: 'Bearer sandbox' },
  body: null,
  headersTimeout: 1_000,
  bodyTimeout: 1_000,
};

describe('startEmbeddedSandbox', () => {
  it('answers in-process over the default state file of PIX_CONFIG_DIR: no server, a .localhost origin', async () => {
    const sandbox = await startEmbeddedSandbox({ PIX_CONFIG_DIR: dir }, SYSTEM);
    try {
      expect(sandbox.baseUrl).toBe('http://sandbox.localhost');
      const response = await sandbox.transport!.request({
        ...REQUEST,
        path: '/api/financial/v1/pix/keys',
        signal: new AbortController().signal,
      });
      expect(response.statusCode).toBe(200);
      const text = await readBounded(response.body, response.headers['content-length']);
      expect(text.ok && (JSON.parse(text.text) as { total: number }).total).toBe(4);
      expect(existsSync(join(dir, 'sandbox-state.json'))).toBe(true);
    } finally {
      await sandbox.close();
    }
  });

  it('takes faults from PIX_SANDBOX_FAULTS and refuses a bad spec as a usage error', async () => {
    const sandbox = await startEmbeddedSandbox(
      { PIX_CONFIG_DIR: dir, PIX_SANDBOX_FAULTS: 'keys:429x1' },
      SYSTEM,
    );
    try {
      // Faults act on real connections: a loopback server, reached by the client's own undici pool.
      expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sandbox.transport).toBeUndefined();
      const res = await request(`${sandbox.baseUrl}/api/financial/v1/pix/keys`, {
        headers: { authorization: 'Bearer t' },
      });
      expect(res.statusCode).toBe(429);
      await res.body.dump();
    } finally {
      await sandbox.close();
    }
    await expect(
      startEmbeddedSandbox({ PIX_CONFIG_DIR: dir, PIX_SANDBOX_FAULTS: 'nope' }, SYSTEM),
    ).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/^PIX_SANDBOX_FAULTS: /),
    });
  });
});

/** An answer function the test controls: it records the requests and answers when told. */
function controlled() {
  const requests: SandboxRequest[] = [];
  let release: (answer: SandboxAnswer) => void = () => {};
  let finished = false;
  const answer = (request: SandboxRequest) => {
    requests.push(request);
    return new Promise<SandboxAnswer>((resolve) => {
      release = (answered) => {
        finished = true;
        resolve(answered);
      };
    });
  };
  return { requests, answer, release: (answer: SandboxAnswer) => release(answer), finished: () => finished };
}

const OK: SandboxAnswer = {
  status: 201,
  headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' },
  body: '{"name":"João"}',
};

describe('inProcessTransport', () => {
  it('hands the answer function the path, the method, lower-case headers and the body; answers with the status, headers and an exact content-length', async () => {
    const fake = controlled();
    const transport = inProcessTransport(fake.answer);
    const pending = transport.request({
      ...REQUEST,
      method: 'POST',
      path: '/x?a=1',
      body: '{"k":1}',
      signal: new AbortController().signal,
    });
    fake.release(OK);
    const response = await pending;
    expect(fake.requests).toEqual([
      { method: 'POST', url: '/x?a=1', headers: { authorization: 'Bearer sandbox' }, body: '{"k":1}' },
    ]);
    expect(response.statusCode).toBe(201);
    // "João" is 5 bytes in UTF-8: the length is of the bytes, not the characters.
    expect(response.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'retry-after': '1',
      'content-length': '16',
    });
    expect(await readBounded(response.body, response.headers['content-length'])).toEqual({
      ok: true,
      text: '{"name":"João"}',
      raw: Buffer.from('{"name":"João"}'),
    });
  });

  it('aborted before the call: rejects with the reason, and nothing is handed to the answer function', async () => {
    const fake = controlled();
    const controller = new AbortController();
    controller.abort('SIGINT');
    const transport = inProcessTransport(fake.answer);
    await expect(transport.request({ ...REQUEST, path: '/x', signal: controller.signal })).rejects.toBe(
      'SIGINT',
    );
    expect(fake.requests).toEqual([]);
  });

  it('aborted while answering: rejects at once as undici does (an AbortError), and settle() waits for the answer to end', async () => {
    const fake = controlled();
    const controller = new AbortController();
    const transport = inProcessTransport(fake.answer);
    const pending = transport.request({ ...REQUEST, path: '/x', signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    // The answer was handed over and goes on (a transfer may be applied): close waits for it.
    expect(fake.requests).toHaveLength(1);
    let settled = false;
    const settling = transport.settle().then(() => {
      settled = true;
    });
    // The event loop goes round (the answer's turn would have come): close still waits for the answer.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    fake.release(OK);
    await settling;
    expect(fake.finished()).toBe(true);
  });

  it('aborted after the answer: reading the body throws the reason', async () => {
    const controller = new AbortController();
    const transport = inProcessTransport(async () => ({ ...OK, body: 'x'.repeat(200_000) }));
    const response = await transport.request({ ...REQUEST, path: '/x', signal: controller.signal });
    const chunks: Uint8Array[] = [];
    await expect(
      (async () => {
        for await (const chunk of response.body) {
          chunks.push(chunk);
          controller.abort('SIGTERM');
        }
      })(),
    ).rejects.toBe('SIGTERM');
    expect(chunks).toHaveLength(1);
  });

  it('a big body goes through readBounded in pieces and is abandoned at its cap, declared or not', async () => {
    const body = 'y'.repeat(3 * 1024 * 1024);
    const transport = inProcessTransport(async () => ({ ...OK, body }));
    const signal = new AbortController().signal;
    const whole = await transport.request({ ...REQUEST, path: '/x', signal });
    const read = await readBounded(whole.body, whole.headers['content-length']);
    // Compared whole, but not with toEqual: a deep comparison of 3 MiB walks it byte by byte (seconds of CPU).
    expect(read.ok && read.text === body).toBe(true);
    expect(read.ok && Buffer.from(read.raw).equals(Buffer.from(body))).toBe(true);

    const declared = await transport.request({ ...REQUEST, path: '/x', signal });
    expect(await readBounded(declared.body, declared.headers['content-length'], 1024 * 1024)).toEqual({
      ok: false,
      bytes: body.length,
    });
    // Without the declared length, the reading stops at the first piece over the cap.
    const streamed = await transport.request({ ...REQUEST, path: '/x', signal });
    const result = await readBounded(streamed.body, undefined, 1024 * 1024);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.bytes).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024);
  });

  it('an answer function that throws rejects the request with its error', async () => {
    const transport = inProcessTransport(async () => {
      throw new Error('boom');
    });
    await expect(
      transport.request({ ...REQUEST, path: '/x', signal: new AbortController().signal }),
    ).rejects.toThrow('boom');
    await transport.settle();
  });
});

describe('defaultStateFile', () => {
  it('follows PIX_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config/pix', () => {
    expect(defaultStateFile({ PIX_CONFIG_DIR: '/x' })).toBe('/x/sandbox-state.json');
    expect(defaultStateFile({ XDG_CONFIG_HOME: '/xdg', HOME: '/h' })).toBe('/xdg/pix/sandbox-state.json');
    expect(defaultStateFile({ HOME: '/h' })).toBe('/h/.config/pix/sandbox-state.json');
  });
});
