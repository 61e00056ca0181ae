// The one way Deepdesk runs the system git (git mounts, plugin marketplaces, worktrees,
// telemetry's coding context): argument arrays (never a shell), no prompts, a deadline and
// an AbortSignal that end git's whole process group (ssh included), and on every call the
// settings that keep anything in a repository or fetched from a remote from running code
// (held-off-config.ts: no hook, filter, driver, helper or editor the repository's own config
// names ever runs). That verdict is kept from call to call while the config files it was made
// from are unchanged (config-files.ts): a repository whose config changes between two calls is
// listed again before the second.

import { allowedEnv, ENV_OPT_INS } from '../process/child-env';
import { runToEnd } from '../process/spawn';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigFiles, personsFiles, repositoryFolders, unchanged } from './config-files';
import { ALWAYS_HELD, heldOffSettings, includedPaths, includeTarget, isIncludeKey, namesGitProxy, parseKeyValues, parseOriginList, REPOSITORY_SCOPES, type OriginValue, type ScopedValue } from './held-off-config';

/** `protocol.allow`-style list for GIT_ALLOW_PROTOCOL: git refuses any other transport, even one reached by a redirect or a submodule. */
export const ALLOWED_PROTOCOLS = 'file:ssh:git:http:https';

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
 * The environment git runs in: what git needs of the person's (child-env.ts: their ssh agent,
 * config, credential manager and proxy apply; none of Deepdesk's credentials) without
 * repository-locating variables, with prompts off and ssh in batch mode.
 */
export function gitEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = allowedEnv(ENV_OPT_INS.git, base);
  for (const name of LOCATION_VARS) delete env[name];
  for (const name of Object.keys(env)) if (/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name)) delete env[name];
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_ALLOW_PROTOCOL = ALLOWED_PROTOCOLS;
  env.GIT_OPTIONAL_LOCKS = '0';
  env.LC_ALL = 'C';
  env.LANGUAGE = 'C';
  // Always set: it wins over a repository's `core.sshCommand` (GIT_SSH would not).
  if (!env.GIT_SSH_COMMAND && env.GIT_SSH) env.GIT_SSH_COMMAND = `'${env.GIT_SSH.replaceAll("'", `'\\''`)}'`;
  else if (!env.GIT_SSH_COMMAND) {
    // Deepdesk's own ssh command (e.g. `ssh -F config`) when set, as for remote folders.
    const ssh = base.DEEPDESK_SSH_COMMAND?.trim() || 'ssh';
    env.GIT_SSH_COMMAND = `${ssh} -o BatchMode=yes -o ConnectTimeout=15`;
  }
  return env;
}

export async function runGit(args: readonly string[], options: GitRunOptions): Promise<GitRunResult> {
  const place = [...(options.gitDir !== undefined ? [`--git-dir=${options.gitDir}`] : []), ...(options.workTree !== undefined ? [`--work-tree=${options.workTree}`] : [])];
  const verdict = await heldOff(place, options);
  if (!('held' in verdict)) return verdict;
  const env = verdict.namesProxy && options.env.GIT_PROXY_COMMAND === undefined ? { ...options.env, GIT_PROXY_COMMAND: '' } : options.env;
  return spawnGit([...verdict.held.flatMap((c) => ['-c', c]), ...place, ...args], { ...options, env });
}

/** What a call gives git to hold off what the repository's config runs: `-c` settings, and whether GIT_PROXY_COMMAND is set empty. */
interface Verdict {
  held: readonly string[];
  namesProxy: boolean;
}

/**
 * Verdicts kept while the config files they were made from are unchanged (config-files.ts),
 * by place and environment: a call finds its verdict with a few stats instead of a listing.
 */
const kept = new Map<string, { verdict: Verdict; files: ReadonlyMap<string, string | null> }>();
const KEPT_AT_MOST = 128;

/** How many times the config was listed (tests: a kept verdict is used, not listed again). */
export const heldOffListings = { count: 0 };

/** Variables that never change what git reads as config: Deepdesk's snapshot identity varies by call. */
const NOT_CONFIG_VARS = /^GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)$/;

function verdictKey(place: readonly string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const vars = Object.entries(env).filter(([name, value]) => value !== undefined && !NOT_CONFIG_VARS.test(name)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify([place, cwd, vars])).digest('hex');
}

async function heldOff(place: readonly string[], options: GitRunOptions): Promise<Verdict | GitRunResult> {
  const cwd = placeOf(options);
  const key = verdictKey(place, cwd, options.env);
  const known = kept.get(key);
  if (known !== undefined && unchanged(known.files)) return known.verdict;
  kept.delete(key);
  // The repository's and the person's config files, noted before git reads them.
  const files = new ConfigFiles();
  const folders = repositoryFolders(files, cwd, options.gitDir);
  const repositoryConfig = folders !== undefined ? join(folders.commonDir, 'config') : undefined;
  if (folders !== undefined) for (const file of [repositoryConfig!, join(folders.gitDir, 'config.worktree')]) files.note(file);
  for (const file of personsFiles(options.env, cwd)) files.note(file);
  // What the repository's own config runs is found first, to be given again on the command line; a config git cannot list fails the call.
  heldOffListings.count++;
  const listed = await spawnGit([...place, 'config', '--list', '--show-scope', '--show-origin', '-z'], { ...options, maxBytes: LISTING_BYTES });
  // The listing's output is never the caller's: a listing that timed out as it exited 0 must not read as their command's success.
  if (listed.spawnError !== undefined || listed.aborted || listed.timedOut) return { ...listed, code: null, stdout: '' };
  if (listed.code !== 0 || listed.truncated) return unreadable(listed);
  const listing = parseOriginList(listed.stdout);
  const home = options.env.HOME ?? homedir();
  // Every file the repository's config includes, whatever the condition (held-off-config.ts: CONDITIONAL INCLUDES).
  const included = await readIncludes(includedPaths(listing, cwd, home), options, files);
  if (!Array.isArray(included)) return included;
  const config = [...listing, ...included];
  const verdict: Verdict = { held: [...ALWAYS_HELD, ...heldOffSettings(config)], namesProxy: namesGitProxy(config) };
  if (repositoryConfig !== undefined && files.keepable && madeOfNoted(listing, repositoryConfig, files, cwd, home) && files.keepable) {
    if (kept.size >= KEPT_AT_MOST) kept.delete(kept.keys().next().value!);
    kept.set(key, { verdict, files: files.identities });
  }
  return verdict;
}

/**
 * Whether the listing was made of the noted files only: every entry of the repository's
 * scopes from its noted config or an include read, its own config among them; the person's
 * files and what they include noted too. Otherwise the verdict is used once and not kept.
 */
function madeOfNoted(listing: readonly OriginValue[], repositoryConfig: string, files: ConfigFiles, cwd: string, home: string): boolean {
  let ownConfig = false;
  for (const entry of listing) {
    if (!entry.origin.startsWith('file:')) return false;
    const file = resolve(cwd, entry.origin.slice('file:'.length));
    if (REPOSITORY_SCOPES.has(entry.scope)) {
      if (!files.holds(file)) return false;
      ownConfig ||= entry.scope === 'local' && files.holds(file, [repositoryConfig]);
      continue;
    }
    files.note(file);
    if (!isIncludeKey(entry.key)) continue;
    const target = includeTarget(entry.value, file, home);
    if (target === undefined) return false;
    files.note(target);
  }
  return ownConfig;
}

const LISTING_BYTES = 16 * 1024 * 1024;
/** Included files read at most (git itself stops at a depth of 10). */
const MAX_INCLUDED_FILES = 64;

function unreadable(result: GitRunResult): GitRunResult {
  return { ...result, code: result.code === 0 ? 1 : result.code, stdout: '', stderr: `fatal: the repository's config could not be read to hold off what it runs: ${result.stderr.trim()}` };
}

