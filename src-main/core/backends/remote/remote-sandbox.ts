// The sandbox for commands on a remote folder (SPEC §13, §7): bubblewrap on the remote when
// it has one that works (else the folder is `Not sandboxed` and commands ask), with the
// local policy (sandbox/policy.ts) resolved against the remote's paths, and the same
// bubblewrap command line (sandbox/bwrap.ts bwrapArgs) built from what the remote says its
// paths are. One call over the connection before each run resolves the paths and makes
// the run's private temp folder; one after it removes the temp folder and any protected
// path the command created.
//
// Not done remotely (the local sandbox does it with local file-system access): the write
// layer and per-file checkpoint attribution (the run is `blind`), git's surface in nested
// repositories (core/git/surface.ts: only the folder's own `.git` is pinned and its
// protected paths kept read-only), and allowed domains (a remote command has no network).
import { dirname, join } from 'node:path';
import { dedupeItems, detectBlocked, formatBlockedLine, type BlockedItem } from '../../sandbox/blocked';
import { bwrapArgs, SANDBOX_MAX_PROCESSES, type PathKind } from '../../sandbox/bwrap';
import {
  DROPPED_ENV,
  hostSocketPaths,
  isWithin,
  PROTECTED_PROJECT_PARENTS,
  PROTECTED_PROJECT_PATHS,
  SECRET_HOME_PATHS,
  TMP_SOCKET_DIRS,
  type HiddenPath,
  type ResolvedPolicy,
} from '../../sandbox/policy';
import type { CommandSpec, PreparedCommand, Sandbox, SandboxAvailability, SandboxPolicy } from '../../sandbox/types';
import { remoteHost } from './remote-exec';
import { shQuote, type SshConnection } from './ssh-connection';

/** The isolation every command gets, run with `true` to see that the remote's bwrap can make a sandbox (as probeBwrap). */
const PROBE_ARGS = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-ipc', '--unshare-net', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--new-session', '--die-with-parent', 'true'];

export interface RemoteSandboxProbe {
  availability: SandboxAvailability;
  /** The remote's bwrap, when available. */
  bwrap?: string;
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
    `if e=$("$b" ${PROBE_ARGS.map(shQuote).join(' ')} 2>&1); then printf '%s' "$b"; exit 0; fi`,
    `printf '%s' "$e" | head -n 1; exit 4`,
  ].join('\n');
  const r = await connection.run(script, { timeoutMs: 30_000 });
  const said = r.stdout.toString('utf8').trim();
  if (r.code === 0 && said.startsWith('/')) return { availability: { available: true, kind: 'bubblewrap' }, bwrap: said };
  if (r.code === 3) return { availability: { available: false, reason: `bubblewrap (bwrap) is not installed on ${connection.label}` } };
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
  if (!probe.bwrap) return undefined;
  return new RemoteBwrapSandbox(connection, probe.bwrap, policy);
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

class RemoteBwrapSandbox implements Sandbox {
  readonly kind = 'bubblewrap' as const;

  constructor(
    private readonly connection: SshConnection,
    private readonly bwrap: string,
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
    for (const rel of ['.git', ...PROTECTED_PROJECT_PARENTS]) list.push({ role: 'pinned', word: under('$P', rel), why: 'a protected path' });
    return list;
  }

