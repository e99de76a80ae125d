import type { CachedToken, ConfigDocument, ConfigStore, ProfileData } from '../../src/config/types.js';

/** An in-memory ConfigStore for unit tests of code that reads and writes profiles. */
export function createMemoryStore(
  profiles: Record<string, ProfileData> = {},
  current?: string,
): ConfigStore & { writes: number; tokens: Map<string, CachedToken> } {
  let document: ConfigDocument = { currentProfile: current, profiles: structuredClone(profiles) };
  const tokens = new Map<string, CachedToken>();
  const store = {
    dir: '/nonexistent/pix',
    path: '/nonexistent/pix/config.json',
    writes: 0,
    tokens,
    currentProfile: () => document.currentProfile,
    listProfiles: () => Object.keys(document.profiles).sort(),
    getProfile: (name: string) =>
      Object.hasOwn(document.profiles, name) ? structuredClone(document.profiles[name]) : undefined,
    async update<T>(change: (fresh: ConfigDocument) => T): Promise<T> {
      const fresh = structuredClone(document);
      const result = change(fresh);
      if (JSON.stringify(fresh) !== JSON.stringify(document)) {
        store.writes++;
        document = fresh;
      }
      return result;
    },
    setProfile: (name: string, profile: ProfileData) =>
      store.update((fresh) => {
        fresh.profiles[name] = structuredClone(profile);
      }),
    setCurrentProfile: (name: string) =>
      store.update((fresh) => {
        fresh.currentProfile = name;
      }),
    cachedToken: (digest: string) => tokens.get(digest),
    async cacheToken(digest: string, token: CachedToken | undefined) {
      store.writes++;
      if (token === undefined) tokens.delete(digest);
      else tokens.set(digest, token);
    },
  };
  return store;
}
