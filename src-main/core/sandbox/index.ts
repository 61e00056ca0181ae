/**
 * The OS sandbox every agent command runs in (SPEC §7): bubblewrap on Linux, Seatbelt
 * (`sandbox-exec`) on macOS, nothing elsewhere (availability says why).
 *
 * Why our own launcher and not `@anthropic-ai/sandbox-runtime` (0.0.78, evaluated on this
 * machine, 2 cores, bwrap 0.8):
 * - Cost. Per command the library took 26–35 ms to build the wrapper (it searches the
 *   project with ripgrep for dangerous files each time; 97 ms the first time, 144 ms to
 *   initialise) and 39–49 ms to run `true` (it always starts socat bridges and a seccomp
 *   helper inside, even with no allowed domain): ≈ +70 ms a command against a plain
 *   `bash -c true` of 4 ms. The same isolation through bwrap directly costs ≈ 6–7 ms
 *   (`bwrap … true` 10–11 ms). The budget is +30 ms.
 * - Dependencies. It requires `rg` on PATH and `socat` (an app cannot count on either) and
 *   refuses to start without them.
 * - Shape. `SandboxManager` is one global per process with one config, while the window
 *   holds several folders, each with its own policy; and it mounts `/dev/null` over missing
 *   protected paths by first creating placeholder files in the person's project (left
 *   behind when killed), sets TMPDIR to a shared `/tmp/claude`, and exports proxy
 *   credentials into every command's environment.
 * - What it has that we do differently: its filtering proxy needs socat inside the sandbox;
 *   ours (domain-proxy.ts, only started when the folder allows domains) is an HTTP/CONNECT
 *   proxy on a Unix socket with a small Node bridge inside (`--unshare-net` always holds;
 *   no SOCKS, so only proxy-aware clients get through). It blocks AF_UNIX sockets with
 *   seccomp; we hide the host's sockets by path instead (all of /run, the socket folders of
 *   /tmp scanned per run, the agent sockets the environment names; abstract sockets are cut
 *   off with the network namespace).
 * Ideas borrowed from it: the mandatory protected paths, hiding secrets by mounting over
 * them, and refusing allowed names that resolve to this machine. Ours differs where it
 * matters for us: secrets are covered by an unreadable folder or file (a read fails with
 * "Permission denied" that the blocked line can name, rather than reading as empty); an
 * existing `.git` is pinned (a mount point cannot be moved aside and replaced); nothing is
 * created in the person's folder to serve as a mount point; and what a command may still
 * create (a `commondir`, a new repository, a hook where there was no hooks folder, a
 * `.deepdesk/`, a setuid file) lands in its write layer, which is checked whole when the
 * pid namespace guarantees nothing of it still runs, before any of it is applied
 * (layer-check.ts, write-layer.ts); without a layer, the folder is checked after the run
 * (core/git/surface.ts).
 * Root: RLIMIT_NPROC does not bind uid 0, so there a fork bomb is bounded by the timeout
 * (and the pid namespace, whose end kills every process in it) only.
 */
