/**
 * The small modules nearly every command runs with, gathered so the bundle puts them in one chunk. esbuild
 * splits code by the set of entry points (each `import()` target) that reach a module, so twenty small
 * modules each reached by a different set of commands became twenty files of a few hundred bytes, and Node's
 * ES module loader pays for every file (resolve, read, compile, link: ≈ 0.5M instructions each). The build
 * (scripts/build/hub.mjs) has every `import()` target but program.ts import this module, so all of
 * these have the same set and share one file: `pix keys --json` loads 22 files of dist/ instead of 36 (≈ 4% fewer
 * instructions on Node 20, 6% on Node 24). `pix --help` (program.ts) and `--version` do not load it. zod
 * stays its own chunk. Nothing here has effects when loaded; listing a module here changes only the layout.
 */

export * as hubOutcomes from './api/outcomes.js';
export * as hubPaginate from './api/paginate.js';
export * as hubExport from './commands/shared/export.js';
export * as hubFlags from './commands/shared/flags.js';

export * as hubHelp from './commands/shared/help.js';
export * as hubPages from './commands/shared/pages.js';
export * as hubDuration from './domain/duration.js';
export * as hubInvalid from './domain/invalid.js';
export * as hubMoney from './domain/money.js';
export * as hubWhen from './domain/when.js';
export * as hubWords from './domain/words.js';
export * as hubErrors from './errors.js';
export * as hubFormat from './output/format.js';
export * as hubProgress from './output/progress.js';
export * as hubRecords from './output/records.js';
export * as hubSanitize from './output/sanitize.js';
export * as hubTable from './output/table.js';
export * as hubWidth from './output/width.js';
export * as hubSandbox from './sandbox/index.js';
export * as hubUsage from './usage.js';
