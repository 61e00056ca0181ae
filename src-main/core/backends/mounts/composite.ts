// CompositeBackend: one virtual tree over several backends (SPEC §1). Paths route by the
// longest mount prefix; the prefix is stripped before the mounted backend is called and
// put back on every path it returns, error texts included. Searches over a folder that
// holds mounts fan out to every backend below it and share one match budget.

import type {
  Backend, DeleteResult, EditResult, ExecuteOptions, ExecuteResult, FileDownloadResponse, FileInfo, FileUpload,
  FileUploadResponse, GlobResult, GrepMatch, GrepResult, LinkTarget, LsResult, ReadRawResult, ReadResult, ShellBackend,
  StatResult, WriteResult,
} from '../protocol';
import { DEFAULT_GREP_MAX_COUNT, DEFAULT_READ_LIMIT, isShellBackend } from '../protocol';
import { compareCodePoints, joinVirtual, normalizeVirtualPath, parentOf, relativeVirtual, sortByPath } from '../paths';
import { globBelowMount } from './composite-glob';
import { globPatternError } from '../filesystem/glob-match';

export type ListInRoot = 'always' | 'when-not-empty';

export interface CompositeRoute {
  /** A folder such as `/memories/`; the trailing slash is optional. */
  prefix: string;
  backend: Backend;
  /** Whether the mount's folder shows in its parent's listing always or only when it holds something. */
  listInRoot: ListInRoot;
}

interface Mount {
  /** The mount folder without a trailing slash, e.g. `/memories`. */
  base: string;
  backend: Backend;
  listInRoot: ListInRoot;
}

type Target = { mount: Mount; inner: string } | { mount: null; path: string };

export class CompositeBackend implements Backend {
  readonly defaultBackend: Backend;
  private readonly routes: () => readonly CompositeRoute[];
  private built: { from: readonly CompositeRoute[]; mounts: Mount[] } | undefined;

  /**
   * `routes` may be a function, read on every call (mounts the person adds or removes apply
   * to the next call); it should return the same array while nothing changed.
   */
  constructor(defaultBackend: Backend, routes: readonly CompositeRoute[] | (() => readonly CompositeRoute[])) {
    this.defaultBackend = defaultBackend;
    this.routes = typeof routes === 'function' ? routes : () => routes;
    void this.mounts; // a bad prefix fails here, not at the first call
  }

  /** Longest base first, so the first match is the longest prefix. */
  private get mounts(): Mount[] {
    const routes = this.routes();
    if (this.built?.from === routes) return this.built.mounts;
    const mounts = routes.map((route) => {
      const p = normalizeVirtualPath(route.prefix);
      if (!p.ok || p.path === '/') throw new Error(`invalid mount prefix '${route.prefix}'`);
      return { base: p.path, backend: route.backend, listInRoot: route.listInRoot };
    });
    mounts.sort((a, b) => b.base.length - a.base.length);
    this.built = { from: routes, mounts };
    return mounts;
  }

