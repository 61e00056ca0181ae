// The sandbox for commands on a remote folder (SPEC §13, §7): bubblewrap on the remote when
// it has one that works (else the folder is `Not sandboxed` and commands ask), with the
// local policy (sandbox/policy.ts) resolved against the remote's paths, and the same
// bubblewrap command line (sandbox/bwrap.ts bwrapArgs) built from what the remote says its
// paths are. Before each run, one call resolves the paths and makes the run's private temp
// folder, and one takes git's surface in every repository of the folder
// (remote-git-surface.ts): what exists of it is kept read-only (its `.git` folders pinned),
// as locally. After the run, when its pid namespace is gone, the surface is taken again and
// what the command changed or added there is undone, with any protected path it created;
// each undo is reported in the blocked line, a failed one too. The same walks find the
// setuid, setgid and device files, fifos and sockets the run made (there is no seccomp filter
// on the remote): their set-id bits are cleared, the others removed. A remote without python3
// (which those walks need) has no sandbox: its commands ask.
//
// Not done remotely (the local sandbox does it with local file-system access): the write
// layer and per-file checkpoint attribution (the run is `blind`), and allowed domains (a
// remote command has no network).
import { join } from 'node:path';
import { dedupeItems, detectBlocked, formatBlockedLine, type BlockedItem } from '../../sandbox/blocked';
import { bwrapArgs, SANDBOX_MAX_PROCESSES, type PathKind } from '../../sandbox/bwrap';
import {
  DROPPED_ENV,
  hiddenPaths,
  hostSocketPaths,
  PINNED_PROJECT_PATHS,
  PROTECTED_PROJECT_PATHS,
  SECRET_HOME_PATHS,
  TMP_SOCKET_DIRS,
  type HiddenPath,
  type ResolvedPolicy,
} from '../../sandbox/policy';
import { isPathInside } from '../../fs/path-inside';
import type { CommandSpec, PreparedCommand, Sandbox, SandboxAvailability, SandboxPolicy } from '../../sandbox/types';
import { planSurfaceRepairs, surfaceMounts, type GitSurface } from '../../git/surface';
import { remoteHost } from './remote-exec';
import { applyRemoteSteps, repairSteps, snapshotRemoteSurface, type FileKinds } from './remote-git-surface';
import { FIND_PYTHON } from '../script/script-replies';
import { type SshConnection } from './ssh-connection';
import { shQuote } from '../../text/shell-quote';

/** The isolation every command gets, run with `true` to see that the remote's bwrap can make a sandbox (as probeBwrap). */
const PROBE_ARGS = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-ipc', '--unshare-net', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--new-session', '--die-with-parent', 'true'];

export interface RemoteSandboxProbe {
  availability: SandboxAvailability;
  /** The remote's bwrap, when available. */
  bwrap?: string;
  /** The remote's python3 (git's surface is walked with it), when available. */
  python?: string;
}

export interface ProbeRemoteSandboxOptions {
  /** The PATH to look for bwrap in on the remote; default the login shell's PATH before the session's. */
  searchPath?: string;
}

const probes = new WeakMap<SshConnection, Promise<RemoteSandboxProbe>>();

/**
 * Whether commands on this remote can be sandboxed: bwrap on its PATH and a trivial run
 * inside it. Asked once per connection (again after a connection failure, which rejects).
 */
export function probeRemoteSandbox(connection: SshConnection, options: ProbeRemoteSandboxOptions = {}): Promise<RemoteSandboxProbe> {
  if (options.searchPath !== undefined) return askRemoteSandbox(connection, shQuote(options.searchPath));
  let known = probes.get(connection);
  if (!known) {
    known = (async () => {
      const { loginPath } = await remoteHost(connection);
      return askRemoteSandbox(connection, loginPath !== undefined ? `${shQuote(loginPath)}:"$PATH"` : '"$PATH"');
    })();
    probes.set(connection, known);
    known.catch(() => probes.delete(connection));
  }
  return known;
}

