/**
 * `gen-card-api completion bash|zsh|fish`: a shell completion script built from the program itself (its commands,
 * nested commands, options, option values with fixed choices), so a new command or option completes without
 * anyone editing a script. Descriptions are quoted for each shell; nothing from outside the program reaches them.
 */
import { Argument, type Command, type Option } from 'commander';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

interface CommandInfo {
  /** Names from the program down, without the program's own: `['events', 'list']`. */
  path: string[];
  description: string;
  options: Option[];
  subcommands: CommandInfo[];
  /** Whether the command takes file-like positional arguments (a spec, a side of a diff). */
  takesFiles: boolean;
  /** The fixed values of its first positional argument, if it has them (`completion <shell>`). */
  argChoices: string[];
}

function visible(command: Command): Option[] {
  return command.options.filter((o) => !o.hidden && o.long !== undefined);
}

function describe(command: Command, path: string[]): CommandInfo {
  const subs = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== 'help');
  return {
    path,
    description: command.description().split('\n')[0] ?? '',
    options: visible(command),
    subcommands: subs.map((c) => describe(c, [...path, c.name()])),
    takesFiles: command.registeredArguments.some((a) => a.argChoices === undefined),
    argChoices: command.registeredArguments[0]?.argChoices ?? [],
  };
}

function flatten(info: CommandInfo): CommandInfo[] {
  return [info, ...info.subcommands.flatMap(flatten)];
}

function takesValue(option: Option): boolean {
  return option.required || option.optional;
}

const sq = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(program: string, root: CommandInfo): string {
  const fn = `_${program.replace(/[^A-Za-z0-9]/g, '_')}`;
  const all = flatten(root);
  const words = (info: CommandInfo): string =>
    [...info.subcommands.map((s) => s.path.at(-1)!), ...info.argChoices, ...info.options.flatMap((o) => [o.long!, ...(o.short ? [o.short] : [])]), '--help'].join(' ');
  const cases = all.map((info) => `    ${sq(info.path.join(' '))}) words=${sq(words(info))}; files=${info.takesFiles ? 1 : 0} ;;`).join('\n');
  const choices = all
    .flatMap((info) => info.options.filter((o) => o.argChoices).map((o) => `    ${sq(`${info.path.join(' ')}:${o.long}`)}) COMPREPLY=( $(compgen -W ${sq(o.argChoices!.join(' '))} -- "$cur") ); return ;;`))
    .join('\n');
  const valued = all.flatMap((info) => info.options.filter((o) => takesValue(o) && !o.argChoices).map((o) => sq(`${info.path.join(' ')}:${o.long}`)));
  const nested = all.filter((i) => i.subcommands.length > 0 && i.path.length > 0).map((i) => sq(i.path.join(' ')));
  return `# ${program} completion for bash. Load it with:  source <(${program} completion bash)
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" cmdpath="" word i words files
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for (( i = 1; i < COMP_CWORD; i++ )); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    case "\${cmdpath:+$cmdpath }$word" in
      ${[...nested, ...all.filter((i) => i.path.length > 0).map((i) => sq(i.path.join(' ')))].filter((v, i, a) => a.indexOf(v) === i).join('|') || "''"}) cmdpath="\${cmdpath:+$cmdpath }$word" ;;
      *) break ;;
    esac
  done
  case "$cmdpath:$prev" in
${choices || "    '') ;;"}
    ${valued.join('|') || "''"}) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;
  esac
  case "$cmdpath" in
${cases}
  esac
  if [[ "$cur" == -* || $files == 0 ]]; then
    COMPREPLY=( $(compgen -W "$words" -- "$cur") )
  else
    COMPREPLY=( $(compgen -W "$words" -- "$cur") $(compgen -f -- "$cur") )
  fi
}
complete -o filenames -F ${fn} ${program}
`;
}

/** A zsh `_describe` entry `name:description`: the name's own colons escaped, the description taken as it is. */
const zDescribe = (name: string, description: string): string => sq(`${name.replace(/([\\:])/g, '\\$1')}:${description}`);

