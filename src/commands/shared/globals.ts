import { defaultGlobals, type GlobalOptions, type OutputFormat } from '../../deps.js';
import { parseDuration } from '../../domain/duration.js';
import { asUsage } from '../../usage.js';

/** Commander's parsed global flags → the typed GlobalOptions every command sees. */
export function parseGlobalOptions(raw: Record<string, unknown>): GlobalOptions {
  const globals = defaultGlobals();
  if (typeof raw.profile === 'string') globals.profile = raw.profile;
  if (typeof raw.baseUrl === 'string') globals.baseUrl = raw.baseUrl;
  globals.json = raw.json === true || raw.output === 'json';
  if (typeof raw.output === 'string') globals.output = raw.output as OutputFormat;
  if (globals.json) globals.output = 'json';
  globals.color = raw.color !== false;
  globals.verbose = raw.verbose === true;
  globals.yes = raw.yes === true;
  globals.input = raw.input !== false;
  if (typeof raw.timeout === 'string') {
    const timeout = raw.timeout;
    globals.timeoutMs = asUsage('--timeout', () => parseDuration(timeout).milliseconds);
  }
  return globals;
}
