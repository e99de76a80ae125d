// Run before every test file (vitest.config.ts setupFiles): what a file's tests leave behind is cleared.
import { afterAll } from 'vitest';
import { removeFileTempDirs } from './helpers/temp.js';

afterAll(removeFileTempDirs);
