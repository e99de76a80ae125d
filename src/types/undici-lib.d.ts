/**
 * The few undici modules pix loads by path instead of `import('undici')` (src/api/transport.ts explains why).
 * undici has no "exports" map, so these paths are public to Node; their types are the package's own.
 */
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';

  const PoolClass: typeof Pool;
  export default PoolClass;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';

  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentClass;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const DispatcherClass: { prototype: object };
  export default DispatcherClass;
}
declare module 'undici/lib/api/api-request.js' {
  const request: (...args: unknown[]) => unknown;
  export default request;
}
