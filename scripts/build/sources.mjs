// Every TypeScript file of src/ with its text, read once for the parts of the build that look at imports.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './root.mjs';

export const sources = readdirSync(join(root, 'src'), { recursive: true })
  .map(String)
  .filter((entry) => entry.endsWith('.ts'))
  .map((entry) => {
    const file = join(root, 'src', entry);
    return { file, text: readFileSync(file, 'utf8') };
  });