import { existsSync, lstatSync, statSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { dedupeItems, detectBlocked, formatBlockedLine, type BlockedItem } from './blocked';
import { bwrapArgs, findBwrap, probeBwrap, SANDBOX_MAX_PROCESSES } from './bwrap';
import { BRIDGE_PORT, proxyEnv, startDomainProxy, type DomainProxy } from './domain-proxy';
import { enforceGitSurface, RepositoryWalkCache, snapshotGitSurface, surfaceMounts, type GitSurface } from '../git/surface';
import { liveSurfaceCheck, serverReadOnlyPaths } from './live-guard';
import { appearedEntry, madeAt, removeAppeared } from './appeared-protected';
import { DROPPED_ENV, hides, resolvePolicy, type ResolvedPolicy } from './policy';
import { isPathInside } from '../fs/path-inside';
import { realPathOf } from '../fs/real-path';
import { SANDBOX_EXEC, seatbeltArgs } from './seatbelt';
import { seccompFilter, withPrelude } from './seccomp';
import { withStatusReport } from '../process/status-report';
import { launcherFile } from './launcher-files';
import { makeRunFolder, makeSocketFolder, removeRunFolder, removeRunFolderLater, runFoldersDir, sweepUnnamedProxyFoldersOnce } from './run-folders';
import { createTmpOverlay, mountsBelowTmp, tmpOverlayWorks, type TmpOverlay } from './private-tmp';
import { createWriteLayer, discardLayer, discardLayerAsync, NOTHING_APPLIED, readLayer, writeLayerTools, type AppliedLayer, type WriteLayer } from './write-layer';
import { applyCheckedLayer, LayerNotApplied } from './apply-checked-layer';
import { errnoOf } from '../fs/errno';
import { builtProgram } from '../process/built-program';
import type { CommandSpec, PrepareOptions, PreparedCommand, Sandbox, SandboxAvailability, SandboxKind, SandboxPolicy } from './types';
import { existsNoFollow } from '../fs/file-checks';

export type { CommandSpec, PrepareOptions, PreparedCommand, Sandbox, SandboxAvailability, SandboxKind, SandboxPolicy } from './types';

interface Launcher {
  kind: SandboxKind;
  /** bwrap or sandbox-exec. */
  path: string;
}

let detection: Promise<{ availability: SandboxAvailability; launcher?: Launcher }> | undefined;

async function detect(): Promise<{ availability: SandboxAvailability; launcher?: Launcher }> {
  if (process.platform === 'linux') {
    const bwrap = findBwrap();
    if (!bwrap) return { availability: { available: false, reason: 'bubblewrap (bwrap) is not installed' } };
    // A probe that ran out of time tells nothing: once more with longer, and if that is slow
    // too, unavailable for now but not remembered (the next caller probes again).
    let failure = await probeBwrap(bwrap);
    if (typeof failure === 'object') failure = await probeBwrap(bwrap, 30_000);
    if (typeof failure === 'object') {
      detection = undefined;
      return { availability: { available: false, reason: 'bubblewrap did not start in time (the machine is busy); it is tried again at the next start' } };
    }
    if (failure) {
      return {
        availability: {
          available: false,
          reason: `bubblewrap cannot create a sandbox here (${failure}); unprivileged user namespaces may be disabled`,
        },
      };
    }
    return { availability: { available: true, kind: 'bubblewrap' }, launcher: { kind: 'bubblewrap', path: bwrap } };
  }
  if (process.platform === 'darwin') {
    if (!existsSync(SANDBOX_EXEC)) return { availability: { available: false, reason: 'sandbox-exec is missing' } };
    return { availability: { available: true, kind: 'seatbelt' }, launcher: { kind: 'seatbelt', path: SANDBOX_EXEC } };
  }
  const name = process.platform === 'win32' ? 'Windows' : process.platform;
  return { availability: { available: false, reason: `no sandbox for commands exists on ${name} yet` } };
}

/** Whether commands can be sandboxed here; checked once (by running a trivial sandboxed command) and cached. */
export async function detectSandbox(): Promise<SandboxAvailability> {
  detection ??= detect();
  return (await detection).availability;
}

/** A sandbox for one folder's commands, or undefined where none is available. */
export async function createSandbox(policy: SandboxPolicy): Promise<Sandbox | undefined> {
  detection ??= detect();
  const { launcher } = await detection;
  if (!launcher) return undefined;
  return new OsSandbox(launcher, policy);
}

/** Per folder, the layer being checked and applied: one at a time, each checked against the folder the one before left. */
const layerTurns = new Map<string, Promise<void>>();

async function inTurn<T>(folder: string, fn: () => Promise<T>): Promise<T> {
  const before = layerTurns.get(folder) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const turn = before.then(() => mine);
  layerTurns.set(folder, turn);
  try {
    await before;
    return await fn();
  } finally {
    release();
    if (layerTurns.get(folder) === turn) layerTurns.delete(folder);
  }
}

let unreadable: string | undefined;

/** An empty file no one may read, mounted over secret files (bwrap): made once, made again when it went. */
function unreadableFile(): string {
  if (unreadable === undefined || !existsSync(unreadable)) unreadable = launcherFile('hidden', Buffer.alloc(0), 0o000);
  return unreadable;
}

/** The program that leads a sandbox's 127.0.0.1 ports to sockets outside (native/port-relay.c). */
function portRelay(): string {
  const file = builtProgram('port-relay');
  if (file === undefined) throw new Error('a sandbox that reaches the network needs out/native/port-relay: run `npm run build`');
  return file;
}

/** A run's temp folder: one rmdir when the command left it empty (the usual case), else removed whole (what it left unwritable too). */
async function removeTmpDir(dir: string): Promise<void> {
  try {
    await rmdir(dir);
  } catch {
    await removeRunFolder(dir);
  }
}

/**
 * Every run's folders (run-folders.ts: TMPDIRs, write layers, proxies' sockets, of every
 * Deepdesk process of this user) hidden from a command with one cover, but for its own
 * TMPDIR (writable) and the folders of the sockets it is given (`sockets`, read-only: a
 * connect() still reaches them). Where run folders are loose in the temp folder (the shared
 * one could not be used), nothing: the scan of /tmp hides the proxies' folders there.
 */
function hideRunFolders(resolved: ResolvedPolicy, tmpDir: string, sockets: ReadonlyArray<string | undefined>): void {
  const runsDir = realPathOf(runFoldersDir());
  const inRuns = (path: string | undefined): path is string => path !== undefined && path !== runsDir && isPathInside(runsDir, path);
  if (!inRuns(tmpDir) || isPathInside(runsDir, resolved.projectDir) || resolved.writablePaths.some((p) => isPathInside(runsDir, p) || isPathInside(p, runsDir))) return;
  const shows = [...new Set(sockets.filter(inRuns))];
  resolved.hidden.push({ path: runsDir, why: "Deepdesk's run folders (other commands' temp folders, write layers and proxies)", opens: [tmpDir], ...(shows.length > 0 ? { shows } : {}) });
}

/** Whether a path exists as a file or folder (not a link: a mount would follow it). */
function mountable(path: string): boolean {
  try {
    return !lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * One folder's repositories as last looked at. A command with a write layer is launched with
 * the read-only mounts of the last look, taken after the command before it had ended (while
 * the model worked on its result), not of one taken while the person waits: a stat of every
 * folder and a read of every repository's surface, 2 ms for one small repository and 2.6 ms
 * more per 1,000 folders.
 * What appeared since (a repository the person made in between) is then, for that one
 * command, what a repository made during it always is: its writes there land in the layer,
 * whose check looks at the folder afresh and refuses them before anything reaches the folder.
 * A mount of what vanished since is left out by bwrapArgs, which looks at each path itself.
 * Without a layer, the look before the run is what the run is compared with: taken then.
 */
interface FolderLook {
  /** Its folders as last walked: only what changed is read again. */
  readonly cache: RepositoryWalkCache;
  /** Git's surface as the last finished look found it. */
  last?: GitSurface;
  /** The look being taken after the last command, if one is (it never rejects). */
  looking?: Promise<void> | undefined;
}

class OsSandbox implements Sandbox {
  readonly kind: SandboxKind;
  private readonly looks = new Map<string, FolderLook>();
  /** The resolved secrets list per home and agent sockets: it only changes with them. */
  private readonly hiddenCache = new Map<string, ResolvedPolicy['hidden']>();

  constructor(
    private readonly launcher: Launcher,
    readonly policy: SandboxPolicy,
  ) {
    this.kind = launcher.kind;
  }

  /** Per folder and home (a repository's surface names what the home's git config does). */
  private folderLook(projectDir: string, home: string): FolderLook {
    const key = JSON.stringify([projectDir, home]);
    let look = this.looks.get(key);
    if (!look) this.looks.set(key, (look = { cache: new RepositoryWalkCache() }));
    return look;
  }

  /** A write layer for one run, where this machine can make one (sandbox/write-layer.ts). */
  private async writeLayer(projectDir: string): Promise<WriteLayer | undefined> {
    const tools = await writeLayerTools();
    if (!tools) return undefined;
    try {
      return createWriteLayer(tools, projectDir);
    } catch {
      return undefined;
    }
  }

  async prepare(spec: CommandSpec, options: PrepareOptions = {}): Promise<PreparedCommand> {
    const longLived = options.longLived === true;
    if (longLived && options.report) throw new Error('a long-lived process has no status report');
    const commandHome = spec.env.HOME ?? homedir();
    const cacheKey = JSON.stringify([commandHome, spec.env.SSH_AUTH_SOCK, spec.env.GPG_AGENT_INFO]);
    const cachedHidden = this.hiddenCache.get(cacheKey);
    await sweepUnnamedProxyFoldersOnce();
    const resolved = resolvePolicy(this.policy, { homes: [commandHome, homedir()], env: spec.env, ...(cachedHidden ? { hidden: cachedHidden } : {}) });
    if (!cachedHidden) this.hiddenCache.set(cacheKey, resolved.staticHidden);
    // Made first: with a layer, the look at the folder's repositories may be the last one (FolderLook).
    const layer = longLived || this.launcher.kind !== 'bubblewrap' ? undefined : await this.writeLayer(resolved.projectDir);
    // A long-lived process has no layer: its private /tmp is the one overlay its launch mounts.
    const tmpOverlay = resolved.privateTmp && !layer && this.launcher.kind === 'bubblewrap' ? await this.tmpOverlay() : undefined;
    try {
      return await this.prepareRun(spec, options, resolved, layer, tmpOverlay);
    } catch (err) {
      if (layer) discardLayer(layer.dir);
      if (tmpOverlay) await removeRunFolder(tmpOverlay.dir);
      throw err;
    }
  }

  /** A private /tmp's overlay, where one mounts here (else bwrap.ts binds the host's entries one by one). */
  private async tmpOverlay(): Promise<TmpOverlay | undefined> {
    const tools = await writeLayerTools();
    return tools && !mountsBelowTmp() && (await tmpOverlayWorks(tools)) ? createTmpOverlay(tools) : undefined;
  }

  private async prepareRun(spec: CommandSpec, options: PrepareOptions, resolved: ResolvedPolicy, layer: WriteLayer | undefined, tmpOverlay: TmpOverlay | undefined): Promise<PreparedCommand> {
    const longLived = options.longLived === true;
    // Found before anything of the run is made, which a missing program would leave behind.
    const relay = this.launcher.kind === 'bubblewrap' && resolved.forwards.length + resolved.allowedDomains.length > 0 ? portRelay() : undefined;
    // Git's surface in every repository of the folder: kept read-only where it exists, and
    // compared after the run for what could not be mounted (core/git/surface.ts).
    const look = this.folderLook(resolved.projectDir, resolved.home);
    const walk = (): Promise<GitSurface> => snapshotGitSurface(resolved.projectDir, resolved.home, look.cache);
    const gitBefore = layer && look.last ? look.last : (look.last = await walk());
    const walkCache = look.cache;
    const gitMounts = surfaceMounts(gitBefore);
    // A long-lived process gets every existing repository read-only, whole (live-guard.ts).
    const serverReadOnly = longLived ? serverReadOnlyPaths(gitBefore, resolved.projectDir) : [];
    resolved.protectedPaths = [...new Set([...resolved.protectedPaths, ...gitMounts.readOnly, ...serverReadOnly])];
    resolved.pinnedPaths = [...new Set([...resolved.pinnedPaths, ...gitMounts.pinned])];
    // Without a layer, what the run is compared with afterwards. With one, its check looks at the folder itself.
    const untouchable = layer ? [] : resolved.protectedPaths.filter(mountable);
    // Protected paths that do not exist cannot be mounted: one that appears is the run's to undo
    // (a long-lived process's, moved to the quarantine: it may be the person's, live-guard.ts).
    // Missing: nothing on the way to it (a link among its parents counts as something there).
    const missingProtected = layer
      ? []
      : resolved.protectedPaths.filter((p) => isPathInside(resolved.projectDir, p) && !isPathInside(join(resolved.projectDir, '.git'), p) && appearedEntry(resolved.projectDir, p) === undefined);
    const tmpDir = realPathOf(makeRunFolder(longLived ? 'deepdesk-server-' : 'deepdesk-run-'));
    // A file's ctime cannot be set back by any process: what is older than the run's own temp
    // folder (stamped by the same kernel clock) is not the run's; a tie counts as the run's.
    const runStartedMs = statSync(tmpDir).ctimeMs;
    const env: Record<string, string> = { ...spec.env, TMPDIR: tmpDir, TMP: tmpDir, TEMP: tmpDir };
    for (const name of Object.keys(env)) if (/^(?:https?|all|no)_proxy$/i.test(name)) delete env[name];
    // Caches that would be written under the read-only home go to the private temp folder.
    env.npm_config_cache = join(tmpDir, '.npm');
    env.XDG_CACHE_HOME = join(tmpDir, '.cache');
    for (const name of DROPPED_ENV) delete env[name];
    const cwd = realPathOf(spec.cwd);

    let file: string;
    let args: string[];
    let proxy: DomainProxy | undefined;
    let proxyDir: string | undefined;
    if (this.launcher.kind === 'bubblewrap') {
      let command = [spec.file, ...spec.args];
      // 127.0.0.1 ports inside that lead to sockets outside: forwarded ports, the domain proxy.
      const relayed = resolved.forwards.map((f) => [String(f.port), f.socket]);
      if (resolved.allowedDomains.length > 0) {
        // Made after the policy was resolved: other runs hide it, this one reaches it.
        const { dir, socket } = makeSocketFolder('proxy.sock');
        proxyDir = dir;
        proxy = await startDomainProxy(resolved.allowedDomains, { path: socket });
        Object.assign(env, proxyEnv(`http://127.0.0.1:${BRIDGE_PORT}`));
        relayed.push([String(BRIDGE_PORT), socket]);
      }
      if (relay !== undefined) command = [relay, ...relayed.flat(), '--', ...command];
      hideRunFolders(resolved, tmpDir, [proxyDir, ...resolved.forwards.map((f) => realPathOf(dirname(f.socket)))]);
      // The layer's own folders (the real project among them) are not the command's to see.
      const layerDir = layer?.dir;
      if (layerDir !== undefined && !resolved.hidden.some((h) => hides(h, layerDir))) resolved.hidden.push({ path: layerDir, why: "the command's write layer" });
      // Inside the layer's (or the private /tmp's) user namespace the person is root: bwrap maps them back.
      const ids = (layer || tmpOverlay) && typeof process.getuid === 'function' && typeof process.getgid === 'function' ? ['--uid', String(process.getuid()), '--gid', String(process.getgid())] : [];
      const seccomp = seccompFilter();
      // A bare name is found by a shell inside (its "not found" and 127, as a person would
      // see); a path (the shell every command runs in) is exec'd by bwrap itself.
      const inner = command[0]?.startsWith('/') ? command : ['/bin/sh', '-c', 'exec "$@"', 'sh', ...command];
      args = [...bwrapArgs({ policy: resolved, tmpDir, unreadableFile: unreadableFile(), cwd, seccomp, ...(tmpOverlay ? { tmpView: tmpOverlay.view } : {}) }), ...ids, '--', ...inner];
      // One shell before bwrap sets the process limit (inherited by everything inside), opens
      // the filter and reports the status: the fewest execs per command. With a layer,
      // overlay-exec mounts the overlay before it.
      const prelude = { maxProcesses: SANDBOX_MAX_PROCESSES, ...(seccomp ? { filter: seccomp } : {}), ...(options.report ? { report: options.report } : {}) };
      const launch = withPrelude(prelude, this.launcher.path, args);
      ({ file, args } = (layer ?? tmpOverlay)?.wrap(launch.file, launch.args) ?? launch);
    } else {
      if (resolved.forwards.length > 0) throw new Error('forwarded ports need bubblewrap (Linux)');
      if (resolved.allowedDomains.length > 0) {
        proxy = await startDomainProxy(resolved.allowedDomains, { port: 0 });
        Object.assign(env, proxyEnv(`http://127.0.0.1:${proxy.port}`));
      }
      const proxyPort = proxy?.port;
      file = this.launcher.path;
      args = seatbeltArgs({ policy: resolved, tmpDir, ...(proxyPort !== undefined ? { proxyPort } : {}) }, spec.file, spec.args);
      if (options.report) ({ file, args } = withStatusReport(options.report, file, args));
    }

    // Captured now: the checkpoint step this command belongs to applies its layer. A
    // long-lived process belongs to no step.
    const attribution = layer ? options.attribution : undefined;
    attribution?.expectLayer();
    // Without a layer the folder's state is recorded before the command can change it.
    if (!layer && !longLived) await options.attribution?.blind();
    let enforced: Promise<BlockedItem[]> | undefined;
    /**
     * After the run. With a layer: check it whole (git surface, protected paths, file kinds),
     * then apply what passed, whole or not at all. Without one: undo what git would run
     * later and what was made at a protected path.
     */
    const enforce = (): Promise<BlockedItem[]> =>
      (enforced ??= (async () => {
        const items: BlockedItem[] = [];
        const report = (failed: AppliedLayer['failed']): void => {
          const failures = failed.map((f) => ({ kind: 'write' as const, path: join(resolved.projectDir, f.rel), why: f.why }));
          // "Nothing was applied" comes first: the line lists only the first few.
          const whole = failures.filter((f) => f.why.endsWith(NOTHING_APPLIED));
          items.unshift(...whole);
          items.push(...failures.filter((f) => !whole.includes(f)));
        };
        if (layer) {
          const ran = layer;
          return inTurn(resolved.projectDir, async () => {
            try {
              const { verdict, applied } = await applyCheckedLayer(ran, () => readLayer(ran), {
                home: resolved.home,
                protectedPaths: resolved.protectedPaths,
                cache: walkCache,
                attribution,
                // Nothing of the command touched the real folder: what changed there after it started is someone else's
                // (a change in the tick the run began came before the command could look).
                spare: (_rel, st) => st.ctimeMs > runStartedMs,
                ...(options.reviewLayer ? { review: options.reviewLayer } : {}),
              });
              items.push(...verdict.items);
              report(applied.failed);
            } catch (err) {
              if (!(err instanceof LayerNotApplied)) throw err;
              if (err.stage === 'check') {
                // Checks that could not be completed: nothing is applied.
                items.push({ kind: 'write', path: resolved.projectDir, why: `they could not be checked (${errnoOf(err.cause)}); ${NOTHING_APPLIED}` });
              } else {
                items.push(...(err.verdict?.items ?? []));
                report([{ rel: '', why: `they could not be applied (${errnoOf(err.cause)}); ${NOTHING_APPLIED}` }]);
              }
            }
            return items;
          });
        }
        const git = await enforceGitSurface(resolved.projectDir, gitBefore, { home: resolved.home, untouchable, cache: walkCache });
        items.push(...git.items);
        for (const path of missingProtected) {
          // The entry in the folder, never what a link leads to (appeared-protected.ts).
          const rel = appearedEntry(resolved.projectDir, path);
          if (rel === undefined) continue;
          const made = madeAt(resolved.projectDir, rel);
          let why = 'a protected path';
          try {
            removeAppeared(resolved.projectDir, rel);
          } catch (err) {
            why = `could not undo (${errnoOf(err)}): a protected path`;
          }
          items.push(...made.map((p) => ({ kind: 'write' as const, path: p, why })));
        }
        return items;
      })());

    const hiddenPaths = new Set(resolved.hidden.map((h) => h.path));
    return {
      file,
      args,
      cwd: spec.cwd,
      env,
      ...(options.report ? { reports: true as const } : {}),
      launchRaced: (output, exitCode) => {
        if (this.launcher.kind !== 'bubblewrap' || exitCode !== 1) return false;
        const path = vanishedMountTarget(output);
        return path !== undefined && hiddenPaths.has(path) && !existsNoFollow(path);
      },
      async blockedLine(output: string): Promise<string | undefined> {
        // After the layer was applied: a path the output names (a link the command made) is then in the folder.
        const enforcedItems = await enforce();
        const found = await detectBlocked(output, { policy: resolved, writable: [tmpDir], cwd, home: resolved.home });
        const refused: BlockedItem[] = [...(proxy?.refused ?? [])].map((host) => ({ kind: 'network', host }));
        return formatBlockedLine(dedupeItems([...enforcedItems, ...refused, ...found]), resolved);
      },
      async dispose(): Promise<void> {
        await enforce();
        // Nothing runs any more (enforce waited for the layer's check). A command's folders go
        // in the background, after its result; a server's as it ends (nobody waits on that).
        type Folder = readonly [string, (dir: string) => Promise<void>];
        const folders: Folder[] = [...(layer ? [[layer.dir, discardLayerAsync] as const] : []), [tmpDir, removeTmpDir], ...(proxyDir ? [[proxyDir, removeRunFolder] as const] : []), ...(tmpOverlay ? [[tmpOverlay.dir, removeRunFolder] as const] : [])];
        await proxy?.close();
        if (longLived) await Promise.all(folders.map(([dir, remove]) => remove(dir)));
        else for (const [dir, remove] of folders) removeRunFolderLater(dir, remove);
        // The look the next command is launched with: taken once this result has gone back
        // (a turn of the event loop later), while the model works on it.
        if (layer && !look.looking) {
          look.looking = new Promise<void>((resolve) => setImmediate(resolve))
            .then(walk)
            .then(
              (surface) => void (look.last = surface),
              () => void (look.last = undefined),
            )
            .finally(() => (look.looking = undefined));
        }
      },
      ...(longLived ? { checkNow: liveSurfaceCheck({ policy: resolved, before: gitBefore, untouchable, cache: walkCache, missingProtected }) } : {}),
    };
  }
}

/**
 * The path bubblewrap could not cover because it vanished after the run was prepared, when
 * the output is that error alone (bwrap stops before the command starts): the mount point
 * gone between its check and the mount, or gone before the check on a read-only root (then
 * bwrap tries to make it: a file, or a folder such as a loose proxy's another process swept).
 */
export function vanishedMountTarget(output: string): string | undefined {
  const text = output.replace(/\r/g, '').trim();
  if (text.includes('\n')) return undefined;
  const match = /^bwrap: (?:Can't bind mount \S+ on \/newroot(\/\S+): No such file or directory|Can't (?:create file at|mkdir) (\/\S+): Read-only file system)$/.exec(text);
  return match?.[1] ?? match?.[2];
}

