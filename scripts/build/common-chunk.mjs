// The common chunk (src/common-chunk.ts): every module that some `import()` in src/ loads — an entry point of
// the split bundle — imports src/common-chunk.ts first, so esbuild, which splits code by the set of entry
// points that reach a module, puts the small modules most commands share in one file. This uses esbuild's
// documented plugin API (onLoad, returning the module's text with one import added) on pix's own modules only;
// an import of a module with no effects when loaded changes nothing but the layout of the chunks. The targets
// are read from src/'s `import('./…')` calls.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { root } from './root.mjs';
import { sources } from './sources.mjs';

const commonPath = join(root, 'src', 'common-chunk.ts');

function dynamicTargets() {
  const targets = new Set();
  for (const { file, text } of sources) {
    for (const match of text.matchAll(/import\((['"])(\.{1,2}\/[^'"]+)\1\)/g)) {
      targets.add(join(dirname(file), match[2].replace(/\.js$/, '.ts')));
    }
  }
  // A module of the common chunk importing it would be a cycle.
  for (const match of readFileSync(commonPath, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
    targets.delete(join(root, 'src', match[1].replace(/\.js$/, '.ts')));
  }
  return targets;
}

export function commonChunk() {
  const targets = dynamicTargets();
  return {
    name: 'common-chunk',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) =>
        targets.has(args.path)
          ? {
              contents: `import ${JSON.stringify(commonPath)};\n${readFileSync(args.path, 'utf8')}`,
              loader: 'ts',
            }
          : undefined,
      );
    },
  };
}
