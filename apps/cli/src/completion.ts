import type { Command } from 'commander';

/** Flags of a command as the shell completes them (long and short forms). */
const flagsOf = (command: Command): string[] =>
  command.options.flatMap((o) => [o.long, o.short].filter((f): f is string => typeof f === 'string'));

/**
 * A completion script generated from the command tree itself, so it always offers the commands and options the
 * CLI has: subcommands after `tenet`, each subcommand's options after it, file names elsewhere.
 */
export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const commands = program.commands.map((c) => c.name());
  const cases = program.commands.map((c) => `    ${c.name()}) opts="${[...flagsOf(c), '--help'].join(' ')}" ;;`).join('\n');
  const globals = [...flagsOf(program), '--help'].join(' ');
  const bash = `_tenet_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" sub="" opts="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) sub="\${COMP_WORDS[i]}"; break ;; esac
  done
  if [[ -z "$sub" ]]; then
    COMPREPLY=( $(compgen -W "${commands.join(' ')} ${globals}" -- "$cur") ); return
  fi
  case "$sub" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W "$opts" -- "$cur") ); else COMPREPLY=( $(compgen -f -- "$cur") ); fi
}
complete -o filenames -F _tenet_complete tenet`;
  if (shell === 'bash') return bash;
  // zsh runs the bash function through its bashcompinit emulation.
  return `autoload -U +X bashcompinit && bashcompinit\n${bash}`;
}
