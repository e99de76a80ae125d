// zod's `z.locales` namespace bundles its error messages in ~50 languages (≈ 400 kB), which V8 would parse
// whenever a command loads zod. pix uses English only (registered by src/zod.ts from zod/v4/locales/en.js),
// never `z.locales.*`, so in the bundle that namespace holds English only. The build fails if src/ names
// `locales.` anywhere (a use of the namespace would find only `en`).
//
// Written for zod 4.6.7: v4/locales/index.js is that namespace, and nothing else of zod imports it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { root, writtenFor } from './written-for.mjs';

writtenFor('scripts/build/zod-locales-english-only.mjs', 'zod', '4.6.7');

const src = join(root, 'src');
for (const entry of readdirSync(src, { recursive: true }).map(String)) {
  if (!entry.endsWith('.ts')) continue;
  if (/\blocales\s*\.|\blocales\s*\[/.test(readFileSync(join(src, entry), 'utf8'))) {
    throw new Error(
      `src/${entry} uses zod's locales namespace, which the build makes English only (scripts/build/zod-locales-english-only.mjs)`,
    );
  }
}

export const zodLocalesEnglishOnly = {
  name: 'zod-locales-english-only',
  setup(b) {
    b.onLoad({ filter: /node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};
