/** The types of scripts/build/require-banner.mjs, for test/helpers/child.ts (which bundles as the build does). */
export declare const REQUIRE_BANNER: string;
