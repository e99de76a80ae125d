// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the harnesses are shell code, where ${…} is the shell's.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../../src/config/store.js';
import { SYSTEM } from '../../../src/system.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { pixWith } from '../../helpers/pix.js';

/** What `pix statement -o` takes, sorted. */
const STATEMENT_FORMATS = ['csv', 'csv-br', 'json', 'ndjson', 'ofx', 'table', 'xlsx'];

let dir: string;
const scripts: Record<string, string> = {};
/** A directory with a `pix` that prints what the real `pix profile list` prints (piped) for `dir`. */
let stubBin: string;

const pix = pixWith(() => ({ env: { PIX_CONFIG_DIR: dir } }));

function hasShell(name: string): boolean {
  return spawnSync(name, ['-c', 'exit 0'], { stdio: 'ignore' }).status === 0;
}

beforeAll(async () => {
  dir = tempConfigDir();
  const store = openConfigStore({ PIX_CONFIG_DIR: dir }, SYSTEM);
  await store.setProfile('prod', { 'base-url': 'https://api.example.test' });
  await store.setProfile('staging', { 'base-url': 'https://staging.example.test' });
  await store.setCurrentProfile('prod');
  for (const shell of ['bash', 'zsh', 'fish']) {
    const result = await pix(['completion', shell]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const file = join(dir, `pix.${shell}`);
    writeFileSync(file, result.stdout);
    scripts[shell] = file;
  }
  // The scripts run `pix profile list` at TAB time; this `pix` replays the real command's output.
  const listed = await pix(['profile', 'list']);
  expect(listed.stdout).toContain('\tstaging\t');
  stubBin = join(dir, 'bin');
  mkdirSync(stubBin);
  writeFileSync(join(dir, 'profiles.txt'), listed.stdout);
  writeFileSync(
    join(stubBin, 'pix'),
    `#!/bin/sh\n[ "$1 $2" = "profile list" ] && cat '${join(dir, 'profiles.txt')}'\n`,
  );
  chmodSync(join(stubBin, 'pix'), 0o755);
});

/**
 * Loads the bash script in a real bash and calls its completion function as bash does at TAB:
 * COMP_WORDS are the words (the last is the one being completed), as readline splits them.
 */
function bashComplete(...words: string[]): string[] {
  const harness = [
    'source "$1"; shift',
    'COMP_WORDS=("$@")',
    'COMP_CWORD=$((${#COMP_WORDS[@]} - 1))',
    'COMP_LINE="${COMP_WORDS[*]}"',
    'COMP_POINT=${#COMP_LINE}',
    '_pix',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const result = spawnSync(
    'bash',
    ['--norc', '--noprofile', '-c', harness, 'bash', scripts.bash!, ...words],
    {
      encoding: 'utf8',
      env: { PATH: `${stubBin}:/usr/bin:/bin` },
    },
  );
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.split('\n').filter((line) => line !== '');
}

describe('pix completion bash (in a real bash)', () => {
  it('is registered for pix and defines _pix', () => {
    const result = spawnSync(
      'bash',
      ['--norc', '--noprofile', '-c', 'source "$1" && complete -p pix', 'bash', scripts.bash!],
      { encoding: 'utf8' },
    );
    expect(result.stdout.trim()).toBe('complete -F _pix pix');
  });

  it('pix ch<TAB> → charge', () => {
    expect(bashComplete('pix', 'ch')).toEqual(['charge']);
  });

  it('pix <TAB> → every top-level command, without Commander’s implicit help', () => {
    const offered = bashComplete('pix', '');
    expect(offered).toEqual(expect.arrayContaining(['statement', 'keys', 'charge', 'pay', 'completion']));
    expect(offered).not.toContain('help');
  });

  it('pix charge <TAB> → immediate duedate list show wait', () => {
    expect(bashComplete('pix', 'charge', '').sort()).toEqual([
      'duedate',
      'immediate',
      'list',
      'show',
      'wait',
    ]);
  });

  it('pix statement -o <TAB> → the output formats, also after --output and --output=', () => {
    expect(bashComplete('pix', 'statement', '-o', '').sort()).toEqual(STATEMENT_FORMATS);
    expect(bashComplete('pix', 'statement', '--output', 'n')).toEqual(['ndjson']);
    // bash splits `--output=nd` at "=" (COMP_WORDBREAKS) and replaces only the part after it.
    expect(bashComplete('pix', 'statement', '--output', '=', 'nd')).toEqual(['ndjson']);
    expect(bashComplete('pix', 'statement', '--output', '=').sort()).toEqual(STATEMENT_FORMATS);
    // Each command its own: no ofx for keys, the receipt's documents for receipt.
    expect(bashComplete('pix', 'keys', '-o', '').sort()).toEqual([
      'csv',
      'csv-br',
      'json',
      'ndjson',
      'table',
      'xlsx',
    ]);
    expect(bashComplete('pix', 'receipt', '-o', '').sort()).toEqual(['html', 'json', 'pdf', 'table']);
  });

  it("--fields <TAB> → the fields of the command's records", () => {
    expect(bashComplete('pix', 'keys', '--fields', '').sort()).toEqual([
      'Created',
      'Id',
      'Key',
      'Type',
      'createdAt',
      'id',
      'key',
      'keyType',
    ]);
    expect(bashComplete('pix', 'statement', '--fields', 'cred')).toEqual([
      'creditor.name',
      'creditor.bank',
      'creditor.documentNumber',
    ]);
  });

  it('flags of the command and the global ones; --version only at the top', () => {
    const offered = bashComplete('pix', 'statement', '--');
    expect(offered).toEqual(
      expect.arrayContaining(['--from', '--to', '--all', '--limit', '--json', '--profile', '--help']),
    );
    expect(offered).not.toContain('--version');
    expect(offered).not.toContain('--concurrency'); // hidden in --help, hidden here
    expect(bashComplete('pix', 'statement', '--li')).toEqual(['--limit']);
    expect(bashComplete('pix', '--vers')).toEqual(['--version']);
  });

  it("only what the command accepts: a verb is not offered its sibling default verb's flags", () => {
    const summary = bashComplete('pix', 'statement', 'summary', '--');
    expect(summary).toEqual(expect.arrayContaining(['--by', '--month', '--json']));
    for (const flag of ['--follow', '--type', '--limit', '--all']) expect(summary).not.toContain(flag);
    const show = bashComplete('pix', 'journal', 'show', 'x', '--');
    for (const flag of ['--unresolved', '--limit', '--all']) expect(show).not.toContain(flag);
    // The noun alone runs its default verb (pix journal is pix journal list): it is offered that verb's flags.
    expect(bashComplete('pix', 'journal', '--unr')).toEqual(['--unresolved']);
    expect(bashComplete('pix', 'journal', 'list', '--unr')).toEqual(['--unresolved']);
  });

  it('--type <TAB> → income outcome', () => {
    expect(bashComplete('pix', 'statement', '--type', '')).toEqual(['income', 'outcome']);
    expect(bashComplete('pix', 'statement', 'list', '--type', 'o')).toEqual(['outcome']);
  });

  it('skips option values when finding the command: pix -p prod charge <TAB>', () => {
    expect(bashComplete('pix', '-p', 'prod', 'charge', '').sort()).toEqual([
      'duedate',
      'immediate',
      'list',
      'show',
      'wait',
    ]);
    expect(bashComplete('pix', '--timeout', '5s', 'statement', '-o', 'j')).toEqual(['json']);
    // A flag without a value does not swallow the next word.
    expect(bashComplete('pix', '--json', 'ch')).toEqual(['charge']);
  });

  it('profile names, read from the config when TAB is pressed', () => {
    expect(bashComplete('pix', 'profile', 'use', '').sort()).toEqual(['prod', 'sandbox', 'staging']);
    expect(bashComplete('pix', '--profile', 'st')).toEqual(['staging']);
    expect(bashComplete('pix', 'statement', '-p', 'p')).toEqual(['prod']);
  });

  it('duration units after a number: --expires-in 30 → 30m 30h 30d; --timeout also takes seconds', () => {
    expect(bashComplete('pix', 'charge', 'immediate', '--expires-in', '30').sort()).toEqual([
      '30d',
      '30h',
      '30m',
    ]);
    expect(bashComplete('pix', 'charge', 'immediate', '--expires-in', 'x')).toEqual([]);
    expect(bashComplete('pix', '--timeout', '9').sort()).toEqual(['9d', '9h', '9m', '9s']);
  });

  it('modalities of pix charge duedate (contract §6), though unknown ones are still accepted', () => {
    expect(bashComplete('pix', 'charge', 'duedate', '--fine-modality', '').sort()).toEqual([
      'FIXED_VALUE',
      'PERCENT',
    ]);
    expect(
      bashComplete('pix', 'charge', 'duedate', '--interest-modality', 'PERCENTAGE_PER_M').sort(),
    ).toEqual(['PERCENTAGE_PER_MONTH_CALENDAR_DAYS', 'PERCENTAGE_PER_MONTH_WORKING_DAYS']);
    expect(bashComplete('pix', 'charge', 'duedate', '--discount-modality', '')).toHaveLength(6);
  });

  it('positional values: config keys, shells', () => {
    expect(bashComplete('pix', 'config', 'get', 'ti')).toEqual(['time-zone']);
    expect(bashComplete('pix', 'config', 'set', 'max-amount', '')).toEqual([]); // VALUE is free text
    expect(bashComplete('pix', 'completion', '').sort()).toEqual(['bash', 'fish', 'zsh']);
  });

  it('nothing known about a value: no words offered (bash falls back to file names)', () => {
    expect(bashComplete('pix', 'charge', 'immediate', '--amount', '')).toEqual([]);
    expect(bashComplete('pix', 'emv', 'decode', '')).toEqual([]);
  });
});

describe('pix completion zsh', () => {
  const zsh = hasShell('zsh');

  it.skipIf(!zsh)('parses (zsh -n)', () => {
    const result = spawnSync('zsh', ['-n', scripts.zsh!], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  /**
   * Runs _pix in a real zsh with compsys' builtins (compadd, _describe, compset, _default) replaced by
   * functions that print what would be offered, filtered by the word typed as zsh would.
   */
  function zshComplete(...words: string[]): string[] {
    const harness = [
      'compdef() { :; }',
      "typed=''",
      'compadd() {',
      '  local -a vals; if [[ $1 == -a ]]; then vals=("${(@P)2}"); else shift; vals=("$@"); fi',
      '  local v; for v in $vals; do [[ $v == ${typed}* ]] && print -r -- "$v"; done',
      '}',
      '_describe() {',
      '  local -a arr; arr=("${(@P)4}")',
      '  local v; for v in $arr; do v=${v%%:*}; [[ $v == ${typed}* ]] && print -r -- "$v"; done',
      '}',
      'compset() { [[ $1 == -P ]] && typed=${typed#*=}; }',
      "_default() { print -r -- '<files>'; }",
      'source "$1"; shift',
      'words=("$@"); CURRENT=${#words}; typed=${words[CURRENT]}',
      '_pix',
    ].join('\n');
    const result = spawnSync('zsh', ['-f', '-c', harness, 'zsh', scripts.zsh!, ...words], {
      encoding: 'utf8',
      env: { PATH: `${stubBin}:/usr/bin:/bin` },
    });
    expect(result.stderr).toBe('');
    return result.stdout.split('\n').filter((line) => line !== '');
  }

  it.skipIf(!zsh)('offers commands, subcommands, formats, profiles and units', () => {
    expect(zshComplete('pix', 'ch')).toEqual(['charge']);
    expect(zshComplete('pix', 'charge', '').sort()).toEqual(['duedate', 'immediate', 'list', 'show', 'wait']);
    expect(zshComplete('pix', 'statement', '-o', '').sort()).toEqual(STATEMENT_FORMATS);
    expect(zshComplete('pix', 'keys', '--fields', '').sort()).toEqual([
      'Created',
      'Id',
      'Key',
      'Type',
      'createdAt',
      'id',
      'key',
      'keyType',
    ]);
    expect(zshComplete('pix', 'statement', '--output=nd')).toEqual(['ndjson']);
    expect(zshComplete('pix', 'statement', '--li')).toEqual(['--limit']);
    expect(zshComplete('pix', 'profile', 'use', '').sort()).toEqual(['prod', 'sandbox', 'staging']);
    expect(zshComplete('pix', 'charge', 'immediate', '--expires-in', '2').sort()).toEqual(['2d', '2h', '2m']);
    expect(zshComplete('pix', 'emv', 'decode', '')).toEqual(['<files>']);
  });
});

describe('pix completion fish', () => {
  const fish = hasShell('fish');

  it.skipIf(!fish)('parses (fish -n)', () => {
    const result = spawnSync('fish', ['-n', scripts.fish!], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  /** Installs the script where fish looks for it and asks fish itself (`complete -C`) what it offers. */
  function fishComplete(line: string): string[] {
    const config = join(dir, 'xdg');
    mkdirSync(join(config, 'fish', 'completions'), { recursive: true });
    writeFileSync(
      join(config, 'fish', 'completions', 'pix.fish'),
      spawnSync('cat', [scripts.fish!], { encoding: 'utf8' }).stdout,
    );
    const result = spawnSync('fish', ['-c', 'complete -C $argv[1]', line], {
      encoding: 'utf8',
      cwd: dir,
      env: { PATH: `${stubBin}:/usr/bin:/bin`, HOME: dir, XDG_CONFIG_HOME: config, XDG_DATA_HOME: dir },
    });
    expect(result.stderr).toBe('');
    return result.stdout
      .split('\n')
      .filter((entry) => entry !== '')
      .map((entry) => entry.split('\t')[0]!);
  }

  it.skipIf(!fish)('offers commands, subcommands, formats, profiles and units, without file names', () => {
    expect(fishComplete('pix ch')).toEqual(['charge']);
    expect(fishComplete('pix charge ').sort()).toEqual(['duedate', 'immediate', 'list', 'show', 'wait']);
    expect(fishComplete('pix statement -o ').sort()).toEqual(STATEMENT_FORMATS);
    expect(fishComplete('pix keys --fields ').sort()).toEqual([
      'Created',
      'Id',
      'Key',
      'Type',
      'createdAt',
      'id',
      'key',
      'keyType',
    ]);
    expect(fishComplete('pix statement --li')).toEqual(['--limit']);
    expect(fishComplete('pix profile use ').sort()).toEqual(['prod', 'sandbox', 'staging']);
    expect(fishComplete('pix -p prod charge ').sort()).toEqual([
      'duedate',
      'immediate',
      'list',
      'show',
      'wait',
    ]);
    expect(fishComplete('pix charge immediate --expires-in 30').sort()).toEqual(['30d', '30h', '30m']);
  });
});

describe('pix completion: usage', () => {
  it('an unknown shell is a usage error listing the three', async () => {
    const result = await pix(['completion', 'powershell']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/bash, zsh, fish/);
  });

  it('no shell: missing argument with the usage line', async () => {
    const result = await pix(['completion']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: missing required argument 'shell'\nhint: usage: pix completion [options] <shell>\n",
    );
  });
});
