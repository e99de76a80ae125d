import { readFileSync } from 'node:fs';

/** Set by the build (scripts/build.mjs) from package.json; read from the file when running from source. */
declare const __PIX_VERSION__: string | undefined;

export function pixVersion(): string {
  if (typeof __PIX_VERSION__ === 'string') return __PIX_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
