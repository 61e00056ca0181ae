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
import { lstatSync, readdirSync, readlinkSync, type Dirent } from 'node:fs';
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
  /** The private /tmp's view, where the launch mounts it (private-tmp.ts): bound at /tmp; without it, the host's entries are bound one by one. */
  tmpView?: string;
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
 * A private /tmp (`privateTmp`) where no overlay of it can be mounted (private-tmp.ts): an empty
 * one of the run's own, with the host's entries of now put back read-only (a folder in /tmp
 * reads as before, and is no more writable than before); a new name in it (a program's socket)
 * is the run's alone, gone with it.
 */
function privateTmpMounts(): Mount[] {
  const mounts: Mount[] = [{ path: '/tmp', args: ['--perms', '1777', '--tmpfs', '/tmp'] }];
  let entries: Dirent[];
  try {
    entries = readdirSync('/tmp', { withFileTypes: true });
  } catch {
    return mounts;
  }
  for (const entry of entries) {
    const path = join('/tmp', entry.name);
    // `-try`: one gone since it was listed is left out.
    if (entry.isDirectory() || entry.isFile()) mounts.push({ path, args: ['--ro-bind-try', path, path] });
    else if (entry.isSymbolicLink()) {
      try {
        mounts.push({ path, args: ['--symlink', readlinkSync(path), path] });
      } catch {
        // Gone since it was listed.
      }
    }
    // Sockets and pipes are not put back: the host's services are not the run's.
  }
  return mounts;
}

export function bwrapArgs(run: BwrapRun): string[] {
  const { policy } = run;
  const kindOf = run.kindOf ?? localKindOf;
  const mounts: Mount[] = [
    { path: '/', args: ['--ro-bind', '/', '/'] },
    { path: '/dev', args: ['--dev', '/dev'] },
    { path: '/proc', args: ['--proc', '/proc'] },
    // Before everything below it: the project folder, the temp folder and the covers are still mounted at their places inside.
    ...(!policy.privateTmp ? [] : run.tmpView !== undefined ? [{ path: '/tmp', args: ['--bind', run.tmpView, '/tmp'] }] : privateTmpMounts()),
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
