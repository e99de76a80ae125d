import type { Deps } from '../../context.js';
import { type DecodedBrCode, decodeBrCode } from '../../domain/brcode.js';
import { counted } from '../../domain/words.js';
import { usageError } from '../../errors.js';
import { safeText } from '../../output/sanitize.js';
import { asUsage } from '../../usage.js';

/* Reading a BR Code from the command line: `pix emv decode` and `pix pay qr` alike. */

/** What `-` on a terminal waits for (said on stderr; a pipe is read silently). */
export const PASTE_PROMPT = 'Paste a BR Code and press Enter (Ctrl-C to cancel): ';

/**
 * `-` reads the code from stdin (what `pix pay qr -` does too): a pipe to its end; a terminal one
 * line, after saying on stderr what it waits for (a BR Code is one line, so Enter ends it).
 */
export async function readEmvArgument(text: string, deps: Deps): Promise<string> {
  if (text !== '-') return text;
  const { stdin, stderr } = deps.io;
  let input: string;
  if (stdin.isTTY) {
    stderr.write(PASTE_PROMPT);
    input = (await stdin.readLine(false)).trim();
  } else {
    input = (await stdin.readAll()).toString('utf8').trim();
  }
  if (input === '') throw usageError('EMV', 'nothing on stdin: pipe a BR Code, or pass it as the argument');
  return input;
}

/** Decodes offline; a broken code is a usage error (exit 2) naming what is wrong and where. */
export function decodeEmvOrFail(text: string): DecodedBrCode {
  return asUsage(
    'EMV',
    () => decodeBrCode(text),
    'copy the whole code again: it ends in 6304 and 4 hex digits',
  );
}

/**
 * The rules of the manual the code breaks, each a `warning:` line on stderr; with `strict`, the first
 * is a usage error (exit 2) instead, naming how many there are.
 */
export function reportBrokenRules(decoded: DecodedBrCode, strict: boolean, deps: Deps): void {
  const { warnings } = decoded;
  if (warnings.length === 0) return;
  if (strict) {
    throw usageError(
      '--strict',
      `the code breaks ${counted(warnings.length, 'rule')} of the BR Code manual: ${warnings.join('; ')}`,
      'drop --strict to decode it anyway, as payer apps do',
    );
  }
  for (const warning of warnings) deps.io.stderr.write(`warning: ${safeText(warning)}\n`);
}
