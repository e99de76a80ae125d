import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';

const TOKEN = 'tok_e2e_3f9c1a7b5d2e8f604c1a';

/** The README's login example, through the built binary: `echo TOKEN | pix login --with-token --base-url https://api.example.test`. */
describe('login --with-token, built binary', () => {
  it('stores the token in a 0600 file, shows it masked, and prints it nowhere', async () => {
    const dir = tempConfigDir();
    const env = { PIX_CONFIG_DIR: dir };
    const login = await runCli(['login', '--with-token', '--base-url', 'https://api.example.test'], {
      env,
      stdin: `${TOKEN}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain(TOKEN);

    // --offline: the test has no network, and the check against the server is not what is shown here.
    const status = await runCli(['auth', 'status', '--offline'], { env });
    const statusJson = await runCli(['auth', 'status', '--offline', '--json'], { env });
    const verbose = await runCli(['auth', 'status', '--offline', '--verbose'], { env });
    for (const result of [status, statusJson, verbose]) expect(result.code, result.stderr).toBe(0);
    expect(status.stdout).toContain('https://api.example.test');
    expect(status.stdout).toMatch(/token/i);
    expect(JSON.stringify(JSON.parse(statusJson.stdout))).toMatch(/tok_/);

    for (const result of [login, status, statusJson, verbose]) {
      expect(result.stdout).not.toContain(TOKEN);
      expect(result.stderr).not.toContain(TOKEN);
    }
  });
});
