/**
 * pix's own directories (the config directory, and the directory of a file the user named): made 0700, one
 * level at a time (Node's recursive mkdir spins forever under /proc), and an existing one that others can
 * write to is refused with the `chmod` that fixes it. The files in them: files.ts.
 */
import { chmodSync, mkdirSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PixError } from '../errors.js';

/** Deepest directory chain pix will create: no real config path is deeper, and no loop can be longer. */
const MAX_DEPTH = 64;

/** A directory (of pix's own) that others may write to: refused, with the command that fixes it. */
export class UnsafeDirectoryError extends PixError {
  constructor(dir: string, mode: number) {
    super(
      'usage',
      `the config directory ${dir} can be written by others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); pix keeps credentials and the journal there`,
      { hint: `run \`chmod 700 ${dir}\`, or point PIX_CONFIG_DIR at a private directory` },
    );
  }
}

export interface DirOptions {
  /**
   * True (the default) for pix's own directory (the config directory): an existing one that others can
   * write to is refused, one they can only read is tightened to 0700. False for the directory of a file the
   * user named (`pix sandbox serve --state ./ci.json`): missing levels are still made 0700, an existing
   * directory is left as it is.
   */
  own?: boolean;
}

/**
 * Makes `dir` (and its missing parents) a directory, every level it creates 0700 exactly (whatever the
 * umask), one mkdir per level so it cannot loop. An existing `dir` of pix's own that is group- or
 * world-writable is refused; one that is merely readable by others is tightened to 0700 when it is ours.
 */
export function ensurePrivateDir(dir: string, options: DirOptions = {}): void {
  const target = resolve(dir);
  const missing: string[] = [];
  let at = target;
  for (let depth = 0; ; depth++) {
    if (depth > MAX_DEPTH) {
      throw new PixError('usage', `cannot create the directory ${target}: the path is too deep`);
    }
    const stats = statIfExists(at);
    if (stats) {
      if (!stats.isDirectory()) {
        throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${at}'`), {
          code: 'ENOTDIR',
          syscall: 'mkdir',
          path: at,
        });
      }
      break;
    }
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  if (missing.includes(target)) {
    chmodSync(target, 0o700); // mkdir's mode is filtered by the umask: say it exactly
    return;
  }
  if (options.own === false) return;
  const stats = checkPrivateDir(target);
  if (
    stats &&
    (stats.mode & 0o077) !== 0 &&
    typeof process.getuid === 'function' &&
    stats.uid === process.getuid()
  ) {
    chmodSync(target, 0o700);
  }
}

/**
 * For readers, which create nothing: refuses `dir` when it exists and others can write to it (they could
 * have replaced what pix is about to trust). Returns its stats, or undefined when it does not exist.
 */
export function checkPrivateDir(dir: string): Stats | undefined {
  const stats = statIfExists(dir);
  if (stats?.isDirectory() && (stats.mode & 0o022) !== 0) {
    throw new UnsafeDirectoryError(resolve(dir), stats.mode);
  }
  return stats;
}

function statIfExists(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
