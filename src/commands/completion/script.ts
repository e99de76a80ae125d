// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell code, where ${…} is the shell's.
/**
 * `pix completion bash|zsh|fish`: a completion script generated from the Commander tree itself (every
 * command module loaded), so commands, flags and fixed values cannot drift from what pix accepts.
 *
 * Values offered: an option's or argument's `.choices()` (`-o` formats, the shell names), and what a
 * command attached with completionValues() (modalities, config keys, duration units, profile names).
 * Profile names are read when TAB is pressed, by running `pix profile list` (its piped form is
 * `*?<TAB>name<TAB>url`), so profiles created after the script was generated are offered too.
 * A value pix knows nothing about falls back to the shell's file completion.
 */
import { Argument, type Command, type Option } from 'commander';
import type { Deps } from '../../context.js';
import * as z from '../../zod.js';
import { parseOptions } from '../shared/flags.js';
import {
  addExamples,
  type CompletionValues,
  completionValuesOf,
  defaultVerbOf,
  fieldNamesOf,
  formatsOf,
} from '../shared/help.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const completionOptionsSchema = z.object({ shell: z.enum(SHELLS) });
export type CompletionOptions = z.output<typeof completionOptionsSchema>;

// ---------------------------------------------------------------------------------------------
// The model: one node per command, read from Commander

export type ValueSource =
  | { kind: 'words'; words: string[] }
  | { kind: 'profiles' }
  | { kind: 'units'; units: string[] }
  /** Nothing known: the shell's default (file names). */
  | { kind: 'any' };

export interface CompletionOption {
  short: string | undefined;
  long: string | undefined;
  description: string;
  /** Undefined for a flag without a value. */
  value: ValueSource | undefined;
  /** Declared on an ancestor command (a global flag), not on this one. */
  inherited: boolean;
}

export interface CompletionNode {
  /** The words after `pix`, e.g. ['charge', 'immediate']; [] for pix itself. */
  path: string[];
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  /** Its own options, the global ones, and -h/--help. */
  options: CompletionOption[];
  /** The positional arguments, in order. */
  args: ValueSource[];
}