  async ls(path: string): Promise<LsResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const [res, mountDirs] = await Promise.all([this.ownLs(p.path), this.visibleMountDirs(p.path)]);
    if (mountDirs.length === 0) return res;
    if (res.error !== undefined) return { entries: mountDirs };
    const own = res.entries ?? [];
    if (own.length === 1 && own[0]!.path === p.path) return res; // p.path is a file
    const shadowed = new Set(mountDirs.map((d) => d.path.slice(0, -1)));
    const kept = own.filter((e) => !shadowed.has(e.path.replace(/\/$/, '')));
    return { entries: sortByPath([...kept, ...mountDirs]) };
  }

  /** The listing of the backend that owns `path` (the longest mount, else the default), in outer paths. */
  private async ownLs(path: string): Promise<LsResult> {
    const target = this.route(path);
    if (!target.mount) return this.defaultBackend.ls(path);
    const { mount, inner } = target;
    const res = await mount.backend.ls(inner);
    if (res.error !== undefined) return { error: outerError(res.error, mount.base, inner) };
    return { entries: (res.entries ?? []).map((e) => ({ ...e, path: mount.base + e.path })) };
  }

  async read(path: string, offset = 0, limit = DEFAULT_READ_LIMIT): Promise<ReadResult> {
    return this.single(path, (backend, inner) => backend.read(inner, offset, limit));
  }

  async readRaw(path: string): Promise<ReadRawResult> {
    return this.single(path, (backend, inner) => backend.readRaw(inner));
  }

  async write(path: string, content: string): Promise<WriteResult> {
    return this.single(path, (backend, inner) => backend.write(inner, content));
  }

  async edit(path: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    return this.single(path, (backend, inner) => backend.edit(inner, oldString, newString, replaceAll));
  }

  async delete(path: string): Promise<DeleteResult> {
    return this.single(path, (backend, inner) => backend.delete(inner));
  }

  async linkTarget(path: string): Promise<LinkTarget | null> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return null;
    const { backend, base, inner } = this.split(p.path);
    const target = (await backend.linkTarget?.(inner)) ?? null;
    return target !== null && 'virtual' in target ? { virtual: base + (base !== '' && target.virtual === '/' ? '' : target.virtual) } : target;
  }

  async linkedNames(path: string): Promise<string[]> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return [];
    const { backend, base, inner } = this.split(p.path);
    return ((await backend.linkedNames?.(inner)) ?? []).map((name) => base + name);
  }

  async alwaysAskReason(path: string): Promise<string | null> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return null;
    const { backend, inner } = this.split(p.path);
    return (await backend.alwaysAskReason?.(inner)) ?? null;
  }

  /** The owning backend's refusal of a change at `path`, its paths in outer terms (as write would say it). */
  async changeRefusal(path: string): Promise<string | undefined> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return p.error;
    const target = this.route(p.path);
    if (!target.mount) return this.defaultBackend.changeRefusal?.(p.path);
    const { mount, inner } = target;
    const refusal = await mount.backend.changeRefusal?.(inner);
    return refusal === undefined ? undefined : outerError(refusal, mount.base, inner);
  }

  async stat(path: string): Promise<StatResult> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const target = this.route(p.path);
    if (!target.mount) return this.defaultBackend.stat(p.path);
    const { mount, inner } = target;
    const res = await mount.backend.stat(inner);
    if (res.error !== undefined) return { error: outerError(res.error, mount.base, inner) };
    return res.info ? { ...res, info: { ...res.info, path: mount.base + res.info.path } } : res;
  }

  async grep(pattern: string, path = '/', glob?: string, maxCount = DEFAULT_GREP_MAX_COUNT): Promise<GrepResult> {
    const badGlob = glob ? globPatternError(glob) : null;
    if (badGlob !== null) return { error: badGlob };
    const found = await this.searchAcross(
      path,
      (b, inner) => b.grep(pattern, inner, glob, maxCount),
      (base, rel) => patternsFor(glob, rel).map((g) => this.grep(pattern, base, g, maxCount)),
      (m: GrepMatch) => `${m.line}:${m.path}`,
    );
    if ('error' in found) return found;
    if (found.whole) return { matches: found.matches, truncated: found.truncated };
    const sorted = found.matches.sort((a, b) => compareCodePoints(a.path, b.path) || a.line - b.line);
    if (sorted.length > maxCount) return { matches: sorted.slice(0, Math.max(0, maxCount)), truncated: true };
    return { matches: sorted, truncated: found.truncated };
  }

  async glob(pattern: string, path = '/'): Promise<GlobResult> {
    const badPattern = globPatternError(pattern);
    if (badPattern !== null) return { error: badPattern };
    const found = await this.searchAcross(
      path,
      (b, inner) => b.glob(pattern, inner),
      (base, rel) => globBelowMount(pattern, rel).map((g) => this.glob(g, base)),
      (m: FileInfo) => m.path,
    );
    if ('error' in found) return found;
    return { matches: found.whole ? found.matches : sortByPath(found.matches), truncated: found.truncated };
  }

  /**
   * A search of `path` and of every mount below it (each through this composite again, so a
   * mount nested in that one is searched too), merged by `key`. `whole`: one mount owns the
   * path and none lies below it, so its result is the answer as it is. A failing mount below
   * does not hide the rest of the tree.
   */
  private async searchAcross<M extends { path: string }>(
    path: string,
    own: (backend: Backend, inner: string) => Promise<{ error?: string; matches?: M[]; truncated?: boolean }>,
    below: (base: string, rel: string) => Promise<{ error?: string; matches?: M[]; truncated?: boolean }>[],
    key: (match: M) => string,
  ): Promise<{ error: string } | { matches: M[]; truncated: boolean; whole: boolean }> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error };
    const target = this.route(p.path);
    const owner = target.mount;
    const mountsBelow = this.mountsBelow(p.path);
    const [mine, parts] = await Promise.all([
      owner ? this.inMount(owner, (target as { inner: string }).inner, own) : own(this.defaultBackend, p.path),
      Promise.all(mountsBelow.flatMap(({ mount, rel }) => below(mount.base, rel))),
    ]);
    if (mine.error !== undefined) return { error: mine.error };
    if (mountsBelow.length === 0 && owner) return { matches: mine.matches ?? [], truncated: mine.truncated === true, whole: true };
    let truncated = mine.truncated === true;
    const merged = new Map<string, M>();
    for (const m of mine.matches ?? []) if (this.route(m.path).mount === owner) merged.set(key(m), m);
    for (const res of parts) {
      if (res.error !== undefined) continue;
      truncated ||= res.truncated === true;
      for (const m of res.matches ?? []) merged.set(key(m), m);
    }
    return { matches: [...merged.values()], truncated, whole: false };
  }

  /** A search in one mount, its paths (and error) in outer terms. */
  private async inMount<T extends { error?: string; matches?: { path: string }[]; truncated?: boolean }>(
    mount: Mount,
    inner: string,
    call: (backend: Backend, inner: string) => Promise<T>,
  ): Promise<T> {
    const res = await call(mount.backend, inner);
    if (res.error !== undefined) return { ...res, error: outerError(res.error, mount.base, inner) };
    return { ...res, matches: (res.matches ?? []).map((m) => ({ ...m, path: mount.base + m.path })), truncated: res.truncated === true };
  }

  async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    const out: FileUploadResponse[] = new Array(files.length);
    const groups = new Map<string, { backend: Backend; items: { index: number; file: FileUpload }[] }>();
    files.forEach((file, index) => {
      const p = normalizeVirtualPath(file.path);
      if (!p.ok) {
        out[index] = { path: file.path, error: 'invalid_path' };
        return;
      }
      const { backend, base, inner } = this.split(p.path);
      const group = groups.get(base) ?? { backend, items: [] };
      group.items.push({ index, file: { path: inner, content: file.content } });
      groups.set(base, group);
    });
    await Promise.all([...groups].map(async ([base, { backend, items }]) => {
      const res = await backend.uploadFiles(items.map((i) => i.file));
      items.forEach((item, k) => {
        const r = res[k] ?? { path: item.file.path, error: 'invalid_path' as const };
        out[item.index] = { ...r, path: base + r.path };
      });
    }));
    return out;
  }

  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    const out: FileDownloadResponse[] = new Array(paths.length);
    const groups = new Map<string, { backend: Backend; items: { index: number; inner: string }[] }>();
    paths.forEach((path, index) => {
      const p = normalizeVirtualPath(path);
      if (!p.ok) {
        out[index] = { path, error: 'invalid_path' };
        return;
      }
      const { backend, base, inner } = this.split(p.path);
      const group = groups.get(base) ?? { backend, items: [] };
      group.items.push({ index, inner });
      groups.set(base, group);
    });
    await Promise.all([...groups].map(async ([base, { backend, items }]) => {
      const res = await backend.downloadFiles(items.map((i) => i.inner));
      items.forEach((item, k) => {
        const r = res[k] ?? { path: item.inner, error: 'file_not_found' as const };
        out[item.index] = { ...r, path: base + r.path };
      });
    }));
    return out;
  }

  /** Where a normalised path lives: a mount and the path inside it, or the default backend. */
  protected route(path: string): Target {
    for (const mount of this.mounts) {
      if (path === mount.base) return { mount, inner: '/' };
      if (path.startsWith(mount.base + '/')) return { mount, inner: path.slice(mount.base.length) };
    }
    return { mount: null, path };
  }

  /** The backend, the prefix to put back (empty for the default backend) and the inner path. */
  private split(path: string): { backend: Backend; base: string; inner: string } {
    const target = this.route(path);
    return target.mount
      ? { backend: target.mount.backend, base: target.mount.base, inner: target.inner }
      : { backend: this.defaultBackend, base: '', inner: path };
  }

  private async single<T extends { error?: string; path?: string }>(
    path: string,
    call: (backend: Backend, inner: string) => Promise<T>,
  ): Promise<T> {
    const p = normalizeVirtualPath(path);
    if (!p.ok) return { error: p.error } as T;
    const target = this.route(p.path);
    if (!target.mount) return call(this.defaultBackend, p.path);
    const { mount, inner } = target;
    const res = await call(mount.backend, inner);
    if (res.error !== undefined) return { ...res, error: outerError(res.error, mount.base, inner) };
    return res.path !== undefined ? { ...res, path: mount.base + res.path } : res;
  }

  /**
   * Mounts strictly below `dir` that the backend owning `dir` would otherwise hide, with their
   * path relative to it (a mount nested in one of those is reached through it).
   */
  private mountsBelow(dir: string): { mount: Mount; rel: string }[] {
    const owner = this.route(dir).mount;
    const out: { mount: Mount; rel: string }[] = [];
    for (const mount of this.mounts) {
      const rel = relativeVirtual(dir, mount.base);
      if (rel !== null && rel !== '' && this.route(parentOf(mount.base)).mount === owner) out.push({ mount, rel });
    }
    return out;
  }

  /** Folder entries that mounts add to the listing of `dir`. */
  private async visibleMountDirs(dir: string): Promise<FileInfo[]> {
    const dirs = new Map<string, FileInfo>();
    await Promise.all(this.mountsBelow(dir).map(async ({ mount, rel }) => {
      if (mount.listInRoot === 'when-not-empty') {
        const res = await mount.backend.ls('/');
        if (res.error !== undefined || (res.entries ?? []).length === 0) return;
      }
      const child = joinVirtual(dir, rel.split('/')[0]!) + '/';
      dirs.set(child, { path: child, isDir: true });
    }));
    return [...dirs.values()];
  }
}

