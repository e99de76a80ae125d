/**
 * What every command that reads settings or talks to the API runs with, as one module: the global flags, the
 * settings, the config store and the API client (with its token provider and endpoints). program.ts and
 * deps.ts reach it through one dynamic import, so the bundle makes it one chunk and a command loads a few
 * files where it loaded a waterfall of six imports, one after another (README, Performance).
 */
export { createApiClient } from './api/client.js';
export { parseGlobalOptions } from './commands/shared/globals.js';
export { resolveSettings } from './config/resolve.js';
export { openConfigStore } from './config/store.js';
