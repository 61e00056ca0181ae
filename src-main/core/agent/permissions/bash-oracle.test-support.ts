// Real bash as an oracle for the shell analyser: it runs each command and reports every
// program it executed (with its exact arguments), every simple command it ran (builtins
// included) and every file it created, while nothing real runs.
//
// How: one bubblewrap sandbox per shard (no network, read-only root) where /usr/bin,
// /usr/sbin and /usr/local/bin (and so /bin, /sbin) are replaced by a directory of
// logging stubs (dash scripts, cheap to start), one per program name in STUB_NAMES,
// except the real wrappers of REAL_WRAPPERS (env, nice, timeout, xargs, find, …), which
// run the stubs they are given; the real bash and dash are bound at /tmp/oracle. A driver runs each case as `bash -c CASE`
// (so bash parses the command itself, as the agent's terminal would) with 5 s of CPU
// (`ulimit -t`; nothing in the sandbox can block: stdin is /dev/null, every program is a
// stub, and a shard is killed after SHARD_TIMEOUT_MS), in an empty working folder, with
// BASH_ENV pointing at a setup file that installs:
// - `command_not_found_handle`, logging the argv of any name without a stub;
// - `set -T` and a DEBUG trap logging `$BASH_COMMAND`, inherited by functions, command
//   substitutions and subshells.
// Builtins, arithmetic, here-documents and substitutions therefore really run: an
// attack that makes bash evaluate data runs its payload, which is a program (a stub) and
// gets logged with its arguments.
//
// What it sees: every execution of a program found through PATH or named by a path under
// /bin, /sbin, /usr/bin, /usr/sbin, /usr/local/bin, or not found at all (argv exact, the
// program by its base name), including what the real wrappers run (a stub whose
// environment was cleared logs by its working folder, and one whose case is unknown fails
// the run); the text of every simple command bash ran (not its expanded
// words); files created in the working folder or in /tmp.
// What it cannot see: programs named by a path elsewhere (e.g. /usr/lib/…, which the
// corpus never uses), writes outside the working folder and /tmp (the rest is read-only,
// so they fail), the expanded arguments of builtins (their effects that matter run a
// program or create a file, which it sees), and effects after 5 s of CPU.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OracleResult {
  /** Programs executed: base name, then arguments. */
  executed: string[][];
  /** `$BASH_COMMAND` of each simple command bash ran (the instrumentation's own left out; a name without a program shows twice). */
  commands: string[];
  /** Files created (names in the working folder, paths in /tmp). */
  created: string[];
  timedOut: boolean;
}

export const STUB_NAMES = [
  'touch', 'rm', 'id', 'git', 'ls', 'cat', 'echo', 'printf', 'test', '[', 'true', 'false', 'env', 'nice', 'ionice', 'timeout',
  'nohup', 'stdbuf', 'setsid', 'flock', 'script', 'busybox', 'chrt', 'taskset', 'time', 'xargs', 'find', 'sudo', 'doas', 'su',
  'strace', 'ltrace', 'gdb', 'watch', 'parallel', 'npx', 'npm', 'pnpm', 'sh', 'bash', 'dash', 'zsh', 'python', 'python3',
  'node', 'perl', 'ruby', 'uniq', 'rg', 'grep', 'sort', 'sed', 'awk', 'tar', 'curl', 'wget', 'date', 'hostname', 'less',
  'man', 'head', 'tail', 'wc', 'cut', 'tr', 'mkdir', 'cp', 'mv', 'valgrind', 'fakeroot', 'unshare', 'chroot', 'tee', 'xxd',
  'dd', 'zip', 'gzip', 'make', 'cargo', 'pwd', 'kill', 'sleep', 'whoami', 'uname', 'basename', 'dirname', 'stat', 'diff',
  'unbuffer', 'eatmydata', 'M', 'x', 'y', 'a', 'b', 'c',
];

// Wrappers that really run here (over their stubs), so that what they run is seen too:
// `env -i rm x` shows as `rm x`, as bash and coreutils would really run it.
const REAL_WRAPPERS = ['env', 'nice', 'timeout', 'nohup', 'stdbuf', 'setsid', 'flock', 'taskset', 'chrt', 'ionice', 'time', 'xargs', 'find', 'script'];
const CASE_CPU_SECONDS = 5;
const BASH = '/usr/bin/bash';
const DASH = '/usr/bin/dash';
const SHARD_TIMEOUT_MS = 110_000;

export function oracleAvailable(): boolean {
  return existsSync('/usr/bin/bwrap') && existsSync(BASH) && existsSync(DASH);
}