/** A composite whose default backend runs commands: `execute` and `id` are the default backend's. */
export class CompositeShellBackend extends CompositeBackend implements ShellBackend {
  private readonly shell: ShellBackend;

  constructor(defaultBackend: ShellBackend, routes: readonly CompositeRoute[] | (() => readonly CompositeRoute[])) {
    super(defaultBackend, routes);
    this.shell = defaultBackend;
  }

  get id(): string {
    return this.shell.id;
  }

  execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult> {
    return this.shell.execute(command, options);
  }
}

type Routes = readonly CompositeRoute[] | (() => readonly CompositeRoute[]);
export function createComposite(defaultBackend: ShellBackend, routes: Routes): CompositeShellBackend;
export function createComposite(defaultBackend: Backend, routes: Routes): CompositeBackend;
export function createComposite(defaultBackend: Backend, routes: Routes): CompositeBackend {
  return isShellBackend(defaultBackend) ? new CompositeShellBackend(defaultBackend, routes) : new CompositeBackend(defaultBackend, routes);
}

/** Globs to send to a mount `rel` below the search folder; `[undefined]` when there is no filter. */
function patternsFor(glob: string | undefined, rel: string): (string | undefined)[] {
  return glob ? globBelowMount(glob, rel) : [undefined];
}

/**
 * Puts the mount prefix back on the paths an error quotes: the path the backend was
 * called with and its ancestors (e.g. a file blocking a write). edit's "String ..."
 * errors quote the caller's text, which is left alone.
 */
function outerError(error: string, base: string, inner: string): string {
  if (error.startsWith('String ')) return error;
  return error.replace(/'(\/[^']*)'/g, (whole, quoted: string) => {
    if (quoted === '/') return `'${base}'`;
    return quoted === inner || inner.startsWith(quoted + '/') ? `'${base}${quoted}'` : whole;
  });
}