/** `pathWord`: a shell word for the PATH to look for bwrap in. */
async function askRemoteSandbox(connection: SshConnection, pathWord: string): Promise<RemoteSandboxProbe> {
  const script = [
    `PATH=${pathWord}`,
    'b=$(command -v bwrap 2>/dev/null) || exit 3',
    FIND_PYTHON,
    '[ -n "$p" ] || exit 5',
    `if e=$("$b" ${PROBE_ARGS.map(shQuote).join(' ')} 2>&1); then printf '%s\\0%s' "$b" "$p"; exit 0; fi`,
    `printf '%s' "$e" | head -n 1; exit 4`,
  ].join('\n');
  const r = await connection.run(script, { timeoutMs: 30_000 });
  const said = r.stdout.toString('utf8').trim();
  const [bwrap = '', python = ''] = said.split('\0');
  if (r.code === 0 && bwrap.startsWith('/') && python.startsWith('/')) return { availability: { available: true, kind: 'bubblewrap' }, bwrap, python };
  if (r.code === 3) return { availability: { available: false, reason: `bubblewrap (bwrap) is not installed on ${connection.label}` } };
  if (r.code === 5) return { availability: { available: false, reason: `python3 is not installed on ${connection.label} (the sandbox checks git's files with it)` } };
  return {
    availability: {
      available: false,
      reason: `bubblewrap cannot create a sandbox on ${connection.label} (${said || `status ${r.code}`}); unprivileged user namespaces may be disabled`,
    },
  };
}

/** A sandbox for one remote folder's commands (policy paths are the remote's), or undefined where the remote has none. */
export async function createRemoteSandbox(connection: SshConnection, policy: SandboxPolicy, options: ProbeRemoteSandboxOptions = {}): Promise<Sandbox | undefined> {
  const probe = await probeRemoteSandbox(connection, options);
  if (!probe.bwrap || !probe.python) return undefined;
  return new RemoteBwrapSandbox(connection, probe.bwrap, probe.python, policy);
}

type Role = 'hidden' | 'protected' | 'pinned';

interface Candidate {
  role: Role;
  /** A shell word for the path on the remote ($H: the real home, $P: the real project folder). */
  word: string;
  why: string;
}

/** What the remote said of one candidate: the real path and its kind. */
interface ResolvedCandidate extends Candidate {
  real: string;
  kind: PathKind;
}

/** What undoing one run needs: git's surface before it, and what it may not have made. */
interface RunToCheck {
  projectDir: string;
  home: string;
  before: GitSurface;
  /** The folder's set-id and special files before it. */
  kindsBefore: FileKinds;
  /** Read-only during the run (not checked after it). */
  untouchable: string[];
  /** Protected paths missing before it. */
  missingProtected: string[];
}

class RemoteBwrapSandbox implements Sandbox {
  readonly kind = 'bubblewrap' as const;
  /** A run whose check could not be done (the connection went): done before the next one starts. */
  private unchecked: RunToCheck | undefined;
  /** Run folders whose removal could not be done (the connection went): removed before the next run. */
  private leftBehind: string[] = [];

  constructor(
    private readonly connection: SshConnection,
    private readonly bwrap: string,
    private readonly python: string,
    readonly policy: SandboxPolicy,
  ) {}

