// The startup file injected into the terminal's shell (bash through --rcfile, sh through
// $ENV) and the lines that run the agent's commands in it.
//
// The shell prints markers (see markers.ts) carrying a nonce kept in an unexported shell
// variable: R with each prompt, B when a command line starts (PS0, bash 4.4+), S and E
// around each agent command, H once the setup is done. An agent command runs in a subshell
// `( cd <root> && eval "$cmd" ) </dev/null` with the non-interactive variables exported
// only there, the nonce unset and aliases removed; the echoed line shows only base64.
import { MARKER_OSC } from './markers';

export type ShellKind = 'bash' | 'sh';

export interface IntegrationScriptOptions {
  kind: ShellKind;
  nonce: string;
  /** Not secret: the per-terminal part of each command's DEEPDESK_EXEC_ID. */
  terminalId: string;
  rootDir: string;
  /** Private folder where commands too long for a line are handed over. */
  handoffDir: string;
  /** Exported inside each agent command's subshell only. */
  commandEnv: Record<string, string>;
}

/** The variable every process of one agent command carries (kill-tree marker). */
export const EXEC_ID_VAR = 'DEEPDESK_EXEC_ID';
/** The variable every process started in the terminal carries (so dispose finds them all). */
export const TERMINAL_ID_VAR = 'DEEPDESK_TERMINAL_ID';
/** sh reads $ENV; the user's own value is handed over in this variable and restored. */
export const USER_ENV_VAR = '__DEEPDESK_USER_ENV';

/** Longest base64 text put on the command line; longer commands go through a file. */
export const MAX_INLINE_BASE64 = 1800;

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function execMarker(terminalId: string, commandId: number): string {
  return `${EXEC_ID_VAR}=${terminalId}-${commandId}`;
}

/** The file a long command is handed over in (read and removed by the shell function). */
export function handoffFileName(commandId: number): string {
  return `${commandId}.cmd`;
}

/**
 * The line typed into the shell to run one command: a leading space keeps it out of the
 * history (HISTCONTROL gets ignorespace), `-` means "read it from the hand-over file".
 */
export function commandLine(commandId: number, command: string): { line: string; viaFile: boolean } {
  const encoded = Buffer.from(command, 'utf8').toString('base64');
  if (encoded.length > MAX_INLINE_BASE64) return { line: ` __deepdesk_run ${commandId} -\r`, viaFile: true };
  return { line: ` __deepdesk_run ${commandId} ${encoded}`.trimEnd() + '\r', viaFile: false };
}

function exportLines(env: Record<string, string>): string {
  const names = Object.keys(env).filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)).sort();
  if (names.length === 0) return ':';
  return names.map((name) => `export ${name}=${shellQuote(env[name] ?? '')}`).join('; ');
}

