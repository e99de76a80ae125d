#!/usr/bin/env node
// THIRD_PARTY_NOTICES.md: the packages whose code dist/ bundles, each with its version and its license text.
// A bundle carries no package's LICENSE file, and esbuild drops the license comments (legalComments: 'none' in
// scripts/build.mjs), so the notices the MIT and similar licenses ask to keep with the code are kept here
// instead, in the tarball ("files" in package.json).
//
//   node scripts/notices.mjs          write THIRD_PARTY_NOTICES.md (after adding, removing or updating a package)
//   node scripts/notices.mjs --check  exit 1 when the file is not what would be written
//
// Which packages: every file under node_modules/ that esbuild resolves from the build's entry points (its
// metafile), bundled here without the build's plugins, which only change how pix's own modules are found and
// laid out. test/notices.test.ts fails when a bundled package or version is
// missing from the file.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
export const NOTICES_FILE = join(root, 'THIRD_PARTY_NOTICES.md');
/** The entry points of scripts/build.mjs. */
const ENTRY_POINTS = ['src/main.ts', 'src/version.ts'];
const LICENSE_FILE = /^(licen[cs]e|copying)([.-].*)?$/i;

/**
 * The packages bundled from node_modules, sorted by name then path: name, version, license (package.json's
 * field), the package's folder (relative to the project) and its license files (the package's own first,
 * then any in the folders the bundled files come from, as undici keeps one for its fetch).
 */
export async function bundledPackages() {
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: ENTRY_POINTS,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: 'notices-not-written',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  /** Package folder (relative, with /) → the folders its bundled files are in. */
  const folders = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const path = input.replaceAll(sep, '/');
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (match === null) continue;
    const set = folders.get(match[1]) ?? new Set();
    set.add(dirname(path));
    folders.set(match[1], set);
  }
  const packages = [...folders].map(([dir, used]) => {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const licenseFiles = licenseFilesIn(dir);
    // Folders between a bundled file and the package's root, nearest the root first.
    const between = new Set();
    for (const folder of used) {
      for (let at = folder; at.length > dir.length; at = dirname(at)) between.add(at);
    }
    for (const folder of [...between].sort()) licenseFiles.push(...licenseFilesIn(folder));
    // A package whose tarball ships no license file (postgres: the Unlicense, named in its package.json):
    // its text, as the project publishes it, kept beside this script.
    if (licenseFiles.length === 0) licenseFiles.push(...shippedElsewhere(manifest.name));
    return {
      name: manifest.name,
      version: manifest.version,
      license: licenseOf(manifest),
      homepage: homepageOf(manifest),
      dir,
      licenseFiles,
    };
  });
  return packages.sort((a, b) => a.name.localeCompare(b.name) || a.dir.localeCompare(b.dir));
}

function shippedElsewhere(name) {
  const dir = 'scripts/notices';
  return readdirSync(join(root, dir))
    .filter(
      (file) =>
        file.startsWith(`${name}-`) && LICENSE_FILE.test(file.slice(name.length + 1).replace(/^UN/, '')),
    )
    .map((file) => `${dir}/${file}`);
}

function licenseFilesIn(dir) {
  const absolute = join(root, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { withFileTypes: true })
    .filter((entry) => entry.isFile() && LICENSE_FILE.test(entry.name))
    .map((entry) => `${dir}/${entry.name}`)
    .sort();
}

function licenseOf(manifest) {
  if (typeof manifest.license === 'string') return manifest.license;
  if (manifest.license?.type) return manifest.license.type;
  return 'see the license text';
}

function homepageOf(manifest) {
  const repository = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  if (repository) {
    const url = repository.replace(/^git\+/, '').replace(/\.git$/, '');
    return /^[\w.-]+\/[\w.-]+$/.test(url) ? `https://github.com/${url}` : url.replace(/^git:/, 'https:');
  }
  return manifest.homepage ?? '';
}

/** A fence longer than any run of backticks in `text`. */
function fenceFor(text) {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  return '`'.repeat(longest + 1);
}

/** The text of THIRD_PARTY_NOTICES.md for `packages` (as bundledPackages gives them). */
export function noticesText(packages) {
  const lines = [
    '# Third-party notices',
    '',
    "pix's `dist/` bundles code of the packages below (esbuild; a bundle keeps neither their license files nor",
    'their license comments). Each is listed with the version bundled and its license, as the package ships it.',
    'Generated by `node scripts/notices.mjs`; do not edit by hand.',
    '',
    '| Package | Version | License |',
    '| --- | --- | --- |',
    ...packages.map(({ name, version, license }) => `| ${name} | ${version} | ${license} |`),
  ];
  for (const { name, version, license, homepage, licenseFiles } of packages) {
    lines.push('', `## ${name} ${version}`, '', `License: ${license}${homepage ? ` · ${homepage}` : ''}`);
    if (licenseFiles.length === 0) lines.push('', 'The package ships no license file.');
    for (const file of licenseFiles) {
      const text = readFileSync(join(root, file), 'utf8').replace(/\r\n/g, '\n').trimEnd();
      const fence = fenceFor(text);
      lines.push('', `${file}:`, '', fence, text, fence);
    }
  }
  // What no package.json declares: jq.wasm (copied beside the chunks for --jq) is jq and Oniguruma compiled
  // by jq-wasm, whose own license is listed above; their notices come from their repositories.
  const wasm = readFileSync(join(root, 'scripts', 'notices', 'jq-wasm-contents.txt'), 'utf8').trimEnd();
  const fence = fenceFor(wasm);
  lines.push(
    '',
    '## jq 1.8.2 and Oniguruma, inside dist/jq.wasm',
    '',
    'License: MIT (jq), BSD-2-Clause (Oniguruma), and the notices jq carries',
    '',
    fence,
    wasm,
    fence,
  );
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = noticesText(await bundledPackages());
  if (process.argv.includes('--check')) {
    const current = existsSync(NOTICES_FILE) ? readFileSync(NOTICES_FILE, 'utf8') : '';
    if (current !== text) {
      process.stderr.write('THIRD_PARTY_NOTICES.md is out of date: run node scripts/notices.mjs\n');
      process.exit(1);
    }
  } else {
    writeFileSync(NOTICES_FILE, text);
  }
}