/**
 * The entries of the files the repository's config includes, and of what those include in turn,
 * as the repository's own: each read alone (`--no-includes`), each once, noted before it is
 * read. A file that is not there is skipped as git skips it; one git cannot read, or too many,
 * fail the call (closed).
 */
async function readIncludes(paths: readonly string[], options: GitRunOptions, files: ConfigFiles): Promise<ScopedValue[] | GitRunResult> {
  const queue = [...paths];
  const seen = new Set<string>();
  const out: ScopedValue[] = [];
  const home = options.env.HOME ?? homedir();
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (seen.size > MAX_INCLUDED_FILES) return unreadable({ code: 1, stdout: '', stderr: `more than ${MAX_INCLUDED_FILES} included config files`, timedOut: false, aborted: false });
    const stats = files.note(file);
    if (stats === undefined) continue; // Not there: git skips it too.
    // A fifo or a device would hold the listing up (git would wait on it as well): not read, and the call fails.
    if (!stats.isFile()) return unreadable({ code: 1, stdout: '', stderr: `${file} is not a file`, timedOut: false, aborted: false });
    const read = await spawnGit(['config', '--file', file, '--no-includes', '--list', '-z'], { ...options, maxBytes: LISTING_BYTES });
    if (read.spawnError !== undefined || read.aborted || read.timedOut) return read;
    if (read.code !== 0 || read.truncated) return unreadable(read);
    for (const entry of parseKeyValues(read.stdout)) {
      out.push(entry);
      if (!isIncludeKey(entry.key)) continue;
      const target = includeTarget(entry.value, file, home);
      if (target !== undefined) queue.push(target);
    }
  }
  return out;
}

/** Where git runs: what relative paths in its output are relative to. */
function placeOf(options: GitRunOptions): string {
  return options.cwd ?? options.workTree ?? options.gitDir ?? process.cwd();
}

function spawnGit(full: readonly string[], options: GitRunOptions): Promise<GitRunResult> {
  return runToEnd({
    role: 'git',
    file: 'git',
    args: [...full],
    cwd: placeOf(options),
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
