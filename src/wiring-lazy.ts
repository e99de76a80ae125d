/**
 * What the composition root (src/wiring.ts) makes on first use — the config store, the settings, the token
 * provider, the API client and its connection — gathered in one module so the bundle loads them as one chunk:
 * one `import()` where eight would each be a file for Node's loader to resolve, read and link
 * (docs/performance.md). Re-exports only: wiring.ts is where they are put together.
 */
export { createApiClient } from './api/client.js';
export { createConnection } from './api/transport.js';
export { resolveSettings } from './config/resolve.js';
export { openConfigStore } from './config/store.js';
export { createTokenProvider, noCredentialsError } from './config/tokens.js';
export { isLoopbackHost } from './domain/url.js';
export { safeText } from './output/sanitize.js';
export { loadEmbedded, loadTime } from './sandbox/index.js';