function zsh(program: string, root: CommandInfo): string {
  const fn = `_${program.replace(/[^A-Za-z0-9]/g, '_')}`;
  const all = flatten(root);
  const body = all
    .map((info) => {
      const specs = info.options.map((o) => {
        const value = takesValue(o) ? (o.argChoices ? `:value:(${o.argChoices.join(' ')})` : ':value:_files') : '';
        const names = o.short ? `{${o.short},${o.long}}` : o.long!;
        const desc = o.description.split('\n')[0]!.replace(/\\/g, '\\\\').replace(/([[\]:])/g, '\\$1');
        return `${names}${sq(`[${desc}]${value}`)}`;
      });
      const subs = info.subcommands.map((s) => zDescribe(s.path.at(-1)!, s.description));
      const lines = [`      '--help[print help]'`, ...specs.map((s) => `      ${s}`)];
      if (subs.length > 0) {
        return `    ${sq(info.path.join(' '))})
      local -a subcommands=(${subs.join(' ')})
      _arguments -s \\
${lines.join(' \\\n')} \\
        '1:command:->sub' '*::arg:->args'
      [[ $state == sub ]] && _describe command subcommands
      ;;`;
      }
      const positional = info.argChoices.length > 0 ? ` \\\n      ${sq(`1:value:(${info.argChoices.join(' ')})`)}` : info.takesFiles ? ` \\\n      '*:file:_files'` : '';
      return `    ${sq(info.path.join(' '))})
      _arguments -s \\
${lines.join(' \\\n')}${positional}
      ;;`;
    })
    .join('\n');
  const depthWords = all
    .filter((i) => i.path.length > 0)
    .map((i) => sq(i.path.join(' ')))
    .join('|');
  return `#compdef ${program}
# ${program} completion for zsh. Load it with:  source <(${program} completion zsh)   (after compinit)
${fn}() {
  local cmdpath="" word i state
  for (( i = 2; i < CURRENT; i++ )); do
    word="\${words[i]}"
    [[ "$word" == -* ]] && continue
    case "\${cmdpath:+$cmdpath }$word" in
      ${depthWords || "''"}) cmdpath="\${cmdpath:+$cmdpath }$word" ;;
      *) break ;;
    esac
  done
  case "$cmdpath" in
${body}
  esac
}
if (( $+functions[compdef] )); then compdef ${fn} ${program}; fi
`;
}

function fish(program: string, root: CommandInfo): string {
  const lines = [`# ${program} completion for fish. Load it with:  ${program} completion fish | source`, `complete -c ${program} -f`];
  const seen = (info: CommandInfo): string => {
    if (info.path.length === 0) return '__fish_use_subcommand';
    const parts = info.path.map((name) => `__fish_seen_subcommand_from ${name}`);
    return parts.join('; and ');
  };
  for (const info of flatten(root)) {
    const condition = seen(info);
    const notDeeper = info.subcommands.length > 0 && info.path.length > 0 ? `; and not __fish_seen_subcommand_from ${info.subcommands.map((s) => s.path.at(-1)).join(' ')}` : '';
    for (const sub of info.subcommands) lines.push(`complete -c ${program} -n ${sq(condition + notDeeper)} -a ${sq(sub.path.at(-1)!)} -d ${sq(sub.description)}`);
    for (const o of info.options) {
      const parts = [`complete -c ${program} -n ${sq(condition)} -l ${o.long!.slice(2)}`];
      if (o.short) parts.push(`-s ${o.short.slice(1)}`);
      if (takesValue(o)) parts.push(o.argChoices ? `-x -a ${sq(o.argChoices.join(' '))}` : '-r -F');
      parts.push(`-d ${sq(o.description.split('\n')[0]!)}`);
      lines.push(parts.join(' '));
    }
    if (info.argChoices.length > 0) lines.push(`complete -c ${program} -n ${sq(condition)} -a ${sq(info.argChoices.join(' '))}`);
    else if (info.takesFiles && info.path.length > 0) lines.push(`complete -c ${program} -n ${sq(condition)} -F`);
  }
  return `${lines.join('\n')}\n`;
}

/** The completion script of `program` for `shell`. */
export function completionScript(program: Command, shell: Shell): string {
  const root = describe(program, []);
  if (shell === 'bash') return bash(program.name(), root);
  if (shell === 'zsh') return zsh(program.name(), root);
  return fish(program.name(), root);
}

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(gen-card-api completion bash), or zsh, or gen-card-api completion fish | source')
    .addArgument(new Argument('<shell>', 'the shell').choices([...SHELLS]))
    .action((shell: Shell) => {
      process.stdout.write(completionScript(program, shell));
    });
}
