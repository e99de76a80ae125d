// A rewrite of the build that depends on how a package is written (its file layout, what a module requires,
// the text esbuild emits) was checked against one version of that package and is only known to be right for
// it. `writtenFor` reads the version installed in node_modules and fails the build on any other: upgrading
// the package means reading the rewrite again against the new code, then changing the version named here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** The version of `pkg` in the project's node_modules (its package.json). */
export function installedVersion(pkg) {
  return JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
}

/** Throws unless the installed `pkg` is exactly `version`; `rewrite` names the file that depends on it. */
export function writtenFor(rewrite, pkg, version) {
  const installed = installedVersion(pkg);
  if (installed !== version) {
    throw new Error(
      `${rewrite} was written for ${pkg} ${version}, and ${pkg} ${installed} is installed: read the rewrite ` +
        `against ${pkg} ${installed}'s code, then update the version it names (or remove the rewrite).`,
    );
  }
}
