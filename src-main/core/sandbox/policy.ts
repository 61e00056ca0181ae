// The sandbox's rules as data (SPEC §7), shared by the bubblewrap and Seatbelt launchers:
// what is hidden (secrets), what stays read-only inside the writable project folder, and
// which host sockets lead out of any sandbox that can still reach them.
import { readdirSync, statSync, type BigIntStats, type Dirent } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { ALL_FOLDER_CONFIG_PLACES } from '../config/places';
import { GIT_PINNED_PATHS, GIT_READ_ONLY_PATHS } from '../git/git-reads';
import { isPathInside } from '../fs/path-inside';
import { realPathOf } from '../fs/real-path';
import { ownInstallPaths } from '../process/built-program';
import type { SandboxPolicy } from './types';

type Platform = 'linux' | 'darwin';

interface HomeRule {
  /** Relative to the home folder. */
  path: string;
  why: string;
  only?: Platform;
}

/** Secrets under the home folder: never readable (nor writable) inside the sandbox. */
export const SECRET_HOME_PATHS: readonly HomeRule[] = [
  { path: '.ssh', why: 'SSH keys' },
  { path: '.aws', why: 'cloud credentials' },
  { path: '.azure', why: 'cloud credentials' },
  { path: '.config/gcloud', why: 'cloud credentials' },
  { path: '.kube', why: 'cluster credentials' },
  { path: '.gnupg', why: 'GPG keys' },
  { path: '.password-store', why: 'passwords' },
  { path: '.config/gh', why: 'GitHub credentials' },
  { path: '.git-credentials', why: 'git credentials' },
  { path: '.netrc', why: 'login credentials' },
  { path: '.docker', why: 'registry credentials' },
  { path: '.pgpass', why: 'database passwords' },
  { path: '.pg_service.conf', why: 'database passwords' },
  { path: '.mozilla', why: 'a browser profile', only: 'linux' },
  { path: 'snap/firefox', why: 'a browser profile', only: 'linux' },
  { path: '.config/google-chrome', why: 'a browser profile', only: 'linux' },
  { path: '.config/chromium', why: 'a browser profile', only: 'linux' },
  { path: '.config/BraveSoftware', why: 'a browser profile', only: 'linux' },
  { path: '.config/microsoft-edge', why: 'a browser profile', only: 'linux' },
  { path: '.config/vivaldi', why: 'a browser profile', only: 'linux' },
  { path: '.config/opera', why: 'a browser profile', only: 'linux' },
  { path: '.local/share/keyrings', why: 'a keychain', only: 'linux' },
  { path: 'Library/Application Support/Google/Chrome', why: 'a browser profile', only: 'darwin' },
  { path: 'Library/Application Support/Chromium', why: 'a browser profile', only: 'darwin' },
  { path: 'Library/Application Support/Firefox', why: 'a browser profile', only: 'darwin' },
  { path: 'Library/Application Support/BraveSoftware', why: 'a browser profile', only: 'darwin' },
  { path: 'Library/Application Support/Microsoft Edge', why: 'a browser profile', only: 'darwin' },
  { path: 'Library/Safari', why: 'a browser profile', only: 'darwin' },
  { path: 'Library/Cookies', why: 'browser cookies', only: 'darwin' },
  { path: 'Library/Keychains', why: 'a keychain', only: 'darwin' },
];

/**
 * Inside the project folder, never writable: what git or Deepdesk would later run or trust
 * outside the sandbox (SPEC §7), the folder's own configuration among it (SPEC §9: its MCP
 * servers, and in `.deepdesk/` its hooks and skills). One that a command creates is removed
 * after the run.
 */
export const PROTECTED_PROJECT_PATHS: readonly string[] = [
  ...GIT_READ_ONLY_PATHS,
  '.deepdesk',
  // The folder's own configuration, every kind (`.deepdesk` holds its own places already).
  ...ALL_FOLDER_CONFIG_PLACES.filter((place) => !place.startsWith('.deepdesk/')),
];

/**
 * The folders that hold a protected path (`.claude` for `.claude/skills`): pinned where they
 * exist, so that moving one aside cannot take the protected path with it and put a writable
 * one in its place.
 */
export const PROTECTED_PROJECT_PARENTS: readonly string[] = [...new Set(PROTECTED_PROJECT_PATHS.filter((p) => p.includes('/') && !GIT_READ_ONLY_PATHS.includes(p)).map((p) => dirname(p)))];

