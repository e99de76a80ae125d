import { expect } from 'vitest';

/** A well-formed e-mail key the sandbox's DICT knows (any key not in its missing list). */
export const PAYEE = 'fornecedor@example.com';

/**
 * The contract's error form (§3): exactly one `error:` line, followed by at most one `hint:` line and
 * nothing else; no stack trace, no HTML page, no JavaScript error names or `undefined` leaking out.
 */
export function expectOneLineError(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at\s/m);
  expect(stderr).not.toMatch(/<html|<body/i);
  expect(stderr).not.toMatch(/^[A-Za-z]*Error: |\bundefined\b|\[object Object\]/m);
  const lines = stderr.trimEnd().split('\n');
  const errors = lines.filter((line) => line.startsWith('error: '));
  expect(errors, stderr).toHaveLength(1);
  const tail = lines.slice(lines.indexOf(errors[0]!));
  expect(tail.length, stderr).toBeLessThanOrEqual(2);
  if (tail.length === 2) expect(tail[1]).toMatch(/^hint: \S/);
}
