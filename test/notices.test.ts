import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type BundledPackage, bundledPackages, NOTICES_FILE, noticesText } from '../scripts/notices.mjs';

const root = join(import.meta.dirname, '..');
let packages: BundledPackage[];
let notices: string;

beforeAll(async () => {
  packages = await bundledPackages();
  notices = readFileSync(NOTICES_FILE, 'utf8');
});

describe('THIRD_PARTY_NOTICES.md: every package bundled in dist/, with its version and license', () => {
  it('finds the bundled packages from the build’s entry points (the list is not vacuous)', () => {
    const names = packages.map(({ name }) => name);
    for (const name of ['commander', 'zod', 'undici', 'qrcode', 'get-east-asian-width']) {
      expect(names).toContain(name);
    }
  });

  it('lists each bundled package at the version bundled, with its license text', () => {
    const missing = packages
      .filter(({ name, version }) => !notices.includes(`\n## ${name} ${version}\n`))
      .map(({ name, version }) => `${name} ${version}`);
    expect(missing, 'run node scripts/notices.mjs').toEqual([]);
    for (const { name, licenseFiles } of packages) {
      expect(licenseFiles.length, name).toBeGreaterThan(0);
      for (const file of licenseFiles) {
        expect(notices, file).toContain(
          readFileSync(join(root, file), 'utf8').replace(/\r\n/g, '\n').trimEnd(),
        );
      }
    }
  });

  it('is what scripts/notices.mjs writes (up to date), and is in the package ("files")', () => {
    expect(notices, 'run node scripts/notices.mjs').toBe(noticesText(packages));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('THIRD_PARTY_NOTICES.md');
  });
});
