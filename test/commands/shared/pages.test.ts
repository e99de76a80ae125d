/**
 * List pages: the next-page hint of `pix statement` and `pix keys` keeps every flag the user gave,
 * shell-quoted, and `--limit` above what pix asks for in one page is refused before anything is sent.
 * In-process against the embedded sandbox (36 statement entries and 4 keys when fresh).
 */
import { execFileSync } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_PAGE, nextPageCommand } from '../../../src/commands/shared/pages.js';
import { defaultGlobals } from '../../../src/context.js';
import { run } from '../../../src/main.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { createTestIO } from '../../helpers/io.js';
import { pixWith } from '../../helpers/pix.js';

let env: Record<string, string>;

beforeEach(() => {
  env = { PIX_CONFIG_DIR: tempConfigDir() };
});

const pix = pixWith(() => ({ env }));

/** The `next…: <command>` of a hint line. */
function nextOf(stderr: string): string {
  const line = stderr.split('\n').find((text) => /; next( page)?: /.test(text));
  if (line === undefined) throw new Error(`no next-page hint in ${JSON.stringify(stderr)}`);
  return line.replace(/^.*; next( page)?: /, '');
}

/** How bash splits a command line into words (the hint is meant to be pasted). */
function bashWords(line: string): string[] {
  const out = execFileSync('bash', ['-c', `printf '%s\\0' ${line.replace(/^pix /, '')}`]);
  return out.toString('utf8').split('\0').slice(0, -1);
}

describe('next-page hints keep every flag the user gave', () => {
  it('statement: dates, --limit, -p, -o, --timeout, -v and --no-color, quoted for the shell', async () => {
    const result = await pix([
      'statement',
      '--from',
      '2020-01-01 00:00',
      '--to',
      'today',
      '--limit',
      '5',
      '-p',
      'sandbox',
      '-o',
      'csv',
      '--timeout',
      '2m',
      '--no-color',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const next = nextOf(result.stderr);
    expect(next).toBe(
      "pix statement --from '2020-01-01 00:00' --to today -p sandbox -o csv --timeout 2m --no-color --limit 5 --offset 5",
    );
    // Pasted as it is, it runs: same words, and the page after.
    const again = await pix(bashWords(next));
    expect(again.code, again.stderr).toBe(0);
    expect(nextOf(again.stderr)).toBe(next.replace('--offset 5', '--offset 10'));
  });

  it('statement --json keeps --json, and the default page size is not repeated', async () => {
    const result = await pix(['statement', '--from', '2020-01-01', '--to', 'today', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).total).toBeGreaterThan(10);
    expect(nextOf(result.stderr)).toBe('pix statement --from 2020-01-01 --to today --json --offset 10');
  });

  it('statement on a terminal: --wide and --no-pager are kept; --from alone is given the end it read', async () => {
    const test = createTestIO({ tty: true, columns: 80 });
    const code = await run(['statement', '--from', '2020-01-01', '--wide', '--no-pager', '--limit', '5'], {
      io: test.io,
      env,
    });
    expect(code, test.stderr()).toBe(0);
    const next = nextOf(test.stderr());
    expect(next).toMatch(
      /^pix statement --from 2020-01-01 --to \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z --wide --no-pager --limit 5 --offset 5$/,
    );
    const again = await pix(bashWords(next));
    expect(again.code, again.stderr).toBe(0);
    expect(nextOf(again.stderr)).toBe(next.replace('--offset 5', '--offset 10'));
  });

  it('run through npx (npm_command=exec), the hint says `npx pix`: a bare pix is not on PATH in a clone', async () => {
    const test = createTestIO();
    const code = await run(['keys', '--limit', '1'], { io: test.io, env: { ...env, npm_command: 'exec' } });
    expect(code, test.stderr()).toBe(0);
    expect(nextOf(test.stderr())).toBe('npx pix keys --limit 1 --offset 1');
    const installed = await pix(['keys', '--limit', '1']);
    expect(nextOf(installed.stderr)).toBe('pix keys --limit 1 --offset 1');
  });

  it('keys: --limit, --json and -p are kept', async () => {
    const result = await pix(['keys', '--limit', '1', '--json', '-p', 'sandbox']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'showing 1-1 of 4 keys; next page: pix keys -p sandbox --json --limit 1 --offset 1',
    );
  });

  it('nextPageCommand quotes every word and names --base-url, and -o unless --json', () => {
    const globals = {
      ...defaultGlobals(),
      profile: "ana's",
      baseUrl: 'https://api.example.com/v1',
      output: 'ndjson' as const,
      verbose: true,
    };
    expect(nextPageCommand(['keys'], globals, { limit: 10, defaultLimit: 10, offset: 20 }, {})).toBe(
      "pix keys -p 'ana'\\''s' --base-url https://api.example.com/v1 -o ndjson -v --offset 20",
    );
    expect(
      nextPageCommand(
        ['statement', '--month', '2025-01'],
        { ...globals, json: true, profile: undefined },
        {
          limit: 50,
          defaultLimit: 10,
          offset: 50,
        },
        {},
      ),
    ).toBe(
      'pix statement --month 2025-01 --base-url https://api.example.com/v1 --json -v --limit 50 --offset 50',
    );
  });
});

describe('--limit has a documented maximum', () => {
  it.each([['statement'], ['keys']])(
    `%s --limit ${MAX_PAGE + 1} → exit 2 naming the maximum, nothing read`,
    async (command) => {
      const result = await pix([command, '--limit', String(MAX_PAGE + 1)]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `error: --limit: ${MAX_PAGE + 1} is more than ${MAX_PAGE}, the most pix shows in one page\n` +
          'hint: to read everything, use --all: it fetches every page, several at a time\n',
      );
    },
  );

  it(`--limit ${MAX_PAGE} is accepted (statement, keys and --all)`, async () => {
    for (const argv of [
      ['statement', '--limit', '1000'],
      ['keys', '--limit', '1000'],
      ['statement', '--all', '--limit', '1000', '-o', 'ndjson'],
    ]) {
      const result = await pix(argv);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    }
  });
});
