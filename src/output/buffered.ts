import type { OutStream } from './iostreams.js';

export interface BufferedOutStream extends OutStream {
  /** Writes what is held; call it before the command ends (and before anything else writes to the stream). */
  flush(): Promise<void>;
}

/**
 * Gathers many small writes (one ndjson or CSV line each) into chunks of about `size` bytes before they
 * reach the real stream. Piped stdout is synchronous on Linux, so 100,000 lines would otherwise be
 * 100,000 write calls; this makes them ~1,500. Memory stays bounded by `size`, and backpressure still
 * works: a chunk the real stream cannot take makes `write` return false until it drains.
 */
export function bufferedOut(out: OutStream, size = 64 * 1024): BufferedOutStream {
  let parts: string[] = [];
  let held = 0;
  const push = (): boolean => {
    if (parts.length === 0) return true;
    const text = parts.length === 1 ? parts[0]! : parts.join('');
    parts = [];
    held = 0;
    return out.write(text);
  };
  return {
    get isTTY() {
      return out.isTTY;
    },
    get columns() {
      return out.columns;
    },
    write(chunk) {
      if (typeof chunk !== 'string') {
        const ok = push();
        return out.write(chunk) && ok;
      }
      parts.push(chunk);
      held += chunk.length;
      return held >= size ? push() : true;
    },
    drained: () => out.drained(),
    async flush() {
      if (!push()) await out.drained();
    },
  };
}
