#!/usr/bin/env node
// Launcher of the compiled CLI: no tsx at run time, because start-up time is a feature.
import { run } from '../dist/main.js';

process.exitCode = await run(process.argv.slice(2));
