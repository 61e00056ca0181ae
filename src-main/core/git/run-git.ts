// The one way Deepdesk runs the system git (git mounts, plugin marketplaces, worktrees,
// telemetry's coding context): argument arrays (never a shell), no prompts, a deadline and
// an AbortSignal that end git's whole process group (ssh included), and on every call the
// settings that keep anything in a repository or fetched from a remote from running code
// (no hook ever runs: `core.hooksPath=/dev/null`).

import { runToEnd } from '../process/spawn';

/** `protocol.allow`-style list for GIT_ALLOW_PROTOCOL: git refuses any other transport, even one reached by a redirect or a submodule. */
export const ALLOWED_PROTOCOLS = 'file:ssh:git:http:https';

/** Given to git before every subcommand (`-c key=value`). */
const SAFE_CONFIG = [
  // Hooks never run (a clone holds none, but nothing is left to chance).
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'protocol.allow=never',
  'protocol.file.allow=always',
  'protocol.ssh.allow=always',
  'protocol.git.allow=always',
  'protocol.http.allow=always',
  'protocol.https.allow=always',
  'protocol.ext.allow=never',
  'submodule.recurse=false',
  // A signing program could ask for a passphrase in a window nobody sees.
  'commit.gpgSign=false',
  'core.pager=cat',
  'advice.detachedHead=false',
  // No background `git gc` left running after the call.
  'gc.autoDetach=false',
  'maintenance.auto=false',
  'credential.interactive=false',
];

/** Variables that would point git at another repository, index or object store. */
const LOCATION_VARS = [
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM', 'GIT_PREFIX',
  'GIT_CONFIG', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_EXEC_PATH', 'GIT_PROTOCOL_FROM_USER',
];

export interface GitRunOptions {
  gitDir?: string;
  workTree?: string;
  cwd?: string;
  /** The environment, from gitEnv() (which strips GIT_INDEX_FILE and the other location variables). */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The index git uses instead of the repository's own (GIT_INDEX_FILE), e.g. a temporary copy. */
  indexFile?: string;
  /** Output kept at most (default 64 MB); `truncated` says when more was cut. */
  maxBytes?: number;
}

export interface GitRunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** git could not be started (not installed). */
  spawnError?: string;
  /** stdout or stderr was longer than `maxBytes` and was cut there. */
  truncated?: boolean;
}

/**
 * The environment git runs in: the person's (their ssh agent, credential helpers and
 * config apply) without repository-locating variables, with prompts off and ssh in batch mode.
 */
export function gitEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of LOCATION_VARS) delete env[name];
  for (const name of Object.keys(env)) if (/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name)) delete env[name];
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_ALLOW_PROTOCOL = ALLOWED_PROTOCOLS;
  env.GIT_OPTIONAL_LOCKS = '0';
  env.LC_ALL = 'C';
  env.LANGUAGE = 'C';
  if (!env.GIT_SSH_COMMAND && !env.GIT_SSH) {
    // Deepdesk's own ssh command (e.g. `ssh -F config`) when set, as for remote folders.
    const ssh = env.DEEPDESK_SSH_COMMAND?.trim() || 'ssh';
    env.GIT_SSH_COMMAND = `${ssh} -o BatchMode=yes -o ConnectTimeout=15`;
  }
  return env;
}

export function runGit(args: readonly string[], options: GitRunOptions): Promise<GitRunResult> {
  const full = [
    ...SAFE_CONFIG.flatMap((c) => ['-c', c]),
    ...(options.gitDir !== undefined ? [`--git-dir=${options.gitDir}`] : []),
    ...(options.workTree !== undefined ? [`--work-tree=${options.workTree}`] : []),
    ...args,
  ];
  return runToEnd({
    role: 'git',
    file: 'git',
    args: full,
    cwd: options.cwd ?? options.workTree ?? options.gitDir ?? process.cwd(),
    env: options.indexFile !== undefined ? { ...options.env, GIT_INDEX_FILE: options.indexFile } : options.env,
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
  }).then((r) => ({
    code: r.code,
    stdout: r.stdout.toString('utf8'),
    stderr: r.aborted && r.code === null && r.stderr.length === 0 ? 'cancelled' : r.stderr.toString('utf8'),
    timedOut: r.timedOut,
    aborted: r.aborted,
    ...(r.spawnError !== undefined ? { spawnError: r.spawnError } : {}),
    ...(r.truncated ? { truncated: true } : {}),
  }));
}

/** The gist of a failed git call for a message: the `fatal:`/`error:` lines, else the last line. */
export function gitFailure(result: GitRunResult, timeoutMs: number): string {
  if (result.spawnError !== undefined) return `git could not be started (${result.spawnError}); is git installed?`;
  if (result.aborted) return 'cancelled';
  if (result.timedOut) return `git did not finish within ${Math.round(timeoutMs / 1000)} s`;
  const lines = result.stderr.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !/^hint:/.test(l));
  const key = lines.filter((l) => /^(fatal|error|ssh|remote):/i.test(l) || /denied|refused|could not|unable|not found|does not appear/i.test(l));
  const text = (key.length > 0 ? key : lines.slice(-1)).join('; ');
  return text === '' ? `git exited with code ${result.code}` : text.replace(/^fatal:\s*/i, '');
}
