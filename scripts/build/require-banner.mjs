// CommonJS dependencies (commander, undici, qrcode) call require(), nearly always for a Node built-in, so a
// chunk that names `require` gets one (esbuild's `banner` option). A built-in comes from
// process.getBuiltinModule (Node 20.16+), the same object require() returns; anything else (the few undici
// modules left in node_modules, see undici-lazy-modules.mjs) from createRequire, made on first use. Not
// importing node:module here keeps it out of every start-up on Node 20, where nothing else needs it (≈ 3 ms).
//
// This changes how a module is found, not what it is, and reads no dependency's code: it names no version.
export const REQUIRE_BANNER =
  "const require = (id) => process.getBuiltinModule(id) ?? process.getBuiltinModule('node:module').createRequire(import.meta.url)(id);";

/**
 * Removes the banner from an output file whose code never names `require` (a word match: a string or comment
 * saying "require" keeps the banner, which is harmless; a use can never lose it).
 */
export function dropUnusedBanner(text) {
  if (!text.startsWith(REQUIRE_BANNER)) return text;
  const code = text.slice(REQUIRE_BANNER.length);
  return /\brequire\b/.test(code) ? text : code.replace(/^\n/, '');
}
