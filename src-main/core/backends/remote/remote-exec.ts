// Commands on a remote folder (SPEC §13, §3 execute): the same result as runInPty gives
// locally (output cap, timeout note and 124, cancel note, the non-interactive environment),
// from a pty on the remote: the system ssh with `-tt` runs in a local pty (node-pty), so the
// remote pty's bytes reach a live view as they come and what the person types reaches the
// command.
//
// On the remote, a small sh wrapper sets the environment, turns on job control (`set -m`)
// and runs the command (in the folder) as a foreground job: a process group of its own
// that keeps the pty as its controlling terminal (so a typed ^C, /dev/tty and the hang-up
// of a lost connection reach it, as they would in a local pty; setsid would detach it from
// the pty). The job first reports its PGID on the stream (an OSC sequence, cut out of the
// output), the wrapper then reports the status the same way as the local wrapper does.
// Stop and timeouts kill that group, and every process carrying the run's marker variable
// where the remote has /proc, with a second call over the same connection.
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import type { CommandSpec, PreparedCommand } from '../../sandbox/types';
import { terminalToText } from '../../text/ansi';
import { collectPtyRun, endPty, startCommandPty } from '../../process/pty-run';
import { EXEC_MARKER_VAR, newTreeMarker } from '../../process/process-tree';
import type { ExecuteResult } from '../protocol';
import {
  CANCELLED_BEFORE_START,
  CANCELLED_NOTE,
  composeOutput,
  DoneReportScanner,
  exitCodeOf,
  TIMEOUT_EXIT_CODE,
  type RunInPtyOptions,
  timeoutNote,
} from '../../process/pty-exec';
import { NON_INTERACTIVE_ENV } from '../../process/shell-env';
import { DONE_OSC } from '../../process/status-report';
import { traceparentEnv } from '../../process/traceparent';
import { SshConnectionError, type SshConnection } from './ssh-connection';
import { shQuote } from '../../text/shell-quote';
import { messageOf } from '../../fs/errno';

/** As a local run's (RunInPtyOptions), on the remote; the sandbox is the remote's (remote-sandbox.ts). */
export interface RemoteCommandOptions extends Omit<RunInPtyOptions, 'env'> {
  /** Variables set for the command on top of the remote user's own environment and NON_INTERACTIVE_ENV. */
  env?: Record<string, string>;
}

export interface RemoteExecuteResult extends ExecuteResult {
  /**
   * The connection failed before the command reported its end (the output then starts with
   * this text, `Error: ` and the host): what the tool shows instead of an exit status.
   */
  connectionError?: string;
}

/** What a run needs to know about the remote account, asked once per connection. */
export interface RemoteHost {
  /** The user's shell when it is bash or zsh, else bash, else /bin/sh (as resolveShell locally). */
  shell: string;
  /** The PATH the user's login shell sets up, when it could be had within a few seconds. */
  loginPath?: string;
  home: string;
  uid: number;
}

