// `ratefile completion bash|zsh|fish`: a completion script made from the commander program itself, so it never lists a command or option that is not there.
import { Argument, type Command } from 'commander';
import { RatefileError } from '../base/errors.js';
import type { CommandContext } from './context.js';

interface Spec {
  name: string;
  description: string;
  options: { flags: string[]; description: string; takesValue: boolean }[];
}

function specOf(command: Command): Spec {
  const options = [...command.options, ...(command.parent?.options ?? [])].map((option) => ({
    flags: [option.long, option.short].filter((flag): flag is string => flag !== undefined),
    description: option.description,
    takesValue: option.required || option.optional,
  }));
  return {
    name: command.name(),
    description: command.description(),
    options: [...options, { flags: ['--help', '-h'], description: 'display help', takesValue: false }],
  };
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(program: Command, specs: Spec[]): string {
  const cases = specs.map(
    (spec) => `    ${spec.name}) words=${quote(spec.options.flatMap((o) => o.flags).join(' '))} ;;`,
  );
  return [
    `# bash completion for ${program.name()}: source it, or save it as /etc/bash_completion.d/${program.name()}`,
    `_${program.name()}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" command="${COMP_WORDS[1]}" words',
    '  if [ "$COMP_CWORD" -eq 1 ]; then',
    `    COMPREPLY=($(compgen -W ${quote([...specs.map((s) => s.name), ...specOf(program).options.flatMap((o) => o.flags)].join(' '))} -- "$cur"))`,
    '    return',
    '  fi',
    '  case "$command" in',
    ...cases,
    '    *) words="" ;;',
    '  esac',
    '  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$words" -- "$cur")); return; fi',
    // Readline splits `--monitor=bes` into `--monitor`, `=`, `bes`: glued back into one word for __complete, and
    // the value (`bes`, or nothing right after the `=`) is what the candidates replace.
    '  local -a line=(); local i word last',
    '  for ((i = 1; i <= COMP_CWORD; i++)); do',
    '    word="${COMP_WORDS[i]}" last=""',
    '    [ ${#line[@]} -gt 0 ] && last="${line[${#line[@]}-1]}"',
    '    if [[ $last == --* && ( ( $word == "=" && $last != *=* ) || $last == *= ) ]]; then',
    '      line[${#line[@]}-1]+="$word"',
    '    else line+=("$word"); fi',
    '  done',
    '  [ "$cur" = "=" ] && cur=""',
    // An argument or an option's value: the program answers from its choices and the config (exit 3: file names).
    "  local IFS=$'\\n' status",
    `  COMPREPLY=($(${program.name()} __complete "\${line[@]}" 2>/dev/null)); status=$?`,
    '  if [ "$status" -eq 3 ]; then COMPREPLY=($(compgen -f -- "$cur")); fi',
    '}',
    `complete -o filenames -F _${program.name()} ${program.name()}`,
    '',
  ].join('\n');
}

function zsh(program: Command, specs: Spec[]): string {
  // Brackets and colons are _arguments syntax; a quote ends the single-quoted word, so it is closed and reopened.
  const escape = (text: string) => text.replace(/[[\]:]/g, (c) => `\\${c}`).replace(/'/g, `'\\''`);
  const optionLines = (spec: Spec) =>
    spec.options
      .flatMap((o) =>
        o.flags.map((flag) => `'${flag}[${escape(o.description)}]${o.takesValue ? ':value:_files' : ''}'`),
      )
      .join(' ');
  return [
    `#compdef ${program.name()}`,
    `# zsh completion for ${program.name()}: save it as _${program.name()} in a folder on $fpath`,
    `_${program.name()}() {`,
    '  local -a commands',
    `  commands=(${specs.map((s) => `'${s.name}:${escape(s.description)}'`).join(' ')})`,
    '  if (( CURRENT == 2 )) && [[ "${words[CURRENT]}" != --*=* ]]; then',
    "    _describe 'command' commands",
    '    return',
    '  fi',
    // An argument or an option's value: the program answers from its choices and the config (exit 3: file names).
    '  if [[ "${words[CURRENT]}" != -* || "${words[CURRENT]}" == --*=* ]]; then',
    '    local out code',
    `    out="$(${program.name()} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)"`,
    '    code=$?',
    // `--monitor=bes`: the value after the `=` is completed, the option's name kept before it.
    `    [[ "\${words[CURRENT]}" == --*=* ]] && compset -P '*='`,
    '    if (( code == 0 )); then',
    '      local -a candidates',
    '      candidates=(${(f)out})',
    '      (( ${#candidates} )) && compadd -- "${candidates[@]}"',
    '      return',
    '    fi',
    '    if (( code == 3 )); then _files; return; fi',
    '  fi',
    '  case "${words[2]}" in',
    ...specs.map((spec) => `    ${spec.name}) _arguments ${optionLines(spec)} '*:file:_files' ;;`),
    '  esac',
    '}',
    // Autoloaded from $fpath the file is the function's body: complete now; sourced, register it.
    `if [ "$funcstack[1]" = "_${program.name()}" ]; then _${program.name()} "$@"; else compdef _${program.name()} ${program.name()}; fi`,
    '',
  ].join('\n');
}

function fish(program: Command, specs: Spec[]): string {
  const name = program.name();
  const lines = [
    `# fish completion for ${name}: save it as ~/.config/fish/completions/${name}.fish`,
    `complete -c ${name} -f`,
  ];
  for (const spec of specs)
    lines.push(`complete -c ${name} -n '__fish_use_subcommand' -a ${spec.name} -d ${quote(spec.description)}`);
  // An option's value and an argument: the program answers from its choices and the config (exit 3: file names).
  const values = ` -r -f -a '(__${name}_complete)'`;
  const optionLine = (condition: string, option: Spec['options'][number]) => {
    const flags = option.flags
      .map((flag) => (flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`))
      .join(' ');
    return `complete -c ${name} -n '${condition}' ${flags}${option.takesValue ? values : ''} -d ${quote(option.description)}`;
  };
  for (const option of specOf(program).options) lines.push(optionLine('__fish_use_subcommand', option));
  for (const spec of specs)
    for (const option of spec.options) lines.push(optionLine(`__fish_seen_subcommand_from ${spec.name}`, option));
  lines.push(
    `function __${name}_complete`,
    '    set -l before (commandline -opc)',
    '    set -e before[1]',
    '    set -l current (commandline -ct)',
    `    set -l out (${name} __complete $before "$current" 2>/dev/null)`,
    '    set -l code $status',
    '    if test $code -eq 3',
    // `--config=./my`: the value after the `=` (fish puts the option's name back before each candidate).
    `        __fish_complete_path (string replace -r -- '^--[^=]*=' '' "$current")`,
    '    else if test $code -eq 0',
    "        printf '%s\\n' $out",
    '    end',
    'end',
    `complete -c ${name} -n 'not __fish_use_subcommand' -f -a '(__${name}_complete)'`,
  );
  return `${lines.join('\n')}\n`;
}

const shells = { bash, zsh, fish };

export function register(program: Command, context: CommandContext): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(Object.keys(shells)))
    .action((shell: string) => {
      const write = shells[shell as keyof typeof shells];
      if (!write) throw new RatefileError('E_USAGE', `expected bash, zsh or fish, got "${shell}"`);
      const specs = program.commands.filter((command) => command.name() !== 'help').map(specOf);
      context.deps.stdout.write(write(program, specs));
      context.setExitCode(0);
    });
}
