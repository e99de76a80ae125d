import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/errors.js';
import { manPages } from '../src/manpages.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const pages = await manPages('0.0.0-test', readme);
const page = (name: string) => {
  const text = pages.get(name);
  if (text === undefined) throw new Error(`no page ${name}`);
  return text;
};

describe('man pages: what a page is for, beyond --help', () => {
  it('pix.1 explains every exit code, the files pix keeps and its environment', () => {
    const pix = page('pix.1');
    const status = pix.split('.SH EXIT STATUS\n')[1]!.split('\n.SH ')[0]!;
    for (const [kind, code] of Object.entries(EXIT_CODES)) {
      if (kind === 'interrupted') continue;
      expect(status, kind).toContain(`\n${code}  ${kind}\n`);
    }
    const files = pix.split('.SH FILES\n')[1]!.split('\n.SH ')[0]!;
    for (const file of ['config.json', 'journal.jsonl', 'sandbox-state.json']) expect(files).toContain(file);
    expect(pix.split('.SH ENVIRONMENT\n')[1]).toContain('PIX_TOKEN');
  });

  it("a command's page explains its own exit codes", () => {
    const status = page('pix-statement-list.1').split('.SH EXIT STATUS\n')[1]!.split('\n.SH ')[0]!;
    expect(status).toContain('not_found');
    expect(status).not.toContain('unknown_outcome');
  });

  it("a noun's page lists its default verb's flags; every page has its README section with examples, the environment and the files", () => {
    const statement = page('pix-statement.1');
    expect(statement).toContain('Options of `pix statement list`, which `pix statement` runs:');
    expect(statement).toMatch(/--from <when>/);
    expect(page('pix-keys.1')).toContain('Options of `pix keys list`, which `pix keys` runs:');
    const details = page('pix-statement-summary.1')
      .split('.SH DETAILS AND EXAMPLES\n')[1]!
      .split('\n.SH ')[0]!;
    expect(details).toMatch(/\.nf\npix statement summary/);
    const batch = page('pix-pay-batch.1').split('.SH DETAILS AND EXAMPLES\n')[1]!.split('\n.SH ')[0]!;
    // A console block keeps what the command printed.
    expect(batch).toContain('batch: 50 paid;');
    for (const name of ['pix-statement-list.1', 'pix-pay-key.1', 'pix-plan-execute.1']) {
      expect(page(name).split('.SH ENVIRONMENT\n')[1], name).toContain('PIX_TOKEN');
      expect(page(name).split('.SH FILES\n')[1], name).toContain('journal.jsonl');
      expect(page(name), name).toContain('.SH DETAILS AND EXAMPLES');
    }
  });

  it('the pages of payments say how a key is read and what guards a payment', () => {
    const key = page('pix-pay-key.1');
    expect(key).toContain('.SH HOW KEYS ARE READ');
    expect(key.split('.SH HOW KEYS ARE READ\n')[1]).toMatch(/11 digits/);
    expect(key).toContain('.SH GUARDS');
    expect(key.split('.SH GUARDS\n')[1]).toMatch(/duplicate/);
    expect(page('pix-keys-show.1')).toContain('.SH HOW KEYS ARE READ');
    expect(page('pix-pay-batch.1')).toContain('.SH GUARDS');
  });
});
