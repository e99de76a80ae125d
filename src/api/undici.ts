/**
 * The part of undici pix uses, in one module so the bundle makes it one chunk (loaded by api/transport.ts when
 * a command first talks to a server): the Pool and `request` modules only (~25 of undici's ~110: no fetch,
 * mocks, caches or WebSocket), with `request` put on Dispatcher.prototype as undici's index.js does, so
 * `pool.request()` and an injected MockAgent work alike.
 */

import request from 'undici/lib/api/api-request.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';

if (!('request' in Dispatcher.prototype)) Object.assign(Dispatcher.prototype, { request });

export { Pool };
