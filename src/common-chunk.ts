/**
 * The small modules nearly every command runs with, gathered so the bundle puts them in one chunk. esbuild
 * splits code by the set of entry points (each `import()` target) that reach a module, so twenty small
 * modules each reached by a different set of commands became twenty files of a few hundred bytes, and Node's
 * ES module loader pays for every file (resolve, read, compile, link: ≈ 0.5M instructions each). The build
 * (scripts/build/common-chunk.mjs, esbuild's plugin API on pix's own modules) has every `import()` target import
 * this module, so all of these have the same set and share one file: `pix keys --json` loads 22 files of dist/
 * instead of 36 (≈ 4% fewer instructions on Node 20, 6% on Node 24). `pix --help` and `--version` do not load
 * it. zod stays its own chunk. Nothing here has effects when loaded; listing a module here changes only the
 * layout.
 */

export * as commonOutcomes from './api/outcomes.js';
export * as commonPager from './api/pager.js';
export * as commonPaginate from './api/paginate.js';
export * as commonExport from './commands/shared/export.js';
export * as commonFlags from './commands/shared/flags.js';

export * as commonHelp from './commands/shared/help.js';
export * as commonPages from './commands/shared/pages.js';
export * as commonDuration from './domain/duration.js';
export * as commonInvalid from './domain/invalid.js';
export * as commonMoney from './domain/money.js';
export * as commonWhen from './domain/when.js';
export * as commonWords from './domain/words.js';
export * as commonErrors from './errors.js';
export * as commonFormat from './output/format.js';
export * as commonProgress from './output/progress.js';
export * as commonRecords from './output/records.js';
export * as commonSanitize from './output/sanitize.js';
export * as commonTable from './output/table.js';
export * as commonWidth from './output/width.js';
export * as commonSandbox from './sandbox/index.js';
export * as commonDirs from './storage/dirs.js';
export * as commonFiles from './storage/files.js';
export * as commonLocks from './storage/locks.js';
export * as commonUsage from './usage.js';
