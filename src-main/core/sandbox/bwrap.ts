// The bubblewrap command line for one run (Linux). Everything is mounted read-only, then
// the project folder and the run's private temp folder are bound writable, the protected
// paths inside the project are bound read-only again, and the secrets are covered by an
// unreadable, read-only empty folder or file. Mounts are applied parents first, so a
// secret or protected path inside a writable folder stays covered. A hidden folder that
// holds the project folder (a worktree in the data folder) is covered by an empty folder
// that can be passed through but not listed, with only the project folder bound back at
// its place inside (and the folders leading to it made, as bare as the cover); that cover
// is made read-only last, once everything inside it is mounted.
import { runToEnd } from '../process/spawn';
import { lstatSync, readlinkSync } from 'node:fs';
import { ConfigFiles, repositoryFolders, type RepositoryFolders } from '../git/config-files';
import { isExecutable } from '../fs/file-checks';
import { delimiter, dirname, join } from 'node:path';
import { hides, type ResolvedPolicy } from './policy';
import { isPathInside } from '../fs/path-inside';
import { seccompArgs, seccompFilter, withFilterOpen, type SeccompFilter } from './seccomp';

export interface BwrapRun {
  policy: ResolvedPolicy;
  /** The run's private temp folder (TMPDIR), writable. */
  tmpDir: string;
  /** An empty file nobody may read, mounted over secret files. */
  unreadableFile: string;
  cwd: string;
  /** What each path is, where the command runs (default: lstat on this machine; a remote sandbox asks the remote). */
  kindOf?: (path: string) => PathKind;
  /** The seccomp filter bwrap installs (seccomp.ts): the launch must open it (withFilterOpen). */
  seccomp?: SeccompFilter;
}

export type PathKind = 'dir' | 'file' | 'missing';

/** Highest number of processes a command may have at once (where RLIMIT_NPROC binds: not for root). */
export const SANDBOX_MAX_PROCESSES = 4096;

type Mount = { path: string; args: string[] };

/** Every sandboxed process's own namespaces, no capabilities, and no way back to the terminal; the probe asks for the same. */
const ISOLATION: readonly string[] = [
  '--unshare-pid',
  '--unshare-ipc',
  // No network: with allowed domains, a proxy outside is reached through a Unix socket.
  '--unshare-net',
  '--unshare-user',
  '--disable-userns',
  '--cap-drop',
  'ALL',
  '--new-session',
  '--die-with-parent',
];

function localKindOf(path: string): PathKind {
  try {
    // Most paths asked about (the secrets list) are missing: no error made for each.
    const st = lstatSync(path, { throwIfNoEntry: false });
    return st === undefined ? 'missing' : st.isDirectory() ? 'dir' : 'file';
  } catch {
    return 'missing';
  }
}

/** No empty, `.` or `..` part and no trailing slash (real paths, as the policy holds them). */
const NOT_PLAIN = /\/\.{0,2}(?:\/|$)/;

/**
 * Whether `path` may lie in `root`: false only when both are plain absolute paths and `path`
 * is neither `root` nor below it by its text (which spares most calls to hides, the costly part).
 */
function mayLieIn(root: string, path: string): boolean {
  if (!root.startsWith('/') || !path.startsWith('/') || (root !== '/' && NOT_PLAIN.test(root)) || (path !== '/' && NOT_PLAIN.test(path))) return true;
  return path === root || path.startsWith(root === '/' ? root : `${root}/`);
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

/**
 * A private /tmp (`privateTmp`): an empty one of the run's own, a new name in it (a program's
 * socket) the run's alone, gone with it. Of the host's entries, those the run's own paths lie in
 * are put back read-only (its folder, its repository's git folders, its writable and shown
 * folders, a forward's socket): one mount each, for bubblewrap reads the whole mount table again
 * after each mount, and all of a busy /tmp (hundreds of entries) cost the agent's start seconds.
 */
function privateTmpMounts(policy: ResolvedPolicy): Mount[] {
  const mounts: Mount[] = [{ path: '/tmp', args: ['--perms', '1777', '--tmpfs', '/tmp'] }];
  const repository = repositoryAbove(policy.projectDir);
  const paths = [
    policy.projectDir,
    ...(repository ? [repository.gitDir, repository.commonDir] : []),
    ...policy.writablePaths,
    ...policy.pinnedPaths,
    ...policy.protectedPaths,
    ...policy.forwards.map((f) => dirname(f.socket)),
    ...policy.hidden.flatMap((h) => [h.path, ...(h.shows ?? [])]),
  ];
  const entries = new Set(paths.filter((p) => p.startsWith('/tmp/')).map((p) => join('/tmp', p.slice('/tmp/'.length).split('/')[0]!)));
  for (const path of entries) {
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      continue;
    }
    // `-try`: one gone since it was looked at is left out.
    if (stats.isDirectory() || stats.isFile()) mounts.push({ path, args: ['--ro-bind-try', path, path] });
    else if (stats.isSymbolicLink()) {
      try {
        mounts.push({ path, args: ['--symlink', readlinkSync(path), path] });
      } catch {
        // Gone since it was looked at.
      }
    }
  }
  return mounts;
}

/** The git folders of the repository the folder is in (a worktree's lie elsewhere), found by its pointers, without running git. */
function repositoryAbove(folder: string): RepositoryFolders | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    const found = repositoryFolders(new ConfigFiles(), dir, undefined);
    if (found !== undefined) return found;
    if (dirname(dir) === dir) return undefined;
  }
}

