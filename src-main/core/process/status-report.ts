// How a command run in a pty reports the end of its output (pty-exec.ts): one POSIX shell
// runs the command, then prints the status as an OSC sequence and waits for our answer before
// it exits with that status. On Linux, output still unread when the pty's session leader exits
// is lost, so the leader stays until everything before the report has been read. The status
// taken is the shell's exit, not the report, which the command could print too (pty-run.ts).
// Its own module (no node-pty) because a sandbox's launch shell (sandbox/seccomp.ts) ends with
// these lines too: the shell that already starts bwrap is the one that reports.

export const DONE_OSC = '6973';

export interface StatusReport {
  /** Ours alone: the report carries it and only this answer ends the wait. */
  nonce: string;
  /** The command reads the pty (a live view can type into it); otherwise stdin is /dev/null. */
  stdinFromPty: boolean;
  /** The SHLVL the command's shell starts from (wrapperShellLevel), set just before it starts. */
  shellLevel?: number;
}

/**
 * Shell lines (POSIX sh) that run `"$@"`, then report its status and wait for the nonce
 * on stdin before exiting with that status. `redirect`: more redirections for the command
 * (the seccomp filter's descriptor). The command gets the pty as its stderr, its stdin from
 * /dev/null unless the pty is its input; the shell's own stderr goes to /dev/null so that a
 * job report of ours ("Killed ...") shows nowhere. Its variables are its own (not exported).
 */
export function statusReportLines(report: StatusReport, redirect = ''): string[] {
  const { nonce, shellLevel } = report;
  if (!/^[0-9a-f]+$/.test(nonce)) throw new Error('a status report nonce is hex');
  // Set in the subshell, whatever /bin/sh did to its own (bash as sh adds a level, dash none).
  const level = shellLevel !== undefined && Number.isSafeInteger(shellLevel) ? `SHLVL=${shellLevel}; export SHLVL; ` : '';
  return [
    // Ctrl-C typed into the pty reaches this shell too: it still waits for the command (whose
    // own handling of the signal decides how it ends) and reports, as bash would. A handler,
    // not an ignore: the command starts with SIGINT at its default.
    'trap : INT',
    'exec 3>&2 2>/dev/null',
    // In a subshell (one fork, as a plain command): its redirections are then undone before
    // dash reports a signal's death ("Killed"), so that report goes to /dev/null too.
    `(${level}exec "$@" ${redirect ? `${redirect} ` : ''}${report.stdinFromPty ? '' : '</dev/null '}2>&3 3>&-)`,
    '__deepdesk_status=$?',
    `printf '\\033]${DONE_OSC};done;${nonce};%d\\007' "$__deepdesk_status"`,
    // Only our answer ends the wait, not a line the person typed ahead.
    `while read -r __deepdesk_ack; do [ "$__deepdesk_ack" = ${nonce} ] && break; done`,
    'exit "$__deepdesk_status"',
  ];
}

/** `/bin/sh` running `file args` with the status report (statusReportLines). */
export function withStatusReport(report: StatusReport, file: string, args: readonly string[]): { file: string; args: string[] } {
  return { file: '/bin/sh', args: ['-c', statusReportLines(report).join('\n'), 'sh', file, ...args] };
}

/**
 * The SHLVL the command's shell starts from: the command used to run in a second bash or zsh
 * under a first one, which added a level (a number that is not one counts as 0; bash starts
 * again at 1 past 999). The report's shell is /bin/sh now, so that level is given to the
 * command. Undefined for another shell (sh under sh, as before: nothing is set).
 */
export function wrapperShellLevel(shell: string, level: string | undefined): number | undefined {
  if (!/(?:^|\/)(?:bash|zsh)$/.test(shell)) return undefined;
  const n = level !== undefined && /^\s*[+-]?\d+\s*$/.test(level) ? Number(level) : 0;
  const next = n + 1;
  return next < 0 ? 0 : next >= 1000 ? 1 : next;
}
