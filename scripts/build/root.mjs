// The repository's root, for the parts of the build that read src/ or write package.json.
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
