import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { deferEach } from '../helpers/cleanup.js';
import { runCli } from '../helpers/cli.js';

/**
 * Keys as people type them, refused when they could be two things (domain/pixkey.ts). The built binary
 * against `pix sandbox serve` on loopback, whose request log proves what was (not) sent. 11987654375 is
 * not a valid CPF but is a valid mobile number, which the sandbox's DICT gives an owner.
 */
const NOT_A_CPF = '11987654375';

const { defer, dir: tempDir } = deferEach();

async function sandbox() {
  const dir = tempDir();
  const server = await startSandboxServer({ port: 0, stateFile: join(dir, 'sandbox-state.json') });
  defer(() => server.close());
  const env = { PIX_CONFIG_DIR: dir, PIX_BASE_URL: server.url, PIX_TOKEN: 'e2e-keys' };
  const pix = (args: string[]) => runCli(args, { env, timeoutMs: 30_000 });
  const count = (endpoint: string) => server.requests.filter((r) => r.endpoint === endpoint).length;
  return { dir, pix, count };
}

describe('11 digits that are not a valid CPF are refused, in pay key and batch files alike', () => {
  it('pay key 11987654375 -y: exit 2 naming the CPF and how a phone is written; nothing consulted or sent', async () => {
    const { pix, count } = await sandbox();
    const result = await pix(['pay', 'key', NOT_A_CPF, '--amount', '5', '-y']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `error: KEY: "${NOT_A_CPF}" is not a valid CPF: check digits do not match; a phone is written +55… (+55${NOT_A_CPF})`,
    );
    expect(count('dict')).toBe(0);
    expect(count('transfer')).toBe(0);
  });

  it('--key-type phone pays the phone key; --key-type cpf refuses a key that is no CPF', async () => {
    const { pix, count } = await sandbox();
    const paid = await pix(['pay', 'key', NOT_A_CPF, '--key-type', 'phone', '--amount', '5', '-y', '--json']);
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout).consult.key).toBe(`+55${NOT_A_CPF}`);
    expect(count('transfer')).toBe(1);

    const wrong = await pix(['pay', 'key', 'ana@example.com', '--key-type', 'cpf', '--amount', '5', '-y']);
    expect(wrong.code, wrong.stderr).toBe(2);
    expect(wrong.stderr).toContain('error: KEY: "ana@example.com" is not a CPF');
    const unknown = await pix(['pay', 'key', NOT_A_CPF, '--key-type', 'celular', '--amount', '5', '-y']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'error: --key-type: "celular" is not a key type (cpf, cnpj, phone, email, evp)',
    );
    // The payee's consultation, and once the account's own key's (which bank account it is: accounts.ts).
    expect(count('dict')).toBe(2);
    expect(count('transfer')).toBe(1);
  });

  it('a batch file refuses the same value naming the line, and pays it as a phone when its key_type says so', async () => {
    const { dir, pix, count } = await sandbox();
    const refused = join(dir, 'refused.csv');
    writeFileSync(refused, `id,key,amount\nr1,${NOT_A_CPF},5\n`);
    const bad = await pix(['pay', 'batch', refused, '-y']);
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain(`line 2 (id r1): key: "${NOT_A_CPF}" is not a valid CPF`);
    expect(count('dict')).toBe(0);

    const typed = join(dir, 'typed.csv');
    writeFileSync(typed, `id,key,key_type,amount\nr1,${NOT_A_CPF},phone,5\n`);
    const paid = await pix(['pay', 'batch', typed, '-y', '-o', 'json']);
    expect(paid.code, paid.stderr).toBe(0);
    expect(count('transfer')).toBe(1);
  });
});