  private candidates(uid: number): Candidate[] {
    const under = (root: '$H' | '$P', rel: string): string => `"${root}"/${shQuote(rel)}`;
    const list: Candidate[] = [];
    for (const rule of SECRET_HOME_PATHS) if (rule.only !== 'darwin') list.push({ role: 'hidden', word: under('$H', rule.path), why: rule.why });
    for (const socket of hostSocketPaths({}, uid)) list.push({ role: 'hidden', word: shQuote(socket), why: 'a host service socket' });
    // The agent sockets the remote session names (an agent forwarded by ssh among them).
    for (const name of ['SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'XDG_RUNTIME_DIR']) list.push({ role: 'hidden', word: `"\${${name}%%:*}"`, why: 'a host service socket' });
    for (const rel of PROTECTED_PROJECT_PATHS) list.push({ role: 'protected', word: under('$P', rel), why: 'a protected path' });
    for (const extra of this.policy.protectedPaths ?? []) if (extra.startsWith('/')) list.push({ role: 'protected', word: shQuote(extra), why: 'a protected path' });
    for (const rel of PINNED_PROJECT_PATHS) list.push({ role: 'pinned', word: under('$P', rel), why: 'a protected path' });
    return list;
  }

  /** Removes run folders on the remote; those it cannot reach now are kept for the next run. */
  private async remove(dirs: string[]): Promise<void> {
    const removed = await this.connection.run(`rm -rf -- ${dirs.map(shQuote).join(' ')}`, { timeoutMs: 30_000 }).then(
      (r) => r.code === 0,
      () => false,
    );
    if (!removed) this.leftBehind.push(...dirs);
  }

  async prepare(spec: CommandSpec): Promise<PreparedCommand> {
    const host = await remoteHost(this.connection);
    // Nothing runs on top of what an unchecked run may have left: it is checked first, and its undos reported with this run's.
    let carried: BlockedItem[] = [];
    if (this.unchecked) {
      const earlier = await undoRun(this.connection, this.python, this.unchecked);
      if (!earlier.checked) throw new Error(`git's files after the last command on ${this.connection.label} could not be checked yet`);
      this.unchecked = undefined;
      carried = earlier.items;
    }
    if (this.leftBehind.length > 0) await this.remove(this.leftBehind.splice(0));
    const candidates = this.candidates(host.uid);
    // Records, NUL-separated: the run's folder, the real project, cwd and home, then per
    // candidate its real path and kind (d, f, -; empty when the word was empty).
    const script = [
      'P=$(cd -P -- ' + shQuote(this.policy.projectDir) + ' && pwd) || { echo "cannot enter the folder" >&2; exit 5; }',
      'C=$(cd -P -- ' + shQuote(spec.cwd) + ' && pwd) || C=$P',
      'H=$(cd -P -- "$HOME" 2>/dev/null && pwd) || H=$HOME',
      'b=$(mktemp -d /tmp/deepdesk-run-XXXXXX) || exit 6',
      'mkdir "$b/tmp" && : > "$b/hidden" && chmod 000 "$b/hidden" || exit 6',
      `printf '%s\\0' "$b" "$P" "$C" "$H"`,
      'kind() { if [ -d "$1" ]; then k=d; elif [ -e "$1" ] || [ -L "$1" ]; then k=f; else k=-; fi; }',
      `for p in ${candidates.map((c) => c.word).join(' ')}; do`,
      '  case $p in /*) ;; *) printf "\\0-\\0"; continue ;; esac',
      '  r=$(readlink -f -- "$p" 2>/dev/null) && [ -n "$r" ] || r=$p',
      '  kind "$r"; printf "%s\\0%s\\0" "$r" "$k"',
      'done',
    ].join('\n');
    const r = await this.connection.run(script, { timeoutMs: 30_000 });
    if (r.code !== 0) throw new Error(r.stderr.trim() || `the remote could not prepare the run (status ${r.code})`);
    const fields = r.stdout.toString('utf8').split('\0');
    const [base, projectDir, cwd, home] = fields.splice(0, 4) as [string, string, string, string];
    const resolved: ResolvedCandidate[] = candidates.map((c) => {
      const [real = '', kind = '-'] = fields.splice(0, 2);
      return { ...c, real, kind: kind === 'd' ? 'dir' : kind === 'f' ? 'file' : 'missing' };
    });
    const kinds = new Map<string, PathKind>([[projectDir, 'dir']]);
    for (const c of resolved) if (c.real !== '') kinds.set(c.real, c.kind);

    const connection = this.connection;
    const python = this.python;
    const removeBase = () => this.remove([base]);
    let gitBefore: GitSurface;
    let kindsBefore: FileKinds;
    try {
      ({ surface: gitBefore, kinds: kindsBefore } = await snapshotRemoteSurface(connection, python, projectDir, home));
    } catch (err) {
      await removeBase();
      throw new Error(`could not read git's files on ${connection.label}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    // The sockets (s) and folders (d) at the top of /tmp, read last: one that goes away before
    // the run starts would leave bwrap a mount point it cannot make.
    const tmpEntries: HiddenPath[] = [];
    const listed = await this.connection.run(
      ['for e in /tmp/* /tmp/.[!.]* /tmp/..?*; do', '  if [ -S "$e" ]; then printf "s\\0%s\\0" "$e"; elif [ -d "$e" ] && [ ! -L "$e" ]; then printf "d\\0%s\\0" "$e"; fi', 'done'].join('\n'),
      { timeoutMs: 30_000 },
    );
    if (listed.code !== 0) {
      await removeBase();
      throw new Error(`could not list /tmp on ${connection.label} (status ${listed.code})`);
    }
    const tmpFields = listed.stdout.toString('utf8').split('\0');
    while (tmpFields.length >= 2) {
      const [type, path] = tmpFields.splice(0, 2) as [string, string];
      const name = path.slice('/tmp/'.length);
      if (type === 's' || TMP_SOCKET_DIRS.test(name)) {
        tmpEntries.push({ path, why: 'a host service socket' });
        kinds.set(path, type === 's' ? 'file' : 'dir');
      }
    }
    const policy = remotePolicy(projectDir, home, resolved, tmpEntries);
    // What exists of git's surface stays in place and read-only during the run.
    const gitMounts = surfaceMounts(gitBefore);
    for (const path of gitMounts.readOnly) kinds.set(path, gitBefore.entries.get(path)?.kind === 'dir' ? 'dir' : 'file');
    for (const path of gitMounts.pinned) kinds.set(path, 'dir');
    policy.protectedPaths = [...new Set([...policy.protectedPaths, ...gitMounts.readOnly])];
    policy.pinnedPaths = [...new Set([...policy.pinnedPaths, ...gitMounts.pinned])];
    const untouchable = policy.protectedPaths.filter((p) => (kinds.get(p) ?? 'missing') !== 'missing');
    const tmpDir = `${base}/tmp`;
    // Missing before the run (outside `.git`, whose surface is checked whole): removed after it should the command make one.
    const missingProtected = resolved
      .filter((c) => c.role === 'protected' && c.kind === 'missing' && c.real !== '' && isPathInside(projectDir, c.real) && !isPathInside(join(projectDir, '.git'), c.real))
      .map((c) => c.real);

    const env: Record<string, string> = { ...spec.env, TMPDIR: tmpDir, TMP: tmpDir, TEMP: tmpDir, npm_config_cache: join(tmpDir, '.npm'), XDG_CACHE_HOME: join(tmpDir, '.cache') };
    for (const name of Object.keys(env)) if (/^(?:https?|all|no)_proxy$/i.test(name)) delete env[name];
    for (const name of DROPPED_ENV) delete env[name];
    // The remote session's own agent variables are not in `env`: unset inside. RLIMIT_NPROC: `-u` in bash/zsh/busybox, `-p` in dash.
    const inner = `unset ${DROPPED_ENV.join(' ')}; ulimit -u ${SANDBOX_MAX_PROCESSES} 2>/dev/null || ulimit -p ${SANDBOX_MAX_PROCESSES} 2>/dev/null; exec "$@"`;
    const args = [...bwrapArgs({ policy, tmpDir, unreadableFile: `${base}/hidden`, cwd, kindOf: (path) => kinds.get(path) ?? 'missing' }), '--', '/bin/sh', '-c', inner, 'sh', spec.file, ...spec.args];

    let enforced: Promise<BlockedItem[]> | undefined;
    /** After the run: what it changed of git's surface is undone, what it made at a protected path removed, and its temp folder. */
    const enforce = (): Promise<BlockedItem[]> =>
      (enforced ??= (async () => {
        const run: RunToCheck = { projectDir, home, before: gitBefore, kindsBefore, untouchable, missingProtected };
        try {
          const done = await undoRun(connection, python, run);
          if (!done.checked) this.unchecked = run;
          return [...carried, ...done.items];
        } finally {
          await removeBase();
        }
      })());

    return {
      file: this.bwrap,
      args,
      cwd: spec.cwd,
      env,
      async blockedLine(output: string): Promise<string | undefined> {
        const items = await enforce();
        // The paths in the output are the remote's; judged against its policy as text (no local look-ups matter for them).
        const found = await detectBlocked(output, { policy, writable: [tmpDir], cwd, home });
        return formatBlockedLine(dedupeItems([...items, ...found]), policy);
      },
      async dispose(): Promise<void> {
        await enforce();
      },
    };
  }
}

/**
 * Takes git's surface again and undoes what the run changed there and what it made at a
 * protected path; says what. A check or an undo that could not be done is reported too.
 */
async function undoRun(connection: SshConnection, python: string, run: RunToCheck): Promise<{ checked: boolean; items: BlockedItem[] }> {
  const { projectDir, home, before, kindsBefore, untouchable, missingProtected } = run;
  let after: GitSurface | undefined;
  let kindsUndone: BlockedItem[] = [];
  let failure = '';
  // Once more after a failure (a connection that dropped meanwhile); then the run is reported unchecked.
  for (let attempt = 0; attempt < 2 && after === undefined; attempt++) {
    try {
      ({ surface: after, undone: kindsUndone } = await snapshotRemoteSurface(connection, python, projectDir, home, kindsBefore));
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    }
  }
  if (after === undefined) {
    return { checked: false, items: [{ kind: 'write', path: projectDir, why: `git's files could not be checked after the command (${failure}); do not run git there before looking` }] };
  }
  const repairs = planSurfaceRepairs(before, after, { untouchable });
  const groups = [...repairs.map((r) => repairSteps(r, before)), ...missingProtected.map((p) => [['remove-new', p] as ['remove-new', string]])];
  const outcomes = await applyRemoteSteps(connection, python, projectDir, groups);
  const items: BlockedItem[] = repairs.map((r, i) => (outcomes[i] === 'failed' ? { ...r.item, why: `${r.item.why}; could not be undone` } : r.item));
  missingProtected.forEach((path, i) => {
    const outcome = outcomes[repairs.length + i];
    if (outcome === 'ok') items.push({ kind: 'write', path, why: 'a protected path' });
    else if (outcome === 'failed') items.push({ kind: 'write', path, why: 'a protected path; could not be removed' });
  });
  return { checked: true, items: [...items, ...kindsUndone] };
}

/** The policy as resolvePolicy gives it locally, from the remote's real paths. */
function remotePolicy(projectDir: string, home: string, candidates: ResolvedCandidate[], tmpEntries: HiddenPath[]): ResolvedPolicy {
  const hidden = [...candidates.filter((c) => c.role === 'hidden' && c.real !== '').map((c) => ({ path: c.real, why: c.why })), ...tmpEntries];
  const of = (role: Role): string[] => [...new Set(candidates.filter((c) => c.role === role && c.real !== '').map((c) => c.real))];
  return {
    projectDir,
    dataDir: '',
    home,
    // As locally: one that holds the project folder hides all of it but that folder.
    hidden: hiddenPaths(projectDir, hidden),
    staticHidden: [],
    protectedPaths: of('protected'),
    pinnedPaths: of('pinned'),
    allowedDomains: [],
    writablePaths: [],
    forwards: [],
    privateTmp: false,
  };
}