/** Runs every case through instrumented bash; `shards` sandboxes work in parallel. */
export async function runInBash(cases: readonly string[], shards = 2): Promise<OracleResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'bash-oracle-'));
  try {
    const stubs = join(root, 'stubs');
    mkdirSync(stubs);
    for (const name of STUB_NAMES) {
      writeFileSync(
        join(stubs, name),
        STUB,
        { mode: 0o755 },
      );
    }
    writeFileSync(join(root, 'setup.sh'), SETUP);
    writeFileSync(join(root, 'driver.sh'), DRIVER);
    const per = Math.ceil(cases.length / shards);
    const jobs: Promise<void>[] = [];
    for (let s = 0; s < shards && s * per < cases.length; s++) {
      const from = s * per;
      const slice = cases.slice(from, from + per);
      jobs.push(runShard(root, from, slice));
    }
    await Promise.all(jobs);
    const stray = readResult(root, 'stray');
    if (stray.executed.length > 0) throw new Error(`programs ran whose case is unknown: ${JSON.stringify(stray.executed.slice(0, 5))}`);
    return cases.map((_, i) => readResult(root, i));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// A stub logs its argv into its case's log; when the environment was cleared (`env -i`),
// the case is the working folder it runs in (cases run in /tmp/oracle/w/N).
const STUB = String.raw`#!/tmp/oracle/dash
c=${'$'}{ORACLE_CASE-}
if [ -z "$c" ]; then
  case $PWD in /tmp/oracle/w/*) c=${'$'}{PWD#/tmp/oracle/w/}; c=${'$'}{c%%/*};; *) c=stray;; esac
fi
printf '%s\0' "$#" "${'$'}{0##*/}" "$@" >> "/tmp/oracle/log/$c/exec"
`;

const SETUP = String.raw`[[ $0 == oracle-case ]] || return 0
readonly __oracle_log=/tmp/oracle/log/$ORACLE_CASE
command_not_found_handle() { builtin printf '%s\0' "$(( $# - 1 ))" "$@" >> "$__oracle_log/exec"; return "$__oracle_not_found"; }
readonly __oracle_not_found=127
set -T
trap 'builtin printf "%s\0" "$BASH_COMMAND" >> "$__oracle_log/debug"' DEBUG
`;

// Only builtins here: every program in /usr/bin is a stub.
const DRIVER = String.raw`shopt -s nullglob dotglob
first=$1
i=$first
while IFS= read -r -d '' c; do
  builtin cd "/tmp/oracle/w/$i" || exit 1
  (ulimit -t ${CASE_CPU_SECONDS}; ORACLE_CASE=$i BASH_ENV=/tmp/oracle/setup.sh exec /tmp/oracle/bash -c "$c" oracle-case) </dev/null >/dev/null 2>&1
  builtin printf '%s\n' "$?" > "/tmp/oracle/log/$i/status"
  files=(/tmp/oracle/w/$i/* /tmp/*)
  builtin printf '%s\0' "${'$'}{files[@]}" > "/tmp/oracle/log/$i/files"
  i=$((i + 1))
done < "/tmp/oracle/cases.$first"
`;

function runShard(root: string, from: number, cases: readonly string[]): Promise<void> {
  for (let k = 0; k < cases.length; k++) {
    mkdirSync(join(root, 'log', String(from + k)), { recursive: true });
    mkdirSync(join(root, 'w', String(from + k)), { recursive: true });
  }
  mkdirSync(join(root, 'log', 'stray'), { recursive: true });
  writeFileSync(join(root, `cases.${from}`), cases.map((c) => `${c}\0`).join(''));
  const real = REAL_WRAPPERS.filter((w) => existsSync(`/usr/bin/${w}`));
  const args = [
    '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp',
    '--ro-bind', BASH, '/tmp/oracle/bash', '--ro-bind', DASH, '/tmp/oracle/dash',
    '--ro-bind', join(root, 'setup.sh'), '/tmp/oracle/setup.sh', '--ro-bind', join(root, 'driver.sh'), '/tmp/oracle/driver.sh',
    '--ro-bind', join(root, `cases.${from}`), `/tmp/oracle/cases.${from}`,
    '--bind', join(root, 'log'), '/tmp/oracle/log', '--bind', join(root, 'w'), '/tmp/oracle/w',
    '--ro-bind', join(root, 'stubs'), '/usr/bin', '--ro-bind', join(root, 'stubs'), '/usr/sbin', '--ro-bind', join(root, 'stubs'), '/usr/local/bin',
    ...real.flatMap((w) => ['--ro-bind', `/usr/bin/${w}`, `/usr/bin/${w}`]),
    '--unshare-net', '--unshare-pid', '--die-with-parent', '--new-session', '--chdir', '/tmp',
    '/tmp/oracle/bash', '/tmp/oracle/driver.sh', String(from),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/bwrap', args, {
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: '/tmp/oracle/w' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    const timer = setTimeout(() => child.kill('SIGKILL'), SHARD_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`bwrap exited with ${code}: ${stderr.slice(0, 2000)}`));
    });
  });
}

function readIfExists(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

function readResult(root: string, i: number | 'stray'): OracleResult {
  const dir = join(root, 'log', String(i));
  const executed: string[][] = [];
  const fields = readIfExists(join(dir, 'exec')).split('\0');
  for (let k = 0; k + 1 < fields.length; ) {
    const count = Number(fields[k]);
    if (!Number.isInteger(count) || count < 0) {
      executed.push(['<unreadable exec log>']);
      break;
    }
    executed.push(fields.slice(k + 1, k + 2 + count));
    k += 2 + count;
  }
  const commands = readIfExists(join(dir, 'debug'))
    .split('\0')
    .filter((c) => c !== '' && !c.includes('__oracle'));
  const created = readIfExists(join(dir, 'files'))
    .split('\0')
    .filter((f) => f !== '' && f !== '/tmp/oracle');
  const status = readIfExists(join(dir, 'status')).trim();
  return { executed, commands, created, timedOut: status === '152' || status === '137' };
}
