import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pagerCommand, pagerEnv } from '../../src/output/pager.js';
import { tempConfigDir } from '../helpers/cli.js';

/** A PATH holding only a fake `less`. */
function pathWithLess(): string {
  const bin = join(tempConfigDir(), 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'less'), '#!/bin/sh\ncat\n');
  chmodSync(join(bin, 'less'), 0o755);
  return bin;
}

describe('which pager', () => {
  it('PIX_PAGER first, then PAGER, each run through sh -c', () => {
    expect(pagerCommand({ PIX_PAGER: 'less -S', PAGER: 'more' })).toEqual({
      file: 'sh',
      args: ['-c', 'less -S'],
    });
    expect(pagerCommand({ PAGER: 'more' })).toEqual({ file: 'sh', args: ['-c', 'more'] });
  });

  it('an empty PIX_PAGER, or cat, means none, whatever PAGER says', () => {
    expect(pagerCommand({ PIX_PAGER: '', PAGER: 'more' })).toBeUndefined();
    expect(pagerCommand({ PIX_PAGER: ' cat ' })).toBeUndefined();
    expect(pagerCommand({ PAGER: '' })).toBeUndefined();
  });

  it('neither set: less -FRX from PATH, or none when there is no less', () => {
    const bin = pathWithLess();
    expect(pagerCommand({ PATH: bin })).toEqual({ file: join(bin, 'less'), args: ['-FRX'] });
    expect(pagerCommand({ PATH: tempConfigDir() })).toBeUndefined();
  });

  it("the pager's environment: gh's defaults for less and lv, the user's own values kept", () => {
    expect(pagerEnv({ HOME: '/h' })).toMatchObject({ HOME: '/h', LESS: 'FRX', LV: '-c' });
    expect(pagerEnv({ LESS: '-S' }).LESS).toBe('-S');
  });
});
