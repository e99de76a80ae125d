/**
 * The README cites "contract §N" and "API §N.M": each must name a section of the document shipped in
 * docs/, so a reader can follow it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const README = read('README.md');

/** Section numbers of a markdown document: `## 7. Money safety` → 7, `### 4.3 POST …` → 4.3. */
function sections(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const match of markdown.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.? /gm)) found.add(match[1]!);
  return found;
}

/** The sections the README cites with `prefix §N`, an item (§7.3) resolved to its section (7). */
function cited(prefix: string): string[] {
  return [...README.matchAll(new RegExp(`${prefix} §(\\d+(?:\\.\\d+)*)`, 'g'))].map((match) => match[1]!);
}

describe('the documents the README cites are in docs/', () => {
  it.each([
    ['contract', 'docs/cli-contract.md'],
    ['API', 'docs/api.md'],
  ])('every "%s §N" names a section of %s', (prefix, path) => {
    const known = sections(read(path));
    const refs = cited(prefix);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const section = known.has(ref) ? ref : ref.split('.')[0]!;
      expect(known, `${prefix} §${ref}`).toContain(section);
    }
    expect(README).toContain(`](${path})`);
  });
});