  async prepare(spec: CommandSpec): Promise<PreparedCommand> {
    const host = await remoteHost(this.connection);
    const candidates = this.candidates(host.uid);
    // Records, NUL-separated: the run's folder, the real project, cwd and home, then per
    // candidate its real path and kind (d, f, -; empty when the word was empty), then the
    // sockets (s) and folders (d) at the top of /tmp.
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
      'for e in /tmp/* /tmp/.[!.]* /tmp/..?*; do',
      '  if [ -S "$e" ]; then printf "s\\0%s\\0" "$e"; elif [ -d "$e" ] && [ ! -L "$e" ]; then printf "d\\0%s\\0" "$e"; fi',
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
    const tmpEntries: HiddenPath[] = [];
    while (fields.length >= 2) {
      const [type, path] = fields.splice(0, 2) as [string, string];
      const name = path.slice('/tmp/'.length);
      if (type === 's' || TMP_SOCKET_DIRS.test(name)) {
        tmpEntries.push({ path, why: 'a host service socket' });
        kinds.set(path, type === 's' ? 'file' : 'dir');
      }
    }

    const policy = remotePolicy(projectDir, home, resolved, tmpEntries);
    const tmpDir = `${base}/tmp`;
    // Missing before the run and not inside a new repository: removed after it should the command make one.
    const missingProtected = resolved.filter((c) => c.role === 'protected' && c.kind === 'missing' && c.real !== '' && isWithin(c.real, projectDir) && kinds.get(dirname(c.real)) === 'dir').map((c) => c.real);

    const env: Record<string, string> = { ...spec.env, TMPDIR: tmpDir, TMP: tmpDir, TEMP: tmpDir, npm_config_cache: join(tmpDir, '.npm'), XDG_CACHE_HOME: join(tmpDir, '.cache') };
    for (const name of Object.keys(env)) if (/^(?:https?|all|no)_proxy$/i.test(name)) delete env[name];
    for (const name of DROPPED_ENV) delete env[name];
    // The remote session's own agent variables are not in `env`: unset inside. RLIMIT_NPROC: `-u` in bash/zsh/busybox, `-p` in dash.
    const inner = `unset ${DROPPED_ENV.join(' ')}; ulimit -u ${SANDBOX_MAX_PROCESSES} 2>/dev/null || ulimit -p ${SANDBOX_MAX_PROCESSES} 2>/dev/null; exec "$@"`;
    const args = [...bwrapArgs({ policy, tmpDir, unreadableFile: `${base}/hidden`, cwd, kindOf: (path) => kinds.get(path) ?? 'missing' }), '--', '/bin/sh', '-c', inner, 'sh', spec.file, ...spec.args];

    const connection = this.connection;
    let enforced: Promise<BlockedItem[]> | undefined;
    /** After the run: what it made at a protected path is removed, and its temp folder. */
    const enforce = (): Promise<BlockedItem[]> =>
      (enforced ??= (async () => {
        const cleanup = [
          `for p in ${missingProtected.map(shQuote).join(' ')}; do [ -e "$p" ] || [ -L "$p" ] || continue; rm -rf -- "$p"; printf '%s\\0' "$p"; done`,
          `rm -rf -- ${shQuote(base)}`,
        ].join('\n');
        try {
          const done = await connection.run(cleanup, { timeoutMs: 30_000 });
          return done.stdout.toString('utf8').split('\0').filter(Boolean).map((path) => ({ kind: 'write' as const, path, why: 'a protected path' }));
        } catch {
          return [];
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

/** The policy as resolvePolicy gives it locally, from the remote's real paths. */
function remotePolicy(projectDir: string, home: string, candidates: ResolvedCandidate[], tmpEntries: HiddenPath[]): ResolvedPolicy {
  const hidden: HiddenPath[] = [];
  const seen = new Set<string>();
  for (const h of [...candidates.filter((c) => c.role === 'hidden' && c.real !== '').map((c) => ({ path: c.real, why: c.why })), ...tmpEntries]) {
    // The project folder is the agent's to work in, whatever it sits under.
    if (isWithin(projectDir, h.path) || seen.has(h.path)) continue;
    seen.add(h.path);
    hidden.push(h);
  }
  const of = (role: Role): string[] => [...new Set(candidates.filter((c) => c.role === role && c.real !== '').map((c) => c.real))];
  return {
    projectDir,
    dataDir: '',
    home,
    // A hidden folder covers what lies in it (nothing can be mounted inside it afterwards).
    hidden: hidden.filter((h) => !hidden.some((other) => other.path !== h.path && isWithin(h.path, other.path))),
    staticHidden: [],
    protectedPaths: of('protected'),
    pinnedPaths: of('pinned'),
    allowedDomains: [],
  };
}
