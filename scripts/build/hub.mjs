// Every module that some `import()` in src/ loads (an entry point of the split bundle) imports src/hub.ts
// first, except program.ts, which `pix --help` loads: see hub.ts for why. The targets are read from src/'s
// `import('./…')` calls. Adding an import of a module with no effects when loaded changes only how esbuild
// lays out the chunks. This touches pix's modules only, so it names no dependency version.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sources } from './sources.mjs';
import { root } from './written-for.mjs';

const hubPath = join(root, 'src', 'hub.ts');

function dynamicTargets() {
  const targets = new Set();
  for (const { file, text } of sources) {
    for (const match of text.matchAll(/import\((['"])(\.{1,2}\/[^'"]+)\1\)/g)) {
      targets.add(join(dirname(file), match[2].replace(/\.js$/, '.ts')));
    }
  }
  targets.delete(join(root, 'src', 'program.ts'));
  // A module of the hub importing the hub would be a cycle.
  for (const match of readFileSync(hubPath, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
    targets.delete(join(root, 'src', match[1].replace(/\.js$/, '.ts')));
  }
  return targets;
}

export function hubInjection() {
  const targets = dynamicTargets();
  return {
    name: 'hub',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) =>
        targets.has(args.path)
          ? {
              contents: `import ${JSON.stringify(hubPath)};\n${readFileSync(args.path, 'utf8')}`,
              loader: 'ts',
            }
          : undefined,
      );
    },
  };
}