/** What is kept of the bytes before the job's report (for ssh's own error when it never starts). */
const PREAMBLE_KEPT = 16 * 1024;
/** ssh's status for its own failures. */
const SSH_FAILURE_EXIT_CODE = 255;
const LOGIN_PATH_TIMEOUT_MS = 5000;
const PATH_MARK = '__DEEPDESK_LOGIN_PATH__';
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A line of ssh's own about its connection (not the command's output). */
const SSH_SAYS = /^(?:Shared connection to|Connection to|ssh:|client_loop:|mux_client|Control ?socket|packet_write_wait|Timeout, server|Host key verification failed|Permission denied \(publickey)/;

const hosts = new WeakMap<SshConnection, Promise<RemoteHost>>();

/** The remote account's shell, home, uid and login PATH; asked once per connection (again after a failure). */
export function remoteHost(connection: SshConnection): Promise<RemoteHost> {
  let known = hosts.get(connection);
  if (!known) {
    known = askRemoteHost(connection);
    hosts.set(connection, known);
    known.catch(() => hosts.delete(connection));
  }
  return known;
}

async function askRemoteHost(connection: SshConnection): Promise<RemoteHost> {
  const script = [
    's=${SHELL:-}',
    'case "${s##*/}" in bash|zsh) [ -x "$s" ] || s= ;; *) s= ;; esac',
    '[ -n "$s" ] || s=$(command -v bash 2>/dev/null) || s=/bin/sh',
    `printf '%s\\0%s\\0%s\\0' "$s" "$HOME" "$(id -u)"`,
  ].join('\n');
  const r = await connection.run(script, { timeoutMs: 30_000 });
  const [shell, home, uid] = r.stdout.toString('utf8').split('\0');
  if (r.code !== 0 || !shell || home === undefined || !uid) {
    throw new SshConnectionError(`could not read the remote account (${connection.label}): ${r.stderr.trim() || `status ${r.code}`}`, 'lost');
  }
  const loginPath = await askLoginPath(connection);
  return { shell, home, uid: Number(uid), ...(loginPath !== undefined ? { loginPath } : {}) };
}

/** As getLoginShellPath locally: `$SHELL -ilc` (bash, zsh) or `-lc`, the PATH cut out between marks. */
async function askLoginPath(connection: SshConnection): Promise<string | undefined> {
  const script = [
    'case "${SHELL##*/}" in bash|zsh) f=-ilc ;; sh|dash|ksh|mksh|fish) f=-lc ;; *) exit 0 ;; esac',
    `exec "$SHELL" "$f" ${shQuote(`printf '${PATH_MARK}%s${PATH_MARK}' "$PATH"`)} </dev/null 2>/dev/null`,
  ].join('\n');
  try {
    const out = (await connection.run(script, { timeoutMs: LOGIN_PATH_TIMEOUT_MS })).stdout.toString('utf8');
    const start = out.indexOf(PATH_MARK);
    const end = start === -1 ? -1 : out.indexOf(PATH_MARK, start + PATH_MARK.length);
    const path = end === -1 ? '' : out.slice(start + PATH_MARK.length, end);
    return path.length > 0 ? path : undefined;
  } catch {
    return undefined;
  }
}

/** The variables every remote command gets: the login PATH, NON_INTERACTIVE_ENV, then the caller's. */
export function remoteCommandEnv(host: RemoteHost, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(host.loginPath !== undefined ? { PATH: host.loginPath } : {}), ...NON_INTERACTIVE_ENV, ...extra };
}

/** `export NAME='value'` lines; names that are no shell variable are left out (they could not be set by sh). */
export function exportLines(env: Record<string, string>): string[] {
  return Object.entries(env)
    .filter(([name]) => VARIABLE_NAME.test(name))
    .map(([name, value]) => `export ${name}=${shQuote(value)}`);
}

/**
 * The wrapper the remote `sh` runs in its pty (see the top of this file). The job's own
 * stderr is the pty; the wrapper's goes to /dev/null so that its job reports ("Terminated",
 * "can't access tty") show nowhere.
 */
export function remoteWrapperScript(spec: CommandSpec, nonce: string, stdinFromPty: boolean): string {
  const argv = [spec.file, ...spec.args].map(shQuote).join(' ');
  const report = (kind: string, value: string): string => `printf '\\033]${DONE_OSC};${kind};${nonce};%d\\007' ${value}`;
  // The job's first process (an sh) is its process group: its $$ is reported before anything
  // else. It takes its stderr (and stdin) itself: a redirection on the wrapper's command line
  // would also catch the wrapper's own report of how the job ended ("Terminated"). When the
  // command is over, it ends what the command left running in the group (as killProcessGroup
  // after a local command; SIGTERM only), with no second call over the connection.
  const job = [
    `exec 2>&3 3>&-${stdinFromPty ? '' : ' </dev/null'}`,
    report('pgid', '"$$"'),
    `cd -- "$0" 2>/dev/null || { printf 'cannot enter the folder %s\\n' "$0" >&2; exit 1; }`,
    // $1: whether job control made this a group of its own (else the group is the wrapper's).
    '__deepdesk_own_group=$1',
    'shift',
    '"$@"',
    '__deepdesk_status=$?',
    `[ -z "$__deepdesk_own_group" ] || { trap '' TERM; kill -TERM 0; kill -CONT 0; } 2>/dev/null`,
    'exit "$__deepdesk_status"',
  ].join('; ');
  return [
    'exec 3>&2 2>/dev/null',
    ...exportLines(spec.env),
    '[ -n "${LANG:-}${LC_ALL:-}${LC_CTYPE:-}" ] || export LANG=C.UTF-8',
    // bash run with SSH_CLIENT set and SHLVL below 1 (the login bash's `exec` leaves 0) believes
    // sshd started it and reads ~/.bashrc, whose output would land in the command's.
    "case ${SHLVL:-} in ''|0|-*) export SHLVL=1 ;; esac",
    'set -m',
    'case $- in *m*) __deepdesk_own_group=1 ;; *) __deepdesk_own_group= ;; esac',
    // A shell with job control whose foreground job died of SIGINT raises it on itself (dash):
    // caught, not ignored (an ignored signal would be inherited by the job), so the report still comes.
    'trap : INT',
    `sh -c ${shQuote(job)} ${shQuote(spec.cwd)} "$__deepdesk_own_group" ${argv}`,
    '__deepdesk_status=$?',
    'set +m',
    report('done', '"$__deepdesk_status"'),
    // Only our answer ends the wait, not a line the person typed ahead.
    `while read -r __deepdesk_ack; do [ "$__deepdesk_ack" = ${nonce} ] && break; done`,
    'exit "$__deepdesk_status"',
  ].join('\n');
}

