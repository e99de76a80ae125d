/**
 * A seeded sample of servers the API document allows (src/sandbox/serversettings.ts), for the end-to-end
 * money suite: three servers whose page maximum is 100, 50 and 10, every other open point drawn at random
 * by the seed, and each open point taken away from the sandbox's own answer by at least one of them. The
 * seed is PIX_TEST_SERVER_SEED when set (a failure's replay), else drawn; the suite's titles name it.
 */
import { DEFAULT_SERVER, type ServerSettings, serverSpec } from '../../src/sandbox/serversettings.js';

/** mulberry32: a small seeded generator, enough to draw settings. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The values each open point may take (the first is the sandbox's own); a server that loses records
 * (empty-after, short-after) is not one the document allows, and not drawn.
 */
const CHOICES: { [K in keyof ServerSettings]?: ReadonlyArray<ServerSettings[K]> } = {
  clampPage: [undefined, 7, 30],
  clockSkewMs: [undefined, 30_000, -30_000, 0],
  order: ['newest', 'oldest'],
  names: ['as-is', 'upper-ascii'],
  documents: ['bare', 'masked', 'none'],
  listField: ['document', 'results', 'result'],
  e2eSpelling: ['endtoEndId', 'endToEndId'],
  dueDateType: ['DUEDATE_QRCODE', 'DUE_DATE'],
  postStatus: [201, 200],
  errorShape: ['message', 'error', 'errors', 'description', 'detail', 'text', 'empty'],
  gzip: [false, true],
};

/** The page maxima every sample holds: the common cap, and two below it. */
export const PAGE_MAXIMA = [100, 50, 10] as const;

export function sampleServers(seed: number): ServerSettings[] {
  const random = generator(seed);
  const pick = <T>(values: ReadonlyArray<T>): T => values[Math.floor(random() * values.length)]!;
  const servers: ServerSettings[] = PAGE_MAXIMA.map((maxPage) => ({ ...DEFAULT_SERVER, maxPage }));
  for (const [name, values] of Object.entries(CHOICES) as Array<[keyof ServerSettings, unknown[]]>) {
    for (const server of servers) (server as unknown as Record<string, unknown>)[name] = pick(values);
    // Each open point answered otherwise than the sandbox does by one server at least.
    if (servers.every((server) => server[name] === values[0])) {
      (pick(servers) as unknown as Record<string, unknown>)[name] = pick(values.slice(1));
    }
  }
  return servers;
}

/** The seed of this run: PIX_TEST_SERVER_SEED, else a fresh one. */
export function serverSeed(): number {
  const given = process.env.PIX_TEST_SERVER_SEED;
  if (given !== undefined && given !== '') return Number.parseInt(given, 10) >>> 0;
  return Math.floor(Math.random() * 4_294_967_296);
}

export { serverSpec };
