// commander's lib/command.js requires node:child_process at load, only to spawn executable subcommands
// (`program.command('name', 'description')`), which pix has none of. In the bundle its `childProcess` is an
// object that requires the real module on its first property read: the same functions, loaded on use.
//
// Written for commander 14.0.3: command.js reads only `childProcess.spawn`, and only when it runs an
// executable subcommand.
import { writtenFor } from './written-for.mjs';

writtenFor('scripts/build/commander-child-process-lazy.mjs', 'commander', '14.0.3');

export const commanderChildProcessLazy = {
  name: 'commander-child-process-lazy',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /node_modules\/commander\/lib\/command\.js$/.test(args.importer.replaceAll('\\', '/'))
        ? { path: 'child_process', namespace: 'pix-lazy' }
        : undefined,
    );
    b.onLoad({ filter: /^child_process$/, namespace: 'pix-lazy' }, () => ({
      contents: `'use strict';
module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });
`,
      loader: 'js',
    }));
  },
};
