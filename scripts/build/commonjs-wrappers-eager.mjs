// esbuild wraps each CommonJS module it bundles (commander, undici, qrcode) as an object method,
// `__commonJS({ "node_modules/…/x.js"(exports, module) { … } })`, which V8 compiles lazily: it pre-parses the
// body with the file, then parses it again in full when the module is required. Every such module pix bundles
// is required whenever its file loads, so here each wrapper becomes a parenthesized function expression, which
// V8 compiles with the file: one parse instead of two, and on Node 22+ the module bodies land in the compile
// cache, which holds only what was compiled with the file (`pix keys --json`: ≈ 2% fewer instructions on
// Node 20, ≈ 3% on Node 24).
//
// The rewrite is of esbuild's wrapper, never of the module's own code, which is kept byte for byte: esbuild's
// __commonJS calls the wrapper as a method of its object (so `this` is the same either way) and never with
// `new`; what only a method has, `super`, is a syntax error in CommonJS code.
//
// Written for esbuild 0.28.2, whose output this matches as text; every wrapper of a file must be rewritten,
// or the build fails.
import { writtenFor } from './written-for.mjs';

writtenFor('scripts/build/commonjs-wrappers-eager.mjs', 'esbuild', '0.28.2');

export function compileCommonJsWrappersEagerly(text, name) {
  const wrappers = text.split('= __commonJS({').length - 1;
  if (wrappers === 0) return text;
  let count = 0;
  const rewritten = text.replace(
    /= __commonJS\(\{\n {2}("[^"\n]+")\(([^)\n]*)\) \{\n([\s\S]*?)\n {2}\}\n\}\);\n/g,
    (_, key, params, body) => {
      count++;
      return `= __commonJS({\n  ${key}: (function (${params}) {\n${body}\n  })\n});\n`;
    },
  );
  if (count !== wrappers) throw new Error(`${name}: ${count} of ${wrappers} CommonJS wrappers rewritten`);
  return rewritten;
}