/**
 * The person's own shell on the remote (a terminal tab of a remote folder): their login
 * shell, interactive, started in the folder; spawn it in a local pty.
 */
export function remoteLoginShellCommandLine(connection: SshConnection, cwd: string): { file: string; args: string[] } {
  return connection.commandLine(`cd -- ${shQuote(cwd)} 2>/dev/null; exec "\${SHELL:-/bin/sh}" -l`, { tty: true });
}

/**
 * Kills a remote run's process group and (where /proc exists) every process carrying its
 * marker: SIGTERM, a grace of up to a second, then SIGKILL. Without a marker only the group.
 */
export function remoteKillScript(pgid: number | undefined, marker: string | undefined): string {
  return [
    `pg=${pgid ?? ''}`,
    `m=${shQuote(marker ?? '')}`,
    'marked() { [ -n "$m" ] && [ -d /proc ] && grep -l -F -e "$m" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }',
    // No `--` before a negative pid: dash's kill takes none.
    'alive() { { [ -n "$pg" ] && kill -0 "-$pg" 2>/dev/null; } || [ -n "$(marked)" ]; }',
    // Each process is signalled once: a second SIGTERM while a shell runs its EXIT trap ends the trap half-way.
    'ingroup() { [ -n "$pg" ] && [ "$(sed \'s/.*) //\' "/proc/$1/stat" 2>/dev/null | cut -d" " -f3)" = "$pg" ]; }',
    'sig() { [ -n "$pg" ] && kill -"$1" "-$pg" 2>/dev/null; for p in $(marked); do ingroup "$p" || kill -"$1" "$p" 2>/dev/null; done; }',
    'alive || exit 0',
    'sig TERM; sig CONT',
    'i=0',
    'while [ $i -lt 10 ] && alive; do sleep 0.1 2>/dev/null || sleep 1; i=$((i + 1)); done',
    'alive && sig KILL',
    'exit 0',
  ].join('\n');
}

/** Runs one command on the remote in a pty of its own (see the top of this file). Never throws. */
export async function runRemoteCommand(connection: SshConnection, command: string, opts: RemoteCommandOptions): Promise<RemoteExecuteResult> {
  if (opts.signal?.aborted) return { ...CANCELLED_BEFORE_START };
  let host: RemoteHost;
  try {
    host = await remoteHost(connection);
  } catch (err) {
    return connectionFailure(messageOf(err), '');
  }
  const marker = newTreeMarker();
  // TRACEPARENT reaches the remote command as an exported, quoted variable (remoteWrapperScript).
  const env = { ...remoteCommandEnv(host, opts.env), ...traceparentEnv(opts.traceparent), [EXEC_MARKER_VAR]: marker.slice(EXEC_MARKER_VAR.length + 1) };
  const spec: CommandSpec = { file: host.shell, args: ['-c', command, basename(host.shell)], cwd: opts.cwd, env };
  // Nothing of a remote command's writes can be observed: the folder's state is recorded before it.
  await opts.attribution?.blind();
  if (!opts.sandbox) return spawnAndCollect(connection, spec, marker, opts);

  let prepared: PreparedCommand;
  try {
    prepared = await opts.sandbox.prepare(spec);
  } catch (err) {
    if (err instanceof SshConnectionError) return { ...connectionFailure(err.message, ''), sandboxed: true };
    return { output: `Could not start the sandbox: ${messageOf(err)}`, exitCode: 127, truncated: false, sandboxed: true };
  }
  try {
    if (opts.signal?.aborted) return { ...CANCELLED_BEFORE_START, sandboxed: true };
    const result = await spawnAndCollect(connection, prepared, marker, opts);
    if (result.connectionError !== undefined) return { ...result, sandboxed: true };
    const blocked = await prepared.blockedLine(result.output, result.exitCode);
    if (!blocked) return { ...result, sandboxed: true };
    return { ...result, output: composeOutput(result.output, blocked), sandboxed: true, sandboxBlocked: blocked };
  } finally {
    await prepared.dispose().catch(() => undefined);
  }
}

