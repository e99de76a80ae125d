/**
 * pix's own files through the built binary, as separate processes racing each other would use them:
 * 30 parallel `config set` on 30 profiles, a logout racing a token being cached, the environment's client
 * credentials minting once for a CI job's 20 commands, symbolic links and modes, Ctrl-C at login's prompts.
 */
import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli, runProcess, tempConfigDir } from '../helpers/cli.js';
import { runOnPty } from '../helpers/terminal.js';

const SECRET = 'cs-e2e-7d41c9a0b2f6e8135a';

const mode = (path: string) => statSync(path).mode & 0o777;

/**
 * A loopback API: POST …/auth/token mints `minted-N` (after `holdMint` resolves, when set); anything else
 * is an empty statement. Counts the mints.
 */
async function startApi() {
  let mints = 0;
  let holdMint: Promise<void> | undefined;
  let mintSeen: () => void = () => {};
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', async () => {
      const json = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && req.url?.endsWith('/auth/token')) {
        mints++;
        mintSeen();
        await holdMint;
        json({ clientToken: `minted-${mints}`, expiresIn: 900 });
      } else {
        json({ total: 0, results: [] });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    mints: () => mints,
    /** The next mint waits for the returned release; `seen` resolves when it arrived. */
    hold() {
      let release: () => void = () => {};
      holdMint = new Promise((resolve) => {
        release = resolve;
      });
      const seen = new Promise<void>((resolve) => {
        mintSeen = resolve;
      });
      return { seen, release };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let api: Awaited<ReturnType<typeof startApi>> | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('config files, built binary', () => {
  it('30 parallel `config set max-amount N --profile pN` under umask 000 keep all 30; dir 0700, file 0600', async () => {
    const dir = join(tempConfigDir(), 'nested', 'pix');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        runProcess(
          '/bin/sh',
          [
            '-c',
            'umask 000; exec "$@"',
            'sh',
            process.execPath,
            BIN,
            'config',
            'set',
            'max-amount',
            `${n + 1}`,
            '--profile',
            `p${n}`,
          ],
          { env: { PATH: process.env.PATH ?? '', PIX_CONFIG_DIR: dir }, timeoutMs: 60_000 },
        ),
      ),
    );
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
    const profiles = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles;
    expect(Object.keys(profiles)).toHaveLength(30);
    for (let n = 0; n < 30; n++) expect(profiles[`p${n}`]).toEqual({ 'max-amount': `${n + 1}.00` });
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
    expect(existsSync(join(dir, 'config.json.lock'))).toBe(false);
  }, 90_000);

  it('a logout while a read command is minting: the secret stays gone, no token is cached', async () => {
    api = await startApi();
    const dir = tempConfigDir();
    const path = join(dir, 'config.json');
    writeFileSync(
      path,
      JSON.stringify({
        currentProfile: 'prod',
        profiles: {
          prod: {
            'base-url': api.url,
            tokenBaseUrl: api.url,
            'client-key': 'ck',
            clientSecret: SECRET,
            'max-amount': '100.00',
          },
        },
      }),
      { mode: 0o600 },
    );
    const env = { PIX_CONFIG_DIR: dir };
    const { seen, release } = api.hold();
    const statement = runCli(['statement', '--json'], { env });
    await seen; // the statement has read the profile and is waiting for its token
    const logout = await runCli(['logout'], { env });
    expect(logout, logout.stderr).toMatchObject({ code: 0 });
    release();
    const read = await statement;
    expect(read.code, read.stderr).toBe(0);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('minted-');
    // The settings stay (the client key is a setting, not a secret); the credentials are gone.
    expect(JSON.parse(text).profiles.prod).toEqual({
      'base-url': api.url,
      'client-key': 'ck',
      'max-amount': '100.00',
    });

    // Then the current profile has no credentials: exit 3, and the way back to the sandbox is offered.
    const after = await runCli(['statement'], { env });
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('`pix profile use sandbox` goes back to the built-in sandbox');
  }, 30_000);

  it("a CI job's 20 commands with PIX_CLIENT_KEY/PIX_CLIENT_SECRET mint once; the cache is 0600 and holds no secret", async () => {
    api = await startApi();
    const dir = join(tempConfigDir(), 'pix');
    const env = {
      PIX_CONFIG_DIR: dir,
      PIX_BASE_URL: api.url,
      PIX_CLIENT_KEY: 'ci-key',
      PIX_CLIENT_SECRET: SECRET,
    };
    for (let n = 0; n < 20; n++) {
      const result = await runCli(['statement', '--json'], { env });
      expect(result.code, result.stderr).toBe(0);
    }
    expect(api.mints()).toBe(1);
    const cache = join(dir, 'token-cache.json');
    expect(mode(dir)).toBe(0o700);
    expect(mode(cache)).toBe(0o600);
    const text = readFileSync(cache, 'utf8');
    expect(text).toContain('minted-1');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('ci-key');
    expect(existsSync(join(dir, 'config.json'))).toBe(false); // no profile was made for it
    // Another secret for the same key is another entry: it mints its own.
    const rotated = await runCli(['statement', '--json'], { env: { ...env, PIX_CLIENT_SECRET: 'rotated' } });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(api.mints()).toBe(2);
  }, 60_000);

  it('a config.json that is a symbolic link is refused in one line; its target is untouched', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'elsewhere.json');
    const planted = JSON.stringify({ profiles: { x: { 'base-url': 'https://evil.test' } } });
    writeFileSync(target, planted);
    symlinkSync(target, join(dir, 'config.json'));
    for (const args of [
      ['config', 'list'],
      ['config', 'set', 'max-amount', '5'],
    ]) {
      const result = await runCli(args, { env: { PIX_CONFIG_DIR: dir } });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: .*config\.json.*symbolic link/);
      expect(result.stderr).not.toMatch(/bug in pix|\n\s+at /);
    }
    expect(readFileSync(target, 'utf8')).toBe(planted);
  });

  it("a .localhost base URL (plain http) reaches 127.0.0.1 by pix's own lookup, not DNS", async () => {
    api = await startApi();
    const port = new URL(api.url).port;
    const result = await runCli(['statement', '--json'], {
      env: {
        PIX_CONFIG_DIR: tempConfigDir(),
        PIX_BASE_URL: `http://pix-e2e-no-such-name.localhost:${port}`,
        PIX_TOKEN: 'tok-localhost-e2e',
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ results: [] });
  });

  it('HOME=/proc/self ends at once with a named error, not a spin', async () => {
    const result = await runCli(['config', 'set', 'time-zone', 'UTC'], {
      env: { HOME: '/proc/self' },
      timeoutMs: 10_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .*\/proc\/self\/\.config/);
    expect(result.stderr).toContain('PIX_CONFIG_DIR');
    expect(result.stderr).not.toContain('bug in pix');
  });
});

