import type { ConfigStore, ProfileData } from '../../src/config/types.js';

/** An in-memory ConfigStore for unit tests of code that reads and writes profiles. */
export function createMemoryStore(
  profiles: Record<string, ProfileData> = {},
  current?: string,
): ConfigStore & { writes: number } {
  const data = new Map(Object.entries(structuredClone(profiles)));
  let currentProfile = current;
  const store = {
    dir: '/nonexistent/pix',
    path: '/nonexistent/pix/config.json',
    writes: 0,
    currentProfile: () => currentProfile,
    async setCurrentProfile(name: string) {
      store.writes++;
      currentProfile = name;
    },
    listProfiles: () => [...data.keys()].sort(),
    getProfile: (name: string) => (data.has(name) ? structuredClone(data.get(name)) : undefined),
    async setProfile(name: string, profile: ProfileData) {
      store.writes++;
      data.set(name, structuredClone(profile));
    },
    async deleteProfile(name: string) {
      store.writes++;
      data.delete(name);
      if (currentProfile === name) currentProfile = undefined;
    },
  };
  return store;
}
