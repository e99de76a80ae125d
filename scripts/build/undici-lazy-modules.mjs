// Three undici modules that run only in cases pix never meets stay in node_modules (undici is a dependency),
// required from there on first use, if ever. In the bundle they would be code every API command parses for
// nothing:
// - the HTTP/2 client (dispatcher/client-h2.js, ~26 kB), required at the top of dispatcher/client.js; it runs
//   only when ALPN selects h2, which pix never offers (allowH2 is off by default), and requiring it loads
//   node:http2, and so tls and crypto (≈ 25 ms here). In the bundle `connectH2` is a function that requires
//   the real one on its first call and hands it the same arguments;
// - llhttp's non-SIMD WebAssembly (used only where SIMD is unavailable) and fetch's body extractor (used only
//   for FormData request bodies; it pulls in fetch, webidl and a multipart parser): ~165 kB, left as
//   require() calls of the same modules from node_modules.
// Nothing here changes what undici's code does; only where a module is read from, and when.
//
// Written for undici 7.30.2: client-h2.js exports one function (connectH2), and these are the only requires
// of the three modules from client.js, client-h1.js and client-h2.js.
import { writtenFor } from './written-for.mjs';

writtenFor('scripts/build/undici-lazy-modules.mjs', 'undici', '7.30.2');

const importer = (args) => args.importer.replaceAll('\\', '/');

export const undiciHttp2Lazy = {
  name: 'undici-http2-client-lazy',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /node_modules\/undici\/lib\/dispatcher\/client\.js$/.test(importer(args))
        ? { path: 'client-h2', namespace: 'pix-lazy' }
        : undefined,
    );
    b.onResolve({ filter: /^undici\/lib\/dispatcher\/client-h2\.js$/, namespace: 'pix-lazy' }, (args) => ({
      path: args.path,
      external: true,
    }));
    b.onLoad({ filter: /^client-h2$/, namespace: 'pix-lazy' }, () => ({
      contents: `'use strict';
module.exports = (...args) => require('undici/lib/dispatcher/client-h2.js')(...args);
`,
      loader: 'js',
    }));
  },
};

export const undiciRareModules = {
  name: 'undici-rare-modules-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/(llhttp\/llhttp-wasm|web\/fetch\/body)\.js$/ }, (args) =>
      /node_modules\/undici\/lib\/dispatcher\/client-h[12]\.js$/.test(importer(args))
        ? { path: `undici/lib/${args.path.slice(3)}`, external: true }
        : undefined,
    );
  },
};