describe('Ctrl-C at login prompts, on a terminal', () => {
  for (const [args, prompt] of [
    [['login', '--with-token', '--base-url', 'https://api.example.test'], 'Token: '],
    [['login', '--client-key', 'ck', '--base-url', 'https://api.example.test'], 'Client secret: '],
  ] as const) {
    it(`at "${prompt.trim()}" exits 130 quietly and stores nothing`, async () => {
      const dir = tempConfigDir();
      const result = await runOnPty([...args], {
        env: { PIX_CONFIG_DIR: dir },
        steps: [{ after: prompt, send: '\u0003' }],
      });
      expect(result.code).toBe(130);
      // Quietly: the prompt and nothing else (the terminal itself echoes ^C when the key beats raw mode).
      expect(result.lines.map((line) => line.trimEnd().replace(/ \^C$/, ''))).toEqual([prompt.trim()]);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    });
  }

  it('at a y/N question (the terminal in cooked mode turns Ctrl-C into SIGINT) exits 130, and no "Sent"', async () => {
    const result = await runOnPty(['pay', 'key', 'loja@sandbox.pix.local', '--amount', '1'], {
      env: { PIX_CONFIG_DIR: tempConfigDir() },
      steps: [{ after: '[y/N]', send: '\u0003' }],
    });
    expect(result.code).toBe(130);
    expect(result.lines.join('\n')).not.toMatch(/Sent|bug in pix/);
  });
});
