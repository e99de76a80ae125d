/**
 * docs/cli-contract.md against pix itself: every flag the contract names is a flag pix has, and a flag it
 * names in a command (`pix pay key … --expect-name`) is one of that command's (or a global one, or its
 * default verb's), as `--help` shows them. The contract is the promise to scripts: a flag renamed or gone
 * must fail here, not in someone's pipeline.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { wholeProgram } from '../src/cli/load.js';
import { defaultVerbOf } from '../src/cli/table.js';
import { parseAmount } from '../src/domain/money.js';
import { createContext } from '../src/wiring.js';
import { createTestIO } from './helpers/io.js';

const contract = readFileSync(new URL('../docs/cli-contract.md', import.meta.url), 'utf8');
const { deps } = createContext({
  argv: [],
  io: createTestIO().io,
  env: { PIX_CONFIG_DIR: '/nonexistent/pix' },
});
const { program } = await wholeProgram(deps);

const flagsOf = (command: Command) =>
  command.options.flatMap((option) => [option.long, option.short, option.negate ? option.long : undefined]);
// Commander's own, on every command.
const globals = new Set([...flagsOf(program), '--help', '-h']);
const everywhere = new Set<string>();
const visit = (command: Command) => {
  for (const flag of flagsOf(command)) if (flag) everywhere.add(flag);
  for (const sub of command.commands) visit(sub);
};
visit(program);

/** The command a `pix …` span names, by its longest path in the tree. */
function commandOf(words: readonly string[]): Command {
  let at = program;
  for (const word of words) {
    const sub = at.commands.find((command) => command.name() === word);
    if (!sub) break;
    at = sub;
  }
  return at;
}

/** A flag as written in the contract: `--all`, `--no-input`, `-o`; values and `=` cut off. */
const FLAG = /(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])/g;

describe('docs/cli-contract.md names only flags pix has', () => {
  it('every flag it names exists on some command (or is global)', () => {
    // Another program's flags (`npm install -g`) are not pix's.
    const text = contract.replace(/`npm [^`]*`/g, '');
    const named = new Set([...text.matchAll(FLAG)].map((match) => match[1]!));
    expect(named.size).toBeGreaterThan(30);
    const missing = [...named].filter((flag) => !everywhere.has(flag) && !globals.has(flag));
    expect(missing).toEqual([]);
  });

  it("a flag written in a `pix …` command is that command's, a global one, or its default verb's", () => {
    const wrong: string[] = [];
    let spans = 0;
    for (const match of contract.matchAll(/`(pix [^`]+)`/g)) {
      const text = match[1]!;
      const words = text.split(/\s+/).slice(1);
      // `pix pay key|qr|batch …`: each of the commands it names.
      const cut = words.findIndex((word) => !/^[a-z][a-z|-]*$/.test(word));
      const path = cut === -1 ? words : words.slice(0, cut);
      const alternatives = path.reduce<string[][]>(
        (paths, word) => paths.flatMap((p) => word.split('|').map((one) => [...p, one])),
        [[]],
      );
      for (const alternative of alternatives) {
        const command = commandOf(alternative);
        if (command === program) continue;
        spans++;
        const verb = defaultVerbOf(command);
        // `pix journal [show ID | resolve ID --paid]`: the verbs a span names in brackets, too.
        const named = command.commands.filter(
          (sub) => text.includes(`[${sub.name()} `) || text.includes(`| ${sub.name()} `),
        );
        const own = new Set([
          ...flagsOf(command),
          ...(verb ? flagsOf(verb) : []),
          ...named.flatMap(flagsOf),
          ...globals,
        ]);
        for (const flag of text.matchAll(FLAG)) {
          if (!own.has(flag[1]!)) wrong.push(`${text}: ${flag[1]} is not a flag of ${command.name()}`);
        }
      }
    }
    expect(spans).toBeGreaterThan(10);
    expect(wrong).toEqual([]);
  });
});

describe("docs/cli-contract.md's values are what pix reads", () => {
  it('the amounts §2 accepts are read, the ones it refuses are refused', () => {
    const row = /^\| amount `A` \| (.*) \| (.*) \|$/m.exec(contract);
    expect(row).not.toBeNull();
    const examples = (cell: string) => [...cell.matchAll(/`([^`]*)`/g)].map((match) => match[1]!);
    const accepted = examples(row![1]!);
    const refused = examples(row![2]!);
    expect(accepted).toContain('1.234,56');
    for (const amount of accepted) expect(() => parseAmount(amount), amount).not.toThrow();
    for (const amount of refused) expect(() => parseAmount(amount), amount).toThrow();
  });
});
