import { describe, expect, it } from 'vitest';
import { pix } from '../../helpers/pix.js';

describe('a flag of another verb of the same noun', () => {
  it("charge immediate --fine 2: exit 2, the flag named as charge duedate's, no guess by spelling", async () => {
    const result = await pix(['charge', 'immediate', '--amount', '10', '--fine', '2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: unknown option '--fine'\nhint: --fine is a flag of `pix charge duedate`, not of `pix charge immediate`\n",
    );
    expect(result.stderr).not.toMatch(/did you mean/);
  });

  it('charge duedate --expires-in: the other way round; a typo still gets its spelling guess', async () => {
    const other = await pix(['charge', 'duedate', '--expires-in', '1h']);
    expect(other.stderr).toMatch(
      /^hint: --expires-in is a flag of `pix charge immediate`, not of `pix charge duedate`$/m,
    );
    const typo = await pix(['charge', 'immediate', '--amout', '10']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^hint: did you mean --amount\?$/m);
  });
});