export function bwrapArgs(run: BwrapRun): string[] {
  const { policy } = run;
  const kindOf = run.kindOf ?? localKindOf;
  const mounts: Mount[] = [
    { path: '/', args: ['--ro-bind', '/', '/'] },
    { path: '/dev', args: ['--dev', '/dev'] },
    { path: '/proc', args: ['--proc', '/proc'] },
    // Before everything below it: the project folder, the temp folder and the covers are still mounted at their places inside.
    ...(policy.privateTmp ? privateTmpMounts(policy) : []),
    { path: policy.projectDir, args: ['--bind', policy.projectDir, policy.projectDir] },
    { path: run.tmpDir, args: ['--bind', run.tmpDir, run.tmpDir] },
  ];
  // Writable folders outside every hidden one (inside one, they are bound with its cover below).
  for (const path of policy.writablePaths) {
    if (!policy.hidden.some((h) => isPathInside(h.path, path)) && kindOf(path) === 'dir') mounts.push({ path, args: ['--bind', path, path] });
  }
  // A path a hidden folder covers is not mounted again: that would show it through the cover.
  const covered = (path: string): boolean => policy.hidden.some((h) => mayLieIn(h.path, path) && hides(h, path));
  for (const path of policy.pinnedPaths) {
    if (covered(path)) continue;
    // A mount point cannot be renamed or removed; a `.git` file (a pointer to the real git
    // folder) is kept read-only, as redirecting it would bring in hooks.
    const kind = kindOf(path);
    if (kind === 'dir') mounts.push({ path, args: ['--bind', path, path] });
    else if (kind === 'file') mounts.push({ path, args: ['--ro-bind', path, path] });
  }
  for (const path of policy.protectedPaths) {
    if (!covered(path) && kindOf(path) !== 'missing') mounts.push({ path, args: ['--ro-bind', path, path] });
  }
  /** Made read-only after every mount inside them. */
  const lastReadOnly: string[] = [];
  for (const { path, contains, shows = [], opens = [] } of policy.hidden) {
    const kind = kindOf(path);
    if (kind === 'dir' && (contains !== undefined || shows.length > 0 || opens.length > 0)) {
      // Search permission only (even for its owner, with no capability left): the project
      // folder and the folders it shows are reached through it, nothing in it is listed. The
      // project folder is bound at its place inside it above, a shown folder read-only here;
      // the folders between are made here, as bare.
      mounts.push({ path, args: ['--perms', '0111', '--tmpfs', path] });
      const made = new Set<string>();
      for (const inside of [...(contains !== undefined ? [contains] : []), ...shows, ...opens]) {
        for (let dir = dirname(inside); dir !== path && isPathInside(path, dir) && !made.has(dir); dir = dirname(dir)) {
          made.add(dir);
          mounts.push({ path: dir, args: ['--perms', '0111', '--dir', dir] });
        }
      }
      for (const shown of shows) if (kindOf(shown) === 'dir') mounts.push({ path: shown, args: ['--ro-bind', shown, shown] });
      // The run's temp folder is bound above already.
      for (const opened of opens) if (opened !== run.tmpDir && kindOf(opened) === 'dir') mounts.push({ path: opened, args: ['--bind', opened, opened] });
      lastReadOnly.push(path);
    } else if (kind === 'dir') mounts.push({ path, args: ['--perms', '0000', '--tmpfs', path, '--remount-ro', path] });
    else if (kind === 'file') mounts.push({ path, args: ['--ro-bind', run.unreadableFile, path] });
  }
  if (run.seccomp) mounts.push({ path: run.seccomp.dir, args: ['--perms', '0000', '--tmpfs', run.seccomp.dir, '--remount-ro', run.seccomp.dir] });
  // Stable: among equal depths the order above holds (a secret after the folder it sits in).
  const ordered = mounts.map((m, i) => ({ ...m, i })).sort((a, b) => depth(a.path) - depth(b.path) || a.i - b.i);
  return [
    ...ordered.flatMap((m) => m.args),
    // Not recursive: the project folder bound inside stays writable.
    ...lastReadOnly.flatMap((path) => ['--remount-ro', path]),
    ...(run.seccomp ? seccompArgs(run.seccomp) : []),
    ...ISOLATION,
    '--chdir',
    run.cwd,
  ];
}

/** bwrap on PATH, else /usr/bin/bwrap; undefined when neither exists. */
export function findBwrap(path: string | undefined = process.env.PATH): string | undefined {
  for (const dir of [...(path ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin']) {
    const candidate = join(dir, 'bwrap');
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Runs `bwrap … true` with the same isolation a command gets; resolves to an error text or
 * undefined. A probe that only ran out of time (a loaded machine) says so in `slow`: that is
 * no verdict on the sandbox, and is asked again rather than remembered.
 */
export async function probeBwrap(bwrap: string, timeoutMs = 10_000): Promise<string | undefined | { slow: true }> {
  let seccomp: SeccompFilter | undefined;
  try {
    seccomp = seccompFilter();
  } catch (err) {
    return `its seccomp filter could not be written: ${err instanceof Error ? err.message : String(err)}`;
  }
  const isolation = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...ISOLATION,
    ...(seccomp ? seccompArgs(seccomp) : []),
    'true',
  ];
  const launch = seccomp ? withFilterOpen(seccomp, bwrap, isolation) : { file: bwrap, args: isolation };
  const ran = await runToEnd({ role: 'probe', ...launch, timeoutMs });
  if (ran.spawnError === undefined && ran.code === 0) return undefined;
  if (ran.timedOut) return { slow: true };
  return ran.stderr.toString('utf8').trim().split('\n')[0] || ran.spawnError || (ran.timedOut ? 'timed out' : `exit code ${ran.code}`);
}
