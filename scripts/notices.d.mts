/** The types of scripts/notices.mjs, for test/notices.test.ts. */
export interface BundledPackage {
  name: string;
  version: string;
  /** package.json's license field. */
  license: string;
  homepage: string;
  /** The package's folder, relative to the project, with `/`. */
  dir: string;
  /** Its license files, relative to the project. */
  licenseFiles: string[];
}
export const NOTICES_FILE: string;
export function bundledPackages(): Promise<BundledPackage[]>;
export function noticesText(packages: readonly BundledPackage[]): string;