function connectionFailure(message: string, outputSoFar: string): RemoteExecuteResult {
  const error = `Error: ${message}`;
  return { output: composeOutput(error, outputSoFar.length > 0 ? `Output before that:\n${outputSoFar}` : undefined), exitCode: SSH_FAILURE_EXIT_CODE, truncated: false, connectionError: error };
}

/** Runs a kill script, ignoring a connection that is gone (the remote pty's hang-up is then all there is). */
async function killRemote(connection: SshConnection, pgid: number | undefined, marker: string | undefined): Promise<void> {
  try {
    await connection.run(remoteKillScript(pgid, marker), { timeoutMs: 15_000, ownChannel: true });
  } catch {
    // lost: the local ssh is ended next, and with it the remote pty
  }
}

/** Why ssh ended without the wrapper's report: the connection's own account of it, or ssh's last words. */
async function whyLost(connection: SshConnection, started: boolean, text: string, status: number | undefined): Promise<string> {
  let probe: string | undefined;
  try {
    await connection.run('true', { timeoutMs: 20_000 });
  } catch (err) {
    probe = messageOf(err);
  }
  const lastLine = text.split('\n').map((l) => l.trim()).filter(Boolean).at(-1);
  const sshSaid = lastLine !== undefined && SSH_SAYS.test(lastLine) ? lastLine : undefined;
  const detail = sshSaid ?? probe ?? `ssh ended with status ${status ?? 'unknown'}`;
  if (started) return `lost the connection (${connection.label}) while the command ran: ${detail}`;
  return probe ?? `could not start the command on ${connection.label}: ${detail}`;
}

async function spawnAndCollect(connection: SshConnection, spec: CommandSpec, marker: string, opts: RemoteCommandOptions): Promise<RemoteExecuteResult> {
  const nonce = randomBytes(8).toString('hex');
  const line = connection.commandLine(remoteWrapperScript(spec, nonce, opts.attach !== undefined), { tty: true });
  const started = startCommandPty({ file: line.file, args: line.args, cwd: process.cwd(), env: connection.env, term: spec.env.TERM }, opts);
  if ('failed' in started) return started.failed;
  const proc = started.proc;

  const pgidScanner = new DoneReportScanner(nonce, 'pgid');
  const doneScanner = new DoneReportScanner(nonce);
  let pgid: number | undefined;
  let preamble = '';
  const end = await collectPtyRun(
    proc,
    {
      scan(chunk) {
        let forward = chunk;
        if (pgid === undefined) {
          // Before the job reports, the bytes are ssh's or the login shell's (a banner, an rc file's echo), not the command's.
          const found = pgidScanner.push(chunk);
          preamble = (preamble + found.forward).slice(-PREAMBLE_KEPT);
          if (found.status === undefined) return { forward: '' };
          pgid = found.status;
          forward = found.after ?? '';
        }
        return doneScanner.push(forward);
      },
      nonce,
      killTree: () => killRemote(connection, pgid, marker),
      async cleanUp({ exited }) {
        // Ending the local ssh closes the remote pty: whatever still holds it is hung up.
        if (!exited) endPty(proc, 'SIGTERM');
      },
    },
    opts,
  );
  if (end.stopping === 'timeout') return { output: composeOutput(end.text, timeoutNote(opts.timeoutS)), exitCode: TIMEOUT_EXIT_CODE, truncated: end.truncated, timedOut: true };
  if (end.stopping === 'abort') return { output: composeOutput(end.text, CANCELLED_NOTE), exitCode: null, truncated: end.truncated };
  if (end.reported === undefined) {
    const started = pgid !== undefined;
    const sshText = started ? end.text : terminalToText(preamble);
    return connectionFailure(await whyLost(connection, started, sshText, end.exited?.exitCode), started ? end.text : '');
  }
  // The status is ssh's exit, which is the wrapper's: a report can be printed by the command
  // too (pty-run.ts). When the two differ and ssh says it failed, what happened to the command
  // is not known (the connection ended after a report, or one was forged): it is said so.
  const status = end.exited ? exitCodeOf(end.exited) : undefined;
  if (status === end.reported || (status !== undefined && status !== SSH_FAILURE_EXIT_CODE)) return { output: composeOutput(end.text, undefined), exitCode: status, truncated: end.truncated };
  return connectionFailure(await whyLost(connection, true, end.text, status), end.text);
}