function sourceOf(
  choices: readonly string[] | undefined,
  attached: CompletionValues | undefined,
): ValueSource {
  if (choices && choices.length > 0) return { kind: 'words', words: [...choices] };
  if (attached === undefined) return { kind: 'any' };
  if ('dynamic' in attached) return { kind: 'profiles' };
  if ('units' in attached) return { kind: 'units', units: [...attached.units] };
  return { kind: 'words', words: [...attached] };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function optionOf(option: Option, inherited = false): CompletionOption {
  return {
    inherited,
    short: option.short,
    long: option.long,
    description: oneLine(option.description),
    value:
      option.required || option.optional
        ? sourceOf(option.argChoices, completionValuesOf(option))
        : undefined,
  };
}

/** Every command of the tree, parents before children, with what completion needs of each. */
export function completionModel(program: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string[], inherited: CompletionOption[]): void => {
    const help = command.createHelp();
    // A noun that runs a default verb (`pix journal` is `pix journal list`) accepts that verb's flags.
    const verb = defaultVerbOf(command);
    const verbOptions = verb ? help.visibleOptions(verb).filter((option) => option.long !== '--help') : [];
    const own = [...help.visibleOptions(command), ...verbOptions].map((option) => optionOf(option));
    // The root's --version is not offered below it; its other options are global (contract §1).
    const passDown = command.options
      .filter((option) => !option.hidden && option.long !== '--version')
      .map((option) => optionOf(option, true));
    const ownNames = new Set(own.flatMap(names));
    const globals = inherited.filter((option) => !names(option).some((name) => ownNames.has(name)));
    // Commander's implicit `help` command is left out: -h/--help is offered instead.
    const subcommands = help.visibleCommands(command).filter((sub) => sub.name() !== 'help');
    // `--fields` offers the fields of this command's records (cli/table.ts), where it has any.
    const fields = fieldNamesOf(command) ?? (verb ? fieldNamesOf(verb) : undefined);
    // `-o` offers this command's formats (cli/table.ts), not every format some command writes; a noun's
    // default verb's when it runs one.
    const formats =
      path.length === 0
        ? undefined
        : ((verb ? formatsOf(verb) : undefined) ?? formatsOf(command) ?? ['table', 'json']);
    const options = [...own, ...globals].map((option) =>
      option.long === '--fields' && fields
        ? { ...option, inherited: false, value: { kind: 'words' as const, words: [...fields] } }
        : option.long === '--output' && formats
          ? { ...option, inherited: false, value: { kind: 'words' as const, words: [...formats] } }
          : option,
    );
    nodes.push({
      path,
      description: oneLine(command.description()),
      subcommands: subcommands.map((sub) => ({ name: sub.name(), description: oneLine(sub.description()) })),
      options,
      args: command.registeredArguments.map((argument: Argument) =>
        sourceOf(argument.argChoices, completionValuesOf(argument)),
      ),
    });
    for (const sub of subcommands) visit(sub, [...path, sub.name()], [...passDown, ...globals]);
  };
  visit(program, [], []);
  return nodes;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces of the scripts

/** A single-quoted word for bash and zsh. */
function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A single-quoted word for fish (backslash and quote escaped). */
function fq(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function names(option: CompletionOption): string[] {
  return [option.short, option.long].filter((name): name is string => name !== undefined);
}

/** `w:words…`, `p:`, `u:units…` or `a:`: how a bash or zsh script is told what to offer. */
function encode(source: ValueSource): string {
  switch (source.kind) {
    case 'words':
      return `w:${source.words.join(' ')}`;
    case 'units':
      return `u:${source.units.join(' ')}`;
    case 'profiles':
      return 'p:';
    case 'any':
      return 'a:';
  }
}

/**
 * The `case` arms of __pix_source: `path|option` or `path|@N` (N-th positional) → encoded source. An
 * option is listed once, where it is declared, for that command and those below it; deeper commands
 * come first so that their own flags win over an ancestor's.
 */
function sourceArms(nodes: CompletionNode[]): string[] {
  const byDepth = [...nodes].sort((a, b) => b.path.length - a.path.length);
  const arms: string[] = [];
  for (const node of byDepth) {
    const key = node.path.join(' ');
    for (const option of node.options) {
      if (option.inherited || !option.value || option.value.kind === 'any') continue;
      const patterns = names(option).flatMap((name) =>
        key === '' ? [`*${sq(`|${name}`)}`] : [sq(`${key}|${name}`), `${sq(`${key} `)}*${sq(`|${name}`)}`],
      );
      arms.push(`    ${patterns.join('|')}) echo ${sq(encode(option.value))} ;;`);
    }
    node.args.forEach((argument, index) => {
      if (argument.kind === 'any') return;
      arms.push(`    ${sq(`${key}|@${index}`)}) echo ${sq(encode(argument))} ;;`);
    });
  }
  return arms;
}

/** __pix_source, the same function in bash and zsh. */
function sourceFunction(nodes: CompletionNode[]): string[] {
  return [
    '# What the value of option $2 (or positional argument @N) of command path $1 is: w:WORDS, u:UNITS, p: (profiles).',
    '__pix_source() {',
    '  case "$1|$2" in',
    ...sourceArms(nodes),
    "    *) echo 'a:' ;;",
    '  esac',
    '}',
  ];
}

function valueOptions(node: CompletionNode): string {
  return node.options
    .filter((option) => option.value !== undefined)
    .flatMap(names)
    .join(' ');
}

function header(shell: Shell, version: string, install: string[]): string[] {
  return [
    `# ${shell} completion for pix, generated by \`pix completion ${shell}\` (pix ${version}).`,
    '# Regenerate it after upgrading pix. Install:',
    ...install.map((line) => `#   ${line}`),
    '',
  ];
}

// ---------------------------------------------------------------------------------------------
// bash

export function bashScript(nodes: CompletionNode[], version: string): string {
  const nodeArms = nodes.map((node) => {
    const options = node.options.flatMap(names).join(' ');
    const commands = node.subcommands.map((sub) => sub.name).join(' ');
    return `    ${sq(node.path.join(' '))}) cmds=${sq(commands)}; opts=${sq(options)}; valopts=${sq(valueOptions(node))} ;;`;
  });
  return [
    ...header('bash', version, [
      'source <(pix completion bash)                                      # this shell',
      'pix completion bash > ~/.local/share/bash-completion/completions/pix  # every new shell',
    ]),
    '# Sets cmds (subcommands), opts (every flag) and valopts (flags taking a value) for the command path $1.',
    '__pix_node() {',
    "  cmds='' opts='' valopts=''",
    '  case "$1" in',
    ...nodeArms,
    '  esac',
    '}',
    '',
    ...sourceFunction(nodes),
    '',
    '# Fills COMPREPLY with the values of source $1 matching $2 (the pix command is $3).',
    '__pix_values() {',
    '  local source="$1" cur="$2" pix="$3" unit',
    '  case "$source" in',
    '    w:*) COMPREPLY=($(compgen -W "${source#w:}" -- "$cur")) ;;',
    '    p:) COMPREPLY=($(compgen -W "$("$pix" profile list 2>/dev/null | cut -f2)" -- "$cur")) ;;',
    '    u:*)',
    '      COMPREPLY=()',
    '      if [[ $cur =~ ^[0-9]+$ ]]; then',
    '        for unit in ${source#u:}; do COMPREPLY+=("$cur$unit"); done',
    '      fi',
    '      ;;',
    '    *) COMPREPLY=(); compopt -o default 2>/dev/null ;;',
    '  esac',
    '}',
    '',
    '_pix() {',
    '  local -a words=()',
    '  local j token cword',
    '  # bash splits "--output=json" at "=" (COMP_WORDBREAKS): join such words back.',
    '  for ((j = 0; j <= COMP_CWORD; j++)); do',
    '    token="${COMP_WORDS[j]}"',
    '    if ((${#words[@]} > 1)) && [[ $token == "=" && ${words[-1]} == -* && ${words[-1]} != *=* ]]; then',
    '      words[-1]+="="',
    '    elif ((${#words[@]} > 1)) && [[ ${words[-1]} == -*= && ${COMP_WORDS[j - 1]} == "=" ]]; then',
    '      words[-1]+="$token"',
    '    else',
    '      words+=("$token")',
    '    fi',
    '  done',
    '  cword=$((${#words[@]} - 1))',
    '  local cur="${words[cword]}" cmdpath="" valueof="" cmds opts valopts',
    '  local -i i=1 nargs=0 endopts=0',
    '  while ((i < cword)); do',
    '    token="${words[i]}"',
    '    __pix_node "$cmdpath"',
    '    if ((endopts)); then',
    '      nargs+=1',
    '    elif [[ $token == "--" ]]; then',
    '      endopts=1',
    '    elif [[ $token == -?* ]]; then',
    '      if [[ $token != *=* && " $valopts " == *" $token "* ]]; then',
    '        if ((i + 1 == cword)); then valueof="$token"; fi',
    '        i+=1',
    '      fi',
    '    elif ((nargs == 0)) && [[ " $cmds " == *" $token "* ]]; then',
    '      cmdpath="${cmdpath:+$cmdpath }$token"',
    '    else',
    '      nargs+=1',
    '    fi',
    '    i+=1',
    '  done',
    '  __pix_node "$cmdpath"',
    '  if [[ -n $valueof ]]; then',
    '    __pix_values "$(__pix_source "$cmdpath" "$valueof")" "$cur" "${words[0]}"',
    '  elif ((!endopts)) && [[ $cur == -?*=* ]]; then',
    '    __pix_values "$(__pix_source "$cmdpath" "${cur%%=*}")" "${cur#*=}" "${words[0]}"',
    '  elif ((!endopts)) && [[ $cur == -* ]]; then',
    '    COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
    '  elif ((nargs == 0)) && [[ -n $cmds ]]; then',
    '    COMPREPLY=($(compgen -W "$cmds" -- "$cur"))',
    '  else',
    '    __pix_values "$(__pix_source "$cmdpath" "@$nargs")" "$cur" "${words[0]}"',
    '  fi',
    '}',
    '',
    'complete -F _pix pix',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// zsh

export function zshScript(nodes: CompletionNode[], version: string): string {
  const describe = (name: string, description: string) => sq(`${name.replace(/:/g, '\\:')}:${description}`);
  const nodeArms = nodes.map((node) => {
    const commands = node.subcommands.map((sub) => describe(sub.name, sub.description)).join(' ');
    const options = node.options
      .flatMap((option) => names(option).map((name) => describe(name, option.description)))
      .join(' ');
    return [
      `    ${sq(node.path.join(' '))})`,
      `      cmds=(${commands})`,
      `      opts=(${options})`,
      `      valopts=${sq(valueOptions(node))} ;;`,
    ].join('\n');
  });
  return [
    '#compdef pix',
    ...header('zsh', version, [
      'pix completion zsh > "${fpath[1]}/_pix"   # or any directory of $fpath, then: compinit',
      'source <(pix completion zsh)             # this shell only, after compinit',
    ]),
    '# Sets cmds and opts (name:description) and valopts (flags taking a value) for the command path $1.',
    '__pix_node() {',
    "  cmds=() opts=() valopts=''",
    '  case "$1" in',
    ...nodeArms,
    '  esac',
    '}',
    '',
    ...sourceFunction(nodes),
    '',
    '# Offers the values of source $1; $2 is what was typed, $3 the pix command.',
    '__pix_values() {',
    '  local source="$1" cur="$2" pix="$3" unit',
    '  local -a values',
    '  case "$source" in',
    '    w:*) values=(${(s: :)source#w:}); compadd -a values ;;',
    '    p:) values=(${(f)"$("$pix" profile list 2>/dev/null | cut -f2)"}); compadd -a values ;;',
    '    u:*)',
    '      if [[ $cur == <-> ]]; then',
    '        for unit in ${(s: :)source#u:}; do values+=("$cur$unit"); done',
    '        compadd -a values',
    '      fi',
    '      ;;',
    '    *) _default ;;',
    '  esac',
    '}',
    '',
    '_pix() {',
    '  local cur="${words[CURRENT]}" cmdpath="" valueof="" token valopts',
    '  local -a cmds opts',
    '  local -i i=2 nargs=0 endopts=0',
    '  while ((i < CURRENT)); do',
    '    token="${words[i]}"',
    '    __pix_node "$cmdpath"',
    '    if ((endopts)); then',
    '      nargs+=1',
    '    elif [[ $token == "--" ]]; then',
    '      endopts=1',
    '    elif [[ $token == -?* ]]; then',
    '      if [[ $token != *=* && " $valopts " == *" $token "* ]]; then',
    '        if ((i + 1 == CURRENT)); then valueof="$token"; fi',
    '        i+=1',
    '      fi',
    '    elif ((nargs == 0 && ${cmds[(I)${(b)token}:*]})); then',
    '      cmdpath="${cmdpath:+$cmdpath }$token"',
    '    else',
    '      nargs+=1',
    '    fi',
    '    i+=1',
    '  done',
    '  __pix_node "$cmdpath"',
    '  if [[ -n $valueof ]]; then',
    '    __pix_values "$(__pix_source "$cmdpath" "$valueof")" "$cur" "${words[1]}"',
    '  elif ((!endopts)) && [[ $cur == -?*=* ]]; then',
    '    local option="${cur%%=*}"',
    "    compset -P '*='",
    '    __pix_values "$(__pix_source "$cmdpath" "$option")" "${cur#*=}" "${words[1]}"',
    '  elif ((!endopts)) && [[ $cur == -* ]]; then',
    "    _describe -t options 'option' opts",
    '  elif ((nargs == 0 && ${#cmds} > 0)); then',
    "    _describe -t commands 'command' cmds",
    '  else',
    '    __pix_values "$(__pix_source "$cmdpath" "@$nargs")" "$cur" "${words[1]}"',
    '  fi',
    '}',
    '',
    'if [[ $zsh_eval_context[-1] == loadautofunc ]]; then',
    '  _pix "$@"',
    'else',
    '  compdef _pix pix',
    'fi',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// fish

export function fishScript(nodes: CompletionNode[], version: string): string {
  const lines: string[] = [
    ...header('fish', version, [
      'pix completion fish > ~/.config/fish/completions/pix.fish',
      'pix completion fish | source   # this shell only',
    ]),
    '# The flags taking a value, and the subcommands, of the command path $argv[1].',
    'function __pix_valopts',
    '    switch "$argv[1]"',
  ];
  for (const node of nodes) {
    const flags = valueOptions(node);
    if (flags)
      lines.push(`        case ${fq(node.path.join(' '))}`, `            string split ' ' -- ${fq(flags)}`);
  }
  lines.push('    end', 'end', '', 'function __pix_cmds', '    switch "$argv[1]"');
  for (const node of nodes) {
    if (node.subcommands.length === 0) continue;
    lines.push(
      `        case ${fq(node.path.join(' '))}`,
      `            string split ' ' -- ${fq(node.subcommands.map((sub) => sub.name).join(' '))}`,
    );
  }
  lines.push(
    '    end',
    'end',
    '',
    '# Prints the command path typed so far, then how many positional arguments follow it.',
    'function __pix_state',
    '    set -l tokens (commandline -opc)',
    '    set -e tokens[1]',
    "    set -l cmdpath ''",
    '    set -l nargs 0',
    '    set -l skip 0',
    '    set -l endopts 0',
    '    for token in $tokens',
    '        if test $skip = 1',
    '            set skip 0',
    '        else if test $endopts = 1',
    '            set nargs (math $nargs + 1)',
    '        else if test "$token" = \'--\'',
    '            set endopts 1',
    "        else if string match -q -- '-?*' $token",
    "            if not string match -q -- '*=*' $token; and contains -- $token (__pix_valopts $cmdpath)",
    '                set skip 1',
    '            end',
    '        else if test $nargs = 0; and contains -- $token (__pix_cmds $cmdpath)',
    '            set cmdpath (string trim -- "$cmdpath $token")',
    '        else',
    '            set nargs (math $nargs + 1)',
    '        end',
    '    end',
    '    echo $cmdpath',
    '    echo $nargs',
    'end',
    '',
    '# True when the command path is $argv[1] (and, given $argv[2], that many arguments were typed).',
    'function __pix_at',
    '    set -l state (__pix_state)',
    '    test "$state[1]" = "$argv[1]"; or return 1',
    '    test (count $argv) -lt 2; or test "$state[2]" = "$argv[2]"',
    'end',
    '',
    'function __pix_profiles',
    '    set -l pix (commandline -opc)[1]',
    '    $pix profile list 2>/dev/null | cut -f2',
    'end',
    '',
    '# A number typed so far followed by each unit: 30 → 30m 30h 30d.',
    'function __pix_units',
    "    set -l cur (string replace -r -- '^-[^=]*=' '' (commandline -ct))",
    "    string match -qr -- '^[0-9]+$' $cur; or return",
    '    for unit in $argv',
    '        echo $cur$unit',
    '    end',
    'end',
    '',
    'complete -c pix -f',
  );
  const values = (source: ValueSource): string => {
    switch (source.kind) {
      case 'words':
        return `-x -a ${fq(source.words.join(' '))}`;
      case 'profiles':
        return "-x -a '(__pix_profiles)'";
      case 'units':
        return `-x -a ${fq(`(__pix_units ${source.units.join(' ')})`)}`;
      case 'any':
        return '-r -F';
    }
  };
  for (const node of nodes) {
    const at = fq(`__pix_at ${fq(node.path.join(' '))}`);
    for (const sub of node.subcommands) {
      lines.push(`complete -c pix -n ${at} -a ${fq(sub.name)} -d ${fq(sub.description)}`);
    }
    for (const option of node.options) {
      const flags = [
        option.short ? `-s ${option.short.slice(1)}` : '',
        option.long ? `-l ${option.long.slice(2)}` : '',
      ].filter(Boolean);
      const takes = option.value ? ` ${values(option.value)}` : '';
      lines.push(`complete -c pix -n ${at} ${flags.join(' ')}${takes} -d ${fq(option.description)}`);
    }
    node.args.forEach((argument, index) => {
      const atArg = fq(`__pix_at ${fq(node.path.join(' '))} ${index}`);
      // Positional values: the same sources, without the option's "takes a value" mark.
      const offer = values(argument).replace(/^-[xr] /, '');
      lines.push(`complete -c pix -n ${atArg} ${offer}`);
    });
  }
  lines.push('');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The command

/**
 * A fresh command tree with every command module loaded (the one being run has only this command in it).
 * The loader (cli/load.ts) gives it: this module importing the loader, which loads this one, would be a cycle.
 */
export type WholeTree = () => Promise<Command>;

export async function runCompletion(
  options: CompletionOptions,
  deps: Deps,
  wholeTree: WholeTree,
): Promise<void> {
  const program = await wholeTree();
  const nodes = completionModel(program);
  const version = program.version() ?? '';
  const script =
    options.shell === 'bash'
      ? bashScript(nodes, version)
      : options.shell === 'zsh'
        ? zshScript(nodes, version)
        : fishScript(nodes, version);
  deps.io.stdout.write(script);
}

export function register(command: Command, deps: Deps, wholeTree: WholeTree): void {
  command
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action(async (shell: string) => {
      await runCompletion(
        parseOptions(completionOptionsSchema, { shell }, { shell: 'SHELL' }),
        deps,
        wholeTree,
      );
    });
  addExamples(
    command,
    [
      'source <(pix completion bash)',
      'mkdir -p ~/.zfunc && pix completion zsh > ~/.zfunc/_pix   # with fpath=(~/.zfunc $fpath) in ~/.zshrc',
      'pix completion fish > ~/.config/fish/completions/pix.fish',
    ],
    ['usage'],
  );
}
