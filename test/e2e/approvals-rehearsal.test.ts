/**
 * docs/approvals.md "Rehearse your team on the sandbox", run as written: its bash block, with the built
 * binary on PATH as `pix` and a fresh HOME, against the `pix sandbox serve` it starts itself. Its people are
 * ssh-keygen keys, so it needs ssh-keygen (the approvals tests do too).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exampleBin, runProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const DOC = fileURLToPath(new URL('../../docs/approvals.md', import.meta.url));

/** The first ```bash block of the section. */
function rehearsal(): string {
  const doc = readFileSync(DOC, 'utf8');
  const section = /\n## Rehearse your team on the sandbox\n([\s\S]*?)(?=\n## |$)/.exec(doc)?.[1];
  if (section === undefined) throw new Error('docs/approvals.md has no "Rehearse your team on the sandbox"');
  const script = /```bash\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (script === undefined) throw new Error('the rehearsal section has no ```bash block');
  return script;
}

describe('rehearse your team on the sandbox (docs/approvals.md)', () => {
  it('runs as written: ad-hoc payments refused, the plan made, approved by two of finance and paid by CI', async () => {
    const home = tempDir('pix-rehearsal-');
    const bin = exampleBin(join(home, 'bin'));
    const ran = await runProcess('bash', ['-c', rehearsal()], {
      env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home, TMPDIR: home },
      cwd: home,
      timeoutMs: 50_000,
    });
    expect(ran.code, `stderr:\n${ran.stderr}\nstdout:\n${ran.stdout}`).toBe(0);
    expect(ran.stdout).toContain('ad-hoc payment refused: exit 8');
    expect(ran.stderr).toContain('plan status: approved: ready to execute');
    const report = ran.stdout.split('\n').filter((line) => /^f-00\d,/.test(line));
    expect(report.map((line) => line.split(',').slice(0, 3).join(','))).toEqual([
      'f-001,paid,1250.00',
      'f-002,paid,80.00',
    ]);
  });
});