/** Kept in place, never moved aside or replaced, while what is inside stays writable: git's (`.git`) and the folders of protected paths. */
export const PINNED_PROJECT_PATHS: readonly string[] = [...GIT_PINNED_PATHS, ...PROTECTED_PROJECT_PARENTS];

/**
 * Unix sockets on the host that hand out power beyond the sandbox (a session bus that
 * starts programs, an SSH or GPG agent, a display server that takes keystrokes, a terminal
 * multiplexer, the Docker daemon, a database that trusts the user). A read-only mount does
 * not stop connect(), so they are hidden: all of /run (runtime state and service sockets,
 * no user data), and the known places elsewhere; /tmp is scanned before each run
 * (tmpSocketPaths). Abstract sockets live in the network namespace, which is not shared.
 */
export function hostSocketPaths(env: Record<string, string | undefined>, uid: number): string[] {
  const paths = [
    '/run',
    '/var/run',
    `/run/user/${uid}`,
    '/run/dbus',
    '/var/run/dbus',
    '/run/docker.sock',
    '/var/run/docker.sock',
    '/tmp/.X11-unix',
    `/tmp/tmux-${uid}`,
    '/run/screen',
    '/var/run/screen',
    '/run/postgresql',
    '/var/run/postgresql',
    '/run/mysqld',
    '/var/run/mysqld',
    '/var/lib/mysql/mysql.sock',
  ];
  for (const name of ['SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'XDG_RUNTIME_DIR']) {
    const value = env[name]?.split(':')[0];
    if (value && isAbsolute(value)) paths.push(value);
  }
  return paths;
}

/**
 * Folders in /tmp that hold sockets of agents, displays, multiplexers, buses, editors and
 * Deepdesk's own hosts (`deepdesk-<uid>`, or its mkdtemp fallback `deepdesk-<uid>-XXXXXX`), and
 * proxies' folders where run folders are loose in /tmp (run-folders.ts) or an earlier Deepdesk
 * left them there.
 */
export const TMP_SOCKET_DIRS = /^(?:deepdesk-proxy-|deepdesk-ssh-|deepdesk-\d+(?:-[A-Za-z0-9]{6})?$|ssh-|tmux-|\.X11-unix$|\.ICE-unix$|\.XIM-unix$|\.font-unix$|dbus-|vscode-|pulse-|\.com\.google\.Chrome|keyring-|gpg-|screens?$|\.s\.PGSQL)/;

/**
 * A change this close before a scan started may share its timestamp with a later one (the
 * kernel stamps folders with a coarse clock, a few ms): a scan is reused only when the folder
 * last changed longer than this before it started.
 */
const RACY_MS = 50;

/** The last scan of each folder: reused while the folder has not changed since (its names and their kinds change only with its mtime). */
const lastScans = new Map<string, { dev: bigint; ino: bigint; mtimeNs: bigint; ctimeNs: bigint; paths: string[] }>();

/**
 * Sockets in `dir` (one level) and the socket folders above: hidden for one run. What a
 * scan finds depends only on the folder's entries (names and kinds: a socket replaced by a
 * file, or a folder renamed, is a removal and a new entry), each of which stamps the folder's
 * mtime; so while it is the one seen by an earlier scan that started well after it (RACY_MS),
 * that scan's answer holds and the folder (thousands of entries in a busy /tmp) is not read
 * again. Deepdesk's own run folders are made elsewhere (run-folders.ts) so as not to stamp it.
 */
export function tmpSocketPaths(dir = '/tmp', now: () => number = Date.now): string[] {
  let st: BigIntStats;
  try {
    st = statSync(dir, { bigint: true });
  } catch {
    return [];
  }
  const lastScan = lastScans.get(dir);
  if (lastScan && lastScan.dev === st.dev && lastScan.ino === st.ino && lastScan.mtimeNs === st.mtimeNs && lastScan.ctimeNs === st.ctimeNs) return [...lastScan.paths];
  const startedMs = now();
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const paths = entries.filter((e) => e.isSocket() || (e.isDirectory() && TMP_SOCKET_DIRS.test(e.name))).map((e) => join(dir, e.name));
  // Kept only when the folder had settled before the scan began: a change in the same tick as
  // the scan could otherwise be missed and leave the same stamp.
  const changedMs = Number((st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs) / 1_000_000n);
  if (changedMs < startedMs - RACY_MS) lastScans.set(dir, { dev: st.dev, ino: st.ino, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, paths });
  else lastScans.delete(dir);
  return [...paths];
}

/**
 * Deepdesk's own PostgreSQL password files, where its environment names them (the memories
 * store, SPEC §7): hidden like ~/.pgpass. Read from Deepdesk's environment, not the
 * command's (which never has these variables).
 */
export function pgPasswordFiles(env: Record<string, string | undefined>): string[] {
  return ['PGPASSFILE', 'PGSERVICEFILE'].map((name) => env[name]).filter((value): value is string => value !== undefined && isAbsolute(value));
}

/** Variables that point commands at the host sockets above; dropped inside the sandbox. */
export const DROPPED_ENV: readonly string[] = [
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'GPG_AGENT_INFO',
  'DBUS_SESSION_BUS_ADDRESS',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XAUTHORITY',
  'DOCKER_HOST',
];

export interface HiddenPath {
  path: string;
  why: string;
  /**
   * The project folder, when it lies inside this hidden folder (a worktree in the data
   * folder, SPEC §16): it alone stays the command's, as anywhere else (writable, its
   * protected paths kept), reached through the folders above it, which can be passed
   * through but not listed; everything else in the hidden folder stays hidden.
   */
  contains?: string;
  /** Folders inside it the command may read, never write (`SandboxPolicy.readablePaths`): reached the same way, listed only themselves. */
  shows?: string[];
  /** Folders inside it the command may read and write (`SandboxPolicy.writablePaths`): reached the same way. */
  opens?: string[];
}

/** Whether `h` hides `path`: it lies in `h` and not in the project folder `h` holds, nor in a folder it shows. */
export function hides(h: HiddenPath, path: string): boolean {
  return (
    isPathInside(h.path, path) &&
    (h.contains === undefined || !isPathInside(h.contains, path)) &&
    !(h.shows ?? []).some((shown) => isPathInside(shown, path)) &&
    !(h.opens ?? []).some((opened) => isPathInside(opened, path))
  );
}

/** The hidden paths with the readable folders each holds marked (`shows`); a readable folder outside every hidden one needs nothing. */
function withShown(hidden: HiddenPath[], readable: readonly string[], writable: readonly string[] = []): HiddenPath[] {
  if (readable.length === 0 && writable.length === 0) return hidden;
  return hidden.map((h) => {
    const shows = readable.filter((path) => path !== h.path && isPathInside(h.path, path));
    const opens = writable.filter((path) => path !== h.path && isPathInside(h.path, path));
    return shows.length > 0 || opens.length > 0 ? { ...h, ...(shows.length > 0 ? { shows } : {}), ...(opens.length > 0 ? { opens } : {}) } : h;
  });
}

/**
 * The hidden paths as the launchers mount them, from candidates (real paths): each once; one
 * that holds the project folder marked with it (`contains`) and kept; one that is the project
 * folder itself left out (the person chose to work there); one that another hides left out,
 * as that one covers it (nothing can be mounted inside it afterwards).
 */
export function hiddenPaths(projectDir: string, candidates: readonly HiddenPath[]): HiddenPath[] {
  const out: HiddenPath[] = [];
  const seen = new Set<string>();
  for (const { path, why } of candidates) {
    if (path === projectDir || seen.has(path)) continue;
    seen.add(path);
    out.push(isPathInside(path, projectDir) ? { path, why, contains: projectDir } : { path, why });
  }
  return out.filter((h) => !out.some((other) => other.path !== h.path && hides(other, h.path)));
}

/** The last hiddenFor answer: a folder's runs ask again and again with the same paths (it is quadratic in them). */
let lastHidden: { key: string; value: HiddenPath[] } | undefined;

/** withShown(hiddenPaths(…)), a new array each time (callers add to it). */
function hiddenFor(projectDir: string, candidates: readonly HiddenPath[], readable: readonly string[], writable: readonly string[] = []): HiddenPath[] {
  const key = JSON.stringify([projectDir, candidates.map((c) => [c.path, c.why, c.contains ?? '', c.shows ?? [], c.opens ?? []]), readable, writable]);
  if (lastHidden?.key !== key) lastHidden = { key, value: withShown(hiddenPaths(projectDir, candidates), readable, writable) };
  return lastHidden.value.map((h) => ({ ...h, ...(h.shows ? { shows: [...h.shows] } : {}), ...(h.opens ? { opens: [...h.opens] } : {}) }));
}

/** The policy with every path made real and absolute, for one platform and home folder. */
export interface ResolvedPolicy {
  projectDir: string;
  dataDir: string;
  home: string;
  /** Secrets and sockets: neither readable nor writable (whether or not they exist now); one that holds the project folder, all of it but that folder. */
  hidden: HiddenPath[];
  /** The part of `hidden` that depends only on the homes and the environment (to pass back as `hidden`). */
  staticHidden: HiddenPath[];
  /** Inside the project folder, kept read-only (whether or not they exist now). */
  protectedPaths: string[];
  /** Inside the project folder, writable but kept in place: they cannot be moved, replaced or deleted. */
  pinnedPaths: string[];
  allowedDomains: string[];
  /** Writable folders beyond the project folder (`SandboxPolicy.writablePaths`), real paths. */
  writablePaths: string[];
  /** Ports forwarded to sockets outside (`SandboxPolicy.forwards`). */
  forwards: Array<{ port: number; socket: string }>;
  privateTmp: boolean;
}

export function resolvePolicy(
  policy: SandboxPolicy,
  options: {
    platform?: Platform;
    /** The command's home first (what `~` means in its output), then any other (the user's real one). */
    homes?: string[];
    env?: Record<string, string | undefined>;
    uid?: number;
    /** `staticHidden` of an earlier call with the same homes and environment (it is the slow part). */
    hidden?: HiddenPath[];
  } = {},
): ResolvedPolicy {
  const platform = options.platform ?? (process.platform === 'darwin' ? 'darwin' : 'linux');
  const homes = [...new Set((options.homes ?? [homedir()]).filter((h) => isAbsolute(h)).map(realPathOf))];
  const home = homes[0] ?? realPathOf(homedir());
  const projectDir = realPathOf(policy.projectDir);
  const dataDir = realPathOf(policy.dataDir);
  const hidden: HiddenPath[] = options.hidden ? [...options.hidden] : [];
  const seen = new Set<string>(hidden.map((h) => h.path));
  // A folder that holds the project folder stays hidden all the same, but for the project
  // folder (hiddenPaths): a worktree in the data folder shows none of the rest of it.
  const hide = (path: string, why: string): void => {
    const real = realPathOf(path);
    if (seen.has(real)) return;
    seen.add(real);
    hidden.push({ path: real, why });
  };
  if (!options.hidden) {
    for (const eachHome of homes) {
      for (const rule of SECRET_HOME_PATHS) {
        if (!rule.only || rule.only === platform) hide(join(eachHome, rule.path), rule.why);
      }
    }
    hide(dataDir, "Deepdesk's data folder");
    for (const file of pgPasswordFiles(process.env)) hide(file, 'database passwords');
    if (platform === 'linux') {
      for (const socket of hostSocketPaths(options.env ?? process.env, options.uid ?? process.getuid?.() ?? 0)) {
        hide(socket, 'a host service socket');
      }
    }
  }
  const protectedPaths = [...PROTECTED_PROJECT_PATHS.map((p) => join(projectDir, p))];
  const staticHidden = [...hidden];
  // Sockets come and go in /tmp and in the temp folder TMPDIR names (ssh-agent's and tmux's
  // follow it): looked for on every run (but for this run's own forwarded ones).
  const forwardDirs = new Set((policy.forwards ?? []).map((f) => realPathOf(dirname(f.socket))));
  if (platform === 'linux') {
    for (const dir of new Set(['/tmp', tmpdir()])) for (const socket of tmpSocketPaths(dir)) if (!forwardDirs.has(realPathOf(socket))) hide(socket, 'a host service socket');
  }
  const writablePaths = (policy.writablePaths ?? []).filter((path) => isAbsolute(path)).map(realPathOf);
  for (const extra of policy.protectedPaths ?? []) {
    if (isAbsolute(extra)) protectedPaths.push(realPathOf(extra));
  }
  // What Deepdesk runs outside the sandbox is never the sandbox's to change.
  for (const own of ownInstallPaths()) if ([projectDir, ...writablePaths].some((dir) => isPathInside(dir, own))) protectedPaths.push(own);
  return {
    projectDir,
    dataDir,
    home,
    hidden: hiddenFor(projectDir, hidden, (policy.readablePaths ?? []).filter((path) => isAbsolute(path)).map(realPathOf), writablePaths),
    staticHidden,
    protectedPaths: [...new Set(protectedPaths)],
    pinnedPaths: PINNED_PROJECT_PATHS.map((p) => join(projectDir, p)),
    allowedDomains: [...(policy.allowedDomains ?? [])],
    writablePaths,
    forwards: [...(policy.forwards ?? [])],
    privateTmp: policy.privateTmp === true,
  };
}