export function integrationScript(options: IntegrationScriptOptions): string {
  const { kind, nonce } = options;
  const mark = (k: string, fields: string): string => `__deepdesk_mark ${k} ${fields}`;
  const userRc =
    kind === 'bash'
      ? 'if [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi'
      : `if [ -n "\${${USER_ENV_VAR}-}" ]; then ENV=$${USER_ENV_VAR}; export ENV; unset ${USER_ENV_VAR}; . "$ENV"; else unset ENV; fi`;
  const printMark = `printf '\\033]${MARKER_OSC};%s;%s;%s\\007' "$1" "$__deepdesk_nonce" "$2"`;
  const lines = [
    '# Deepdesk terminal integration; removed as soon as the shell has read it.',
    userRc,
    `__deepdesk_nonce=${shellQuote(nonce)}`,
    `__deepdesk_tid=${shellQuote(options.terminalId)}`,
    `__deepdesk_root=${shellQuote(options.rootDir)}`,
    `__deepdesk_dir=${shellQuote(options.handoffDir)}`,
    `if printf 'YQ==' | base64 -d >/dev/null 2>&1; then __deepdesk_b64=-d; else __deepdesk_b64=-D; fi`,
    // With xtrace on (`set -x`), the printf would show the nonce in the trace.
    '__deepdesk_mark() {',
    `  case $- in *x*) set +x; ${printMark}; set -x;; *) ${printMark};; esac`,
    '}',
    `__deepdesk_env() { ${exportLines(options.commandEnv)}; }`,
  ];
  if (kind === 'bash') {
    lines.push(
      // Re-installs the prompt hook should a command have replaced PROMPT_COMMAND.
      '__deepdesk_hook() {',
      '  case "',
      '${PROMPT_COMMAND-}',
      '" in *"',
      '__deepdesk_prompt',
      '"*) ;; *) PROMPT_COMMAND="${PROMPT_COMMAND:+$PROMPT_COMMAND',
      '}__deepdesk_prompt";; esac',
      '}',
      '__deepdesk_prompt() {',
      '  __deepdesk_s=$?',
      '  if [ -n "${__deepdesk_ps0-}" ]; then case "${PS0-}" in *__deepdesk_mark*) ;; *) PS0="${PS0-}"\'$(__deepdesk_mark B "")\';; esac; fi',
      // R goes at the end of PS1 (re-added should the prompt have been replaced): readline
      // prints the prompt once it reads the terminal itself, so a line typed in on R is
      // echoed once, by readline, not also by the kernel's cooked mode.
      '  case "${PS1-}" in *\'${__deepdesk_r}\'*) ;; *) PS1="${PS1-}"\'\\[${__deepdesk_r}\\]\';; esac',
      '  return $__deepdesk_s',
      '}',
      `__deepdesk_r=$(printf '\\033]${MARKER_OSC};R;%s;\\007' "$__deepdesk_nonce")`,
      '__deepdesk_hook',
      'case ":${HISTCONTROL-}:" in *:ignorespace:*|*:ignoreboth:*) ;; *) HISTCONTROL="${HISTCONTROL:+$HISTCONTROL:}ignorespace";; esac',
      '__deepdesk_ps0=',
      'if [ "${BASH_VERSINFO[0]}" -gt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -ge 4 ]; }; then',
      '  __deepdesk_ps0=1',
      '  PS0="${PS0-}"\'$(__deepdesk_mark B "")\'',
      'fi',
    );
  } else {
    lines.push('__deepdesk_hook() { :; }', `PS1="$(${mark('R', '""')})\${PS1-\\$ }"`, '__deepdesk_ps0=');
  }
  lines.push(
    '__deepdesk_run() {',
    '  case $- in *x*) set +x; __deepdesk_xt=1;; *) __deepdesk_xt=;; esac',
    '  if [ "${2-}" = - ]; then',
    '    __deepdesk_cmd=$(cat -- "$__deepdesk_dir/$1.cmd" 2>/dev/null; printf .)',
    '    rm -f -- "$__deepdesk_dir/$1.cmd"',
    '  else',
    "    __deepdesk_cmd=$(printf '%s' \"${2-}\" | base64 $__deepdesk_b64; printf .)",
    '  fi',
    '  __deepdesk_cmd=${__deepdesk_cmd%.}',
    // The typed line shows only base64: show the person the real command, dimmed (not captured).
    "  printf '\\033[2m$ %.2000s\\033[0m\\n' \"$__deepdesk_cmd\"",
    '  stty -echo 2>/dev/null',
    '  __deepdesk_status=0',
    // An interactive shell whose foreground job dies of SIGINT abandons the whole function
    // (no end marker); ignoring SIGINT here while the subshell restores it avoids that.
    "  trap '' INT",
    // The shell's own stderr goes to /dev/null while it waits, so that it does not report
    // a killed command ("Terminated") into the output; the subshell gets the terminal back.
    '  { (',
    '    exec 2>&3 3>&-',
    '    trap - INT',
    '    if [ -n "${BASHPID-}" ]; then',
    `      ${mark('S', '"$1;$BASHPID"')}`,
    '    else',
    // Without $BASHPID the subshell learns its pid from a child; the marker is written in two parts.
    `      printf '\\033]${MARKER_OSC};S;%s;%s;' "$__deepdesk_nonce" "$1"`,
    `      sh -c 'printf "%s\\007" "$PPID"'`,
    '    fi',
    '    unset __deepdesk_nonce __deepdesk_r PS1',
    '    unalias -a 2>/dev/null',
    '    __deepdesk_env',
    `    ${EXEC_ID_VAR}="$__deepdesk_tid-$1"; export ${EXEC_ID_VAR}`,
    '    command cd -- "$__deepdesk_root" && eval "$__deepdesk_cmd"',
    '  ) </dev/null; } 3>&2 2>/dev/null || __deepdesk_status=$?',
    '  trap - INT',
    '  stty echo 2>/dev/null',
    '  unset __deepdesk_cmd',
    `  ${mark('E', '"$1;$__deepdesk_status"')}`,
    '  __deepdesk_hook',
    '  if [ -n "$__deepdesk_xt" ]; then set -x; fi',
    '  return $__deepdesk_status',
    '}',
    `${mark('H', '"ps0=${__deepdesk_ps0:-0}"')}`,
    '',
  );
  return lines.join('\n');
}
