// The mounts in force (SPEC §13): the `--mount` flags of this session over the person's
// Settings › Mounts (a flag wins for its prefix), each opened as a route of the composite
// (§1): a local folder as a FilesystemBackend (read-only when `ro:`), a git remote as a
// GitMountBackend cloned under `<data-dir>/mounts`. Backends are kept while their mount is
// unchanged, so a git mount's clone and pending step survive a change to another mount.

import { FilesystemBackend } from '../filesystem/filesystem';
import { GitMountBackend } from '../git-mount/git-mount';
import { describeMountSource, type MountSpec } from './mount-spec';
import type { Backend } from '../protocol';
import { readOnlyBackend } from './read-only';
import { localMountProblem, parseSavedMount, type SavedMount } from './mount-flags';

export interface MountRoute {
  prefix: string;
  backend: Backend;
}

export interface GitMountRoute {
  prefix: string;
  backend: GitMountBackend;
}

export type MountOrigin = 'flag' | 'settings';

/** One mount as the window lists it. */
export interface MountInfo {
  prefix: string;
  /** The folder (with ro:) or git+URL#BRANCH, without a password. */
  source: string;
  kind: 'local' | 'git';
  readOnly: boolean;
  from: MountOrigin;
  /** Why it is not mounted now (a folder that is not there). */
  problem?: string;
}

export type { SavedMount };

export interface MountTableOptions {
  /** `<data-dir>/mounts`: git mounts' clones. */
  cacheRoot: string;
  /** This session's `--mount` flags (parsed). */
  flags?: readonly MountSpec[];
  /** The person's saved mounts, read whenever the table is asked (so a change applies to the next step). */
  saved?: () => readonly SavedMount[];
  env?: NodeJS.ProcessEnv;
  /** Told once per problem with a saved or flagged mount (not mounted). */
  onProblem?: (message: string) => void;
}

interface Opened {
  key: string;
  spec: MountSpec;
  from: MountOrigin;
  backend?: Backend;
  problem?: string;
}

export class MountTable {
  private opened = new Map<string, Opened>();
  private routeList: readonly MountRoute[] = [];
  private lastSaved: string | undefined;
  private readonly told = new Set<string>();

  constructor(private readonly options: MountTableOptions) {}

  /** The routes to add to the composite, now: the same array while the mounts are unchanged. */
  routes(): readonly MountRoute[] {
    this.current();
    return this.routeList;
  }

  /** The git mounts in force, for the step commit. */
  gitMounts(): GitMountRoute[] {
    return this.current().flatMap((o) => (o.backend instanceof GitMountBackend ? [{ prefix: o.spec.prefix, backend: o.backend }] : []));
  }

  list(): MountInfo[] {
    return this.current().map((o) => ({
      prefix: o.spec.prefix,
      source: describeMountSource(o.spec.source),
      kind: o.spec.source.kind,
      readOnly: o.spec.source.kind === 'local' && o.spec.source.readOnly,
      from: o.from,
      ...(o.problem !== undefined ? { problem: o.problem } : {}),
    }));
  }

  /**
   * Where each mounted prefix lives on this machine: a local mount's folder, a git mount's
   * work tree (undefined until its first clone). For an editor, which needs real paths.
   */
  realRoots(): { prefix: string; root: string | undefined }[] {
    return this.current().flatMap((o) => {
      if (o.backend === undefined) return [];
      const root = o.spec.source.kind === 'local' ? o.spec.source.path : o.backend instanceof GitMountBackend ? o.backend.workTreeDir : undefined;
      return [{ prefix: o.spec.prefix, root }];
    });
  }

  /** A git mount's commits (by the agent), newest first; undefined for a prefix that is no git mount. */
  async history(prefix: string, limit = 50): Promise<{ commit: string; author: string; date: string; subject: string }[] | undefined> {
    const mount = this.gitMounts().find((m) => m.prefix === prefix);
    return mount ? mount.backend.history(limit) : undefined;
  }

  async close(): Promise<void> {
    const all = [...this.opened.values()];
    this.opened.clear();
    await Promise.all(all.map((o) => closeBackend(o.backend)));
  }

  private current(): Opened[] {
    const savedList = this.options.saved?.() ?? [];
    const savedKey = JSON.stringify(savedList);
    if (savedKey !== this.lastSaved) {
      this.lastSaved = savedKey;
      this.rebuild(savedList);
    }
    return [...this.opened.values()];
  }

  private rebuild(savedList: readonly SavedMount[]): void {
    const flags = this.options.flags ?? [];
    const wanted: { spec: MountSpec; from: MountOrigin }[] = flags.map((spec) => ({ spec, from: 'flag' as const }));
    const flagged = new Set(flags.map((f) => f.prefix));
    for (const saved of savedList) {
      let spec: MountSpec;
      try {
        spec = parseSavedMount(saved);
      } catch (err) {
        this.tell(`Settings › Mounts: ${saved.prefix}: ${err instanceof Error ? err.message : String(err)}; it is not mounted`);
        continue;
      }
      // A flag overrides the saved mount at its prefix for this session; a repeated prefix keeps the first.
      if (flagged.has(spec.prefix) || wanted.some((w) => w.spec.prefix === spec.prefix)) continue;
      wanted.push({ spec, from: 'settings' });
    }
    const next = new Map<string, Opened>();
    for (const { spec, from } of wanted) {
      const key = `${spec.prefix}\0${JSON.stringify(spec.source)}`;
      const kept = this.opened.get(key);
      if (kept) {
        next.set(key, { ...kept, from });
        continue;
      }
      next.set(key, this.open(key, spec, from));
    }
    for (const [key, old] of this.opened) if (!next.has(key)) void closeBackend(old.backend);
    this.opened = next;
    this.routeList = [...next.values()].flatMap((o) => (o.backend ? [{ prefix: o.spec.prefix, backend: o.backend }] : []));
  }

  private open(key: string, spec: MountSpec, from: MountOrigin): Opened {
    const { source } = spec;
    if (source.kind === 'local') {
      const problem = localMountProblem(spec);
      if (problem !== null) {
        this.tell(`The mount ${spec.prefix} is not mounted: ${problem}`);
        return { key, spec, from, problem };
      }
      const folder = new FilesystemBackend({ rootDir: source.path });
      return { key, spec, from, backend: source.readOnly ? readOnlyBackend(folder) : folder };
    }
    const backend = new GitMountBackend({
      url: source.url,
      ...(source.branch !== undefined ? { branch: source.branch } : {}),
      cacheRoot: this.options.cacheRoot,
      prefix: spec.prefix,
      ...(this.options.env ? { env: this.options.env } : {}),
    });
    return { key, spec, from, backend };
  }

  private tell(message: string): void {
    if (this.told.has(message)) return;
    this.told.add(message);
    this.options.onProblem?.(message);
  }
}

async function closeBackend(backend: Backend | undefined): Promise<void> {
  if (backend instanceof GitMountBackend) await backend.close().catch(() => undefined);
}
