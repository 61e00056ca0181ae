// What git reads, in every repository of the folder, to decide what to run or where the
// repository lives: its "surface". Taken before and after each sandboxed command, so that
// nothing the command left there runs later when the person uses git outside the sandbox
// (SPEC §7).
//
// Why both a read-only mount and an after-run check (and not only one):
// - Read-only mounts (bwrap binds, Seatbelt denies) keep what exists in place during the
//   run, so the command sees a clear "Read-only file system" it can report, and the
//   person's git is never exposed mid-run for those files. But a mount needs an existing
//   path: a `commondir`, `config.worktree` or a whole repository that does not exist yet
//   cannot be mounted over without creating it in the person's folder, and `.git` itself
//   must stay writable for normal work (index.lock, refs, objects).
// - So after the run, when the sandbox's pid namespace guarantees none of its processes is
//   left, the folder is walked again for repositories (`.git` folders and files, folders
//   shaped like a git folder, what `commondir` and `gitdir:` point at, `modules/`,
//   `worktrees/`) and every surface file is compared with the snapshot. What changed is put
//   back; what is new must be inert (sample hooks, a config of keys that run nothing, a new
//   repository's pointers), else it is removed or reduced to its inert part. The surface
//   includes what the configs name inside the folder: included config files, the
//   `core.hooksPath` folder (husky) and programs such as `core.fsmonitor`. In a linked
//   worktree (every worktree and sandbox thread's folder) the git folder its `.git` file leads
//   to and the repository's common one lie outside the folder: their configs are read there,
//   never recorded, for what they name inside the worktree, relative to it.
// Paths that were read-only during the run are not checked afterwards: the command could
// not have changed them, so a change there is the person's own.
import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, type Stats } from 'node:fs';
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { BlockedItem } from '../sandbox/blocked';
import { inertPart, isInertConfig, namedFiles } from './config';
import { GIT_CONFIG_NAMES, GIT_OWN_FOLDERS, GIT_POINTER_NAMES, GIT_RUN_FOLDERS, GIT_SHAPE } from './git-reads';
import { isPathInside } from '../fs/path-inside';
import { inParent, lstatAt, replaceAt, unlinkAt } from '../fs/no-follow';
import { realPathOf } from '../fs/real-path';

/** What a path is to git. */
export type SurfaceRole =
  /** config, config.worktree, or a config file one of them includes. */
  | 'config'
  /** A file in `hooks/` or in the `core.hooksPath` folder. */
  | 'hook'
  /** `hooks/`, `info/` or a `core.hooksPath` folder itself. */
  | 'folder'
  /** `.git` files and links, `commondir`, `gitdir`: where the repository is. */
  | 'pointer'
  /** A file in `info/`. */
  | 'info'
  /** A program a config key runs (`core.fsmonitor = ./watch.sh`). */
  | 'program'
  /** `refs/notes`: the notes refs as git resolves them (notesListing); provenance notes are Deepdesk's alone (SPEC §24). */
  | 'notes';

export interface SurfaceFile {
  role: SurfaceRole;
  /** The git folder it belongs to (none for `.git` pointers and what configs name outside git folders). */
  gitDir?: string;
  kind: 'file' | 'link' | 'dir' | 'other';
  mode: number;
  /** A file's content or a link's target; undefined for folders and files over the size kept. */
  content?: Buffer;
  /** sha256 of a file too big to keep whole. */
  digest?: string;
  /** When its inode last changed (content, rename, link): no process can set it back. */
  ctimeMs: number;
}

export interface GitSurface {
  /** Real absolute paths of the git folders in the project folder, with their work trees where known. */
  gitDirs: Map<string, string | undefined>;
  /** Every surface path (absolute) and what it held. */
  entries: Map<string, SurfaceFile>;
  /** The `.git` files and links found, with the folders they stand in. */
  pointers: Map<string, string>;
  /** Pointer (a `.git` file or link, a `commondir`) → the git folder it leads to. */
  targets: Map<string, string>;
}

/** Surface files bigger than this are compared by digest (and removed rather than restored). */
export const MAX_KEPT_BYTES = 1024 * 1024;
/** `modules/` names may nest (`modules/a/b`); deeper than this is not a submodule git makes. */
const MAX_MODULE_DEPTH = 6;

/**
 * What git reads in a git folder, by name (git-reads.ts GIT_READS): the rule table of this
 * walk and of the remote folder's (backends/remote/remote-git-surface.ts), which is generated
 * from it.
 */
export const GIT_DIR_SURFACE: {
  /** Config files (what they include or name is surface too). */
  configs: readonly string[];
  /** Folders whose every entry git may run or read, with their entries' role. */
  folders: ReadonlyArray<readonly [string, SurfaceRole]>;
  /** Files that say where the repository is. */
  pointers: readonly string[];
  /** The pointer to the folder that holds the repository's config and hooks. */
  commondir: string;
  /** Linked worktrees' git folders, one per entry. */
  worktrees: string;
  /** Submodules' git folders, nested up to `maxModuleDepth`. */
  modules: string;
  maxModuleDepth: number;
  /** Names in `modules/` that are a git folder's own, not submodules. */
  notModules: readonly string[];
  /** What a folder holds when git takes it for a git folder: a HEAD file, objects/ and refs/. */
  shape: { file: string; folders: readonly string[] };
} = {
  configs: GIT_CONFIG_NAMES,
  folders: GIT_RUN_FOLDERS.map((name) => [name, name === 'hooks' ? 'hook' : 'info'] as const),
  pointers: GIT_POINTER_NAMES,
  commondir: 'commondir',
  worktrees: 'worktrees',
  modules: 'modules',
  maxModuleDepth: MAX_MODULE_DEPTH,
  notModules: GIT_OWN_FOLDERS,
  shape: GIT_SHAPE,
};
const MAX_INCLUDE_DEPTH = 10;
/** Walk this many folders at once (the work is readdir calls, in libuv's pool). */
const WALK_CONCURRENCY = 16;
/** A walk lets the event loop run after this many folders. */
const YIELD_EVERY_FOLDERS = 256;

/** A name in a folder, and whether it is a folder or a file (a link is neither). */
export interface NameEntry {
  name: string;
  isDirectory(): boolean;
  isFile(): boolean;
}

/**
 * How the surface reads the folder: as it is (`realFs`), or as it would be once a command's
 * write layer were applied (sandbox/layer-view.ts), so that the layer is checked before any
 * of it reaches the folder. Paths are absolute; links are resolved as the folder would
 * resolve them.
 */
export interface SurfaceFs {
  lstat(path: string): Promise<Stats>;
  readFile(path: string): Promise<Buffer>;
  readlink(path: string): Promise<string>;
  readdir(path: string): Promise<NameEntry[]>;
  /** Like realPathOf: links resolved, a missing tail kept as named. */
  realpath(path: string): string;
  /** Whether the folder reads exactly as the real one does (so the walk cache may answer for it). */
  asReal(dir: string): boolean;
}

export const realFs: SurfaceFs = {
  lstat: (path) => lstat(path),
  readFile: (path) => readFile(path),
  readlink: (path) => readlink(path),
  readdir: (path) => readdir(path, { withFileTypes: true }),
  realpath: realPathOf,
  asReal: () => true,
};

/** With `kept`, a file the last walk read is read again only when changed since, or too close before that walk began. */
async function readEntry(path: string, fs: SurfaceFs = realFs, kept?: KeptFiles): Promise<Omit<SurfaceFile, 'role'> | undefined> {
  let st;
  try {
    st = await fs.lstat(path);
  } catch {
    return undefined;
  }
  const known = st.isFile() ? kept?.last?.files.get(path) : undefined;
  if (known !== undefined && settledSame(known.stamp, st, kept!.last!)) return (kept!.now.set(path, known), known.entry);
  const mode = st.mode & 0o7777;
  const ctimeMs = st.ctimeMs;
  if (st.isSymbolicLink()) {
    try {
      return { kind: 'link', mode, ctimeMs, content: Buffer.from(await fs.readlink(path)) };
    } catch {
      return { kind: 'link', mode, ctimeMs };
    }
  }
  if (st.isDirectory()) return { kind: 'dir', mode, ctimeMs };
  if (!st.isFile()) return { kind: 'other', mode, ctimeMs };
  try {
    const data = await fs.readFile(path);
    const entry = data.length > MAX_KEPT_BYTES ? { kind: 'file' as const, mode, ctimeMs, digest: createHash('sha256').update(data).digest('hex') } : { kind: 'file' as const, mode, ctimeMs, content: data };
    kept?.now.set(path, { entry, stamp: stampOf(st) });
    return entry;
  } catch {
    return { kind: 'file', mode, ctimeMs };
  }
}

function sameEntry(a: SurfaceFile, b: SurfaceFile): boolean {
  if (a.kind !== b.kind || a.mode !== b.mode) return false;
  if (a.kind === 'dir') return true;
  if (a.digest !== undefined || b.digest !== undefined) return a.digest === b.digest && a.digest !== undefined;
  if (a.content === undefined || b.content === undefined) return a.content === b.content;
  return a.content.equals(b.content);
}

async function readNames(dir: string, fs: SurfaceFs = realFs): Promise<NameEntry[]> {
  try {
    return await fs.readdir(dir);
  } catch {
    return [];
  }
}

/** What `gitdir: X` in a `.git` file (or a `.git` link) leads to. */
async function pointerTarget(path: string, entry: Omit<SurfaceFile, 'role'>, fs: SurfaceFs = realFs): Promise<string | undefined> {
  if (entry.kind === 'link') return fs.realpath(path);
  const text = entry.content?.toString('utf8');
  const m = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return m?.[1] ? fs.realpath(resolve(dirname(path), m[1])) : undefined;
}

/** A file entry's text, trimmed (a `commondir`'s). */
const textOf = (entry: Omit<SurfaceFile, 'role'> | undefined): string | undefined => (entry?.kind === 'file' ? entry.content?.toString('utf8').trim() : undefined);

/** HEAD, objects/ and refs/: what git takes for a git folder when it stands in it. */
function looksLikeGitDir(names: NameEntry[]): boolean {
  const { shape } = GIT_DIR_SURFACE;
  if (!names.some((d) => d.name === shape.file)) return false;
  const byName = new Map(names.map((d) => [d.name, d]));
  return Boolean(byName.get(shape.file)?.isFile() && shape.folders.every((f) => byName.get(f)?.isDirectory()));
}

/** Where a repository's notes refs are (loose: `refs/notes/NAME`, nested too), and a notes ref's line in packed-refs. */
const NOTES = 'refs/notes';
const PACKED_NOTE = /^([0-9a-f]{40,64}) (refs\/notes\/\S+)$/gm;
/** A notes ref name git reads: no component starting with `.`, no `.lock` (a restore writes at it). */
const isNoteName = (ref: string): boolean => /^refs\/notes(?:\/(?!\.)[^/\s]+)+$/.test(ref) && !ref.endsWith('.lock');
const MAX_REF_DEPTH = 8;

/**
 * A repository's notes refs as git resolves them, `REF VALUE` a line, sorted: a loose ref (its
 * text, or `-> TARGET` for a link) over its packed-refs line, so that packing refs changes nothing.
 */
async function notesListing(gitDir: string, fs: SurfaceFs): Promise<Buffer> {
  const refs = new Map<string, string>();
  const packed = await fs.readFile(join(gitDir, 'packed-refs')).catch(() => undefined);
  for (const [, id, ref] of packed?.toString('utf8').matchAll(PACKED_NOTE) ?? []) refs.set(ref!, id!);
  const loose = async (dir: string, ref: string, depth: number): Promise<void> => {
    for (const child of await readNames(dir, fs)) {
      const [path, name] = [join(dir, child.name), `${ref}/${child.name}`];
      if (!child.isDirectory()) refs.set(name, child.isFile() ? (await fs.readFile(path).catch(() => Buffer.alloc(0))).toString('utf8').trim() : `-> ${await fs.readlink(path).catch(() => '')}`);
      else if (depth < MAX_REF_DEPTH) await loose(path, name, depth + 1);
    }
  };
  await loose(join(gitDir, NOTES), NOTES, 0);
  const lines = [...refs].filter(([ref]) => isNoteName(ref)).map(([ref, value]) => `${ref} ${value}\n`);
  return Buffer.from(lines.sort().join(''));
}

class SurfaceReader {
  readonly surface: GitSurface = { gitDirs: new Map(), entries: new Map(), pointers: new Map(), targets: new Map() };
  /** Every path a config names (includes, hooks folders, programs), whether it exists or not. */
  readonly named = new Set<string>();
  /** Config files read for a work tree (path and work tree): each once, however many ways lead to it. */
  private readonly configsRead = new Set<string>();
  /** Git folders read for a work tree that uses them (folder and work tree): outside the project folder, or met again. */
  private readonly readFor = new Set<string>();
  private kept: KeptFiles | undefined;
  constructor(
    private readonly projectDir: string,
    private readonly home: string,
    private readonly fs: SurfaceFs = realFs,
  ) {}

  private inside(path: string): boolean {
    return isPathInside(this.projectDir, path);
  }

  private async record(path: string, role: SurfaceRole, gitDir?: string): Promise<Omit<SurfaceFile, 'role'> | undefined> {
    if (!this.inside(path) || this.surface.entries.has(path)) return this.surface.entries.get(path);
    const entry = await readEntry(path, this.fs, this.kept);
    if (entry) this.surface.entries.set(path, { ...entry, role, ...(gitDir !== undefined ? { gitDir } : {}) });
    return entry;
  }

  /** A folder whose every entry git may run or read (`hooks/`, `info/`, a hooks path). */
  private async recordFolder(path: string, childRole: SurfaceRole, gitDir?: string): Promise<void> {
    const entry = await this.record(path, 'folder', gitDir);
    if (entry?.kind !== 'dir') return;
    for (const child of await readNames(path, this.fs)) await this.record(join(path, child.name), childRole, gitDir);
  }

  /**
   * A config file: recorded when it lies in the project folder; read all the same when it
   * lies outside (a linked worktree's repository, a file it includes), for what it names in
   * the folder — the command cannot change it there, but what it names here it can.
   */
  private async recordConfig(path: string, gitDir: string | undefined, workTree: string | undefined, depth = 0): Promise<void> {
    const key = `${path}\0${workTree ?? ''}`;
    if (this.configsRead.has(key)) return;
    this.configsRead.add(key);
    const entry = this.inside(path) ? await this.record(path, 'config', gitDir) : await readEntry(path, this.fs);
    if (entry?.kind !== 'file' || entry.content === undefined || depth > MAX_INCLUDE_DEPTH) return;
    const named = namedFiles(entry.content.toString('utf8'), path, workTree, this.home);
    const real = (p: string): string => this.fs.realpath(p);
    for (const path of [...named.includes, ...named.hookFolders, ...named.programs]) this.named.add(real(path));
    for (const include of named.includes) await this.recordConfig(real(include), undefined, workTree, depth + 1);
    for (const folder of named.hookFolders) await this.recordFolder(real(folder), 'hook');
    for (const program of named.programs) await this.record(real(program), 'program');
  }

  /** A git folder: its surface, and the git folders it leads to. */
  async addGitDir(dir: string, workTree: string | undefined): Promise<void> {
    const real = this.fs.realpath(dir);
    if (!this.inside(real)) return this.readOutsideGitDir(real, workTree);
    const table = GIT_DIR_SURFACE;
    if (this.surface.gitDirs.has(real)) {
      // Met again for another work tree (a linked worktree's, or its repository's): what its
      // config and its common folder's name relative to the work tree (a hooks path, a
      // program) are in that one too.
      if (workTree !== undefined) await this.readForWorkTree(real, workTree);
      return;
    }
    this.surface.gitDirs.set(real, workTree);
    for (const name of table.configs) await this.recordConfig(join(real, name), real, workTree);
    for (const [name, role] of table.folders) await this.recordFolder(join(real, name), role, real);
    for (const name of table.pointers) await this.record(join(real, name), 'pointer', real);
    this.surface.entries.set(join(real, NOTES), { role: 'notes', gitDir: real, kind: 'file', mode: 0, ctimeMs: 0, content: await notesListing(real, this.fs) });
    const commonText = textOf(this.surface.entries.get(join(real, table.commondir)));
    if (commonText) {
      this.surface.targets.set(join(real, table.commondir), this.fs.realpath(resolve(real, commonText)));
      await this.addGitDir(resolve(real, commonText), undefined);
      // The common folder's config is this work tree's config too (git reads it from there).
      if (workTree !== undefined) await this.addGitDir(resolve(real, commonText), workTree);
    }
    for (const worktree of await readNames(join(real, table.worktrees), this.fs)) {
      if (worktree.isDirectory()) await this.addGitDir(join(real, table.worktrees, worktree.name), undefined);
    }
    await this.addModules(join(real, table.modules), 0);
  }

  /**
   * A git folder outside the project folder that a work tree in it uses: a linked worktree's
   * (`<repository>/.git/worktrees/NAME`, where its `.git` file leads) and the repository's
   * common folder (its `commondir`), whose `config` is the work tree's config (with the
   * worktree's own `config.worktree`). Nothing there is recorded — the folder's commands
   * cannot write it, and it is the person's — but what those configs name inside the project
   * folder is: a hooks path relative to the work tree (husky's `.husky`), programs, included
   * files. Read as plain files (no git runs); what lies there as a link back into the folder
   * is recorded where it leads.
   */
  private async readOutsideGitDir(real: string, workTree: string | undefined): Promise<void> {
    const key = `${real}\0${workTree ?? ''}`;
    if (this.readFor.has(key)) return;
    this.readFor.add(key);
    const table = GIT_DIR_SURFACE;
    for (const name of table.configs) await this.recordConfig(this.fs.realpath(join(real, name)), undefined, workTree);
    for (const [name, role] of table.folders) {
      const at = this.fs.realpath(join(real, name));
      if (this.inside(at)) await this.recordFolder(at, role);
    }
    const commonText = textOf(await readEntry(join(real, table.commondir), this.fs));
    if (commonText) await this.addGitDir(resolve(real, commonText), workTree);
  }

  /** A git folder of the project folder, walked already, read again for `workTree`: its configs and its common folder's. */
  private async readForWorkTree(real: string, workTree: string): Promise<void> {
    const key = `${real}\0${workTree}`;
    if (this.readFor.has(key)) return;
    this.readFor.add(key);
    for (const name of GIT_DIR_SURFACE.configs) await this.recordConfig(join(real, name), real, workTree);
    const commonText = textOf(this.surface.entries.get(join(real, GIT_DIR_SURFACE.commondir)));
    if (commonText) await this.addGitDir(resolve(real, commonText), workTree);
  }

  private async addModules(dir: string, depth: number): Promise<void> {
    if (depth > GIT_DIR_SURFACE.maxModuleDepth) return;
    const names = await readNames(dir, this.fs);
    if (depth > 0 && looksLikeGitDir(names)) await this.addGitDir(dir, undefined);
    for (const child of names) {
      if (child.isDirectory() && !GIT_DIR_SURFACE.notModules.includes(child.name)) await this.addModules(join(dir, child.name), depth + 1);
    }
  }

  /** A `.git` file or link in `workTree`, and the git folder it leads to. */
  async addPointer(path: string, workTree: string): Promise<void> {
    this.surface.pointers.set(path, workTree);
    const entry = await this.record(path, 'pointer');
    const target = entry ? await pointerTarget(path, entry, this.fs) : undefined;
    if (target === undefined) return;
    this.surface.targets.set(path, target);
    await this.addGitDir(target, workTree);
  }

  /**
   * Every folder of the project, links not followed: `.git` entries and git-shaped folders.
   * With `cache`, a folder whose entries did not change since the last walk is not read
   * again (its own stat says so): the cost is a stat per folder, plus reading what changed.
   */
  async walk(cache?: RepositoryWalkCache): Promise<void> {
    const startedMs = cache ? cache.now() : Date.now();
    // Taken once: another walk of the folder may finish meanwhile and replace it.
    const last = cache?.last;
    if (cache && this.fs === realFs) this.kept = { last, now: new Map() };
    const seen = new Map<string, WalkedFolder>();
    const queue: string[] = [this.projectDir];
    let sinceYield = 0;
    const worker = async (): Promise<void> => {
      for (let dir = queue.pop(); dir !== undefined; dir = queue.pop()) {
        // Unchanged folders are a synchronous stat each: the event loop gets its turn between batches.
        if (++sinceYield >= YIELD_EVERY_FOLDERS) {
          sinceYield = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        // An unchanged folder is taken from the cache without a turn of the event loop (most of a big tree).
        const real = this.fs.asReal(dir);
        const unchanged = real && cache !== undefined ? unchangedFolder(dir, last) : undefined;
        const folder = unchanged === undefined ? await folderIn(dir, real ? realFs : this.fs, real && cache !== undefined) : unchanged || undefined;
        if (!folder) continue;
        seen.set(dir, folder);
        if (folder.shaped) await this.addGitDir(dir, undefined);
        if (folder.dotGit === 'dir') await this.addGitDir(join(dir, '.git'), dir);
        else if (folder.dotGit === 'other') await this.addPointer(join(dir, '.git'), dir);
        for (const path of folder.subfolders) if (!(folder.shaped && path === folder.objects)) queue.push(path);
      }
    };
    // Workers take folders as the walk finds them; one ends when the queue is empty at that moment,
    // so keep starting rounds until a round finds nothing more.
    while (queue.length > 0) await Promise.all(Array.from({ length: Math.min(WALK_CONCURRENCY, queue.length) }, worker));
    // A walk of a layer's view would teach the cache folders the real one does not have.
    if (cache && this.kept) cache.last = { folders: seen, files: this.kept.now, takenAtMs: startedMs };
  }
}

/** What a walk found in one folder: where to go on, and whether git finds a repository there. */
interface WalkedFolder {
  /** Its folders' paths (`.git` not among them). */
  subfolders: string[];
  /** Its `objects` folder's path, not walked in a git-shaped folder. */
  objects: string;
  /** A `.git` folder, a `.git` file or link ('other'), or none. */
  dotGit: 'dir' | 'other' | null;
  /** The folder itself looks like a git folder (HEAD, objects/, refs/). */
  shaped: boolean;
  /** Its stat when it was read (absent when it could not be taken). */
  stat?: Stamp;
}

/** What says a folder's entries or a file's content changed: no process can set a ctime back. */
type Stamp = Pick<Stats, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>;
const stampOf = (st: Stats): Stamp => ({ ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
/** A change this close before a walk started may share its timestamp with a later one (the kernel's clock is coarse, a few ms). */
const RACY_MS = 50;

/** Unchanged since the last walk read it, and settled before that walk began. */
function settledSame(known: Stamp, st: Stats, last: LastWalk): boolean {
  return Math.max(st.mtimeMs, st.ctimeMs) < last.takenAtMs - RACY_MS && known.ino === st.ino && known.size === st.size && known.mtimeMs === st.mtimeMs && known.ctimeMs === st.ctimeMs;
}

/** The files a cached walk of the real folder reads (`now`), and those the last one read. */
type KeptFiles = { last: LastWalk | undefined; now: Map<string, { entry: Omit<SurfaceFile, 'role'>; stamp: Stamp }> };
/** The folders of one project folder as last walked, so the next walk reads only those whose entries changed (and the surface's files only when changed). */
export class RepositoryWalkCache {
  last?: LastWalk;
  /** The clock a walk's start is read from (the tests move it). */
  constructor(readonly now: () => number = Date.now) {}
}

interface LastWalk {
  folders: ReadonlyMap<string, WalkedFolder>;
  files: KeptFiles['now'];
  /** When that walk started. */
  takenAtMs: number;
}

/**
 * The last walk's record of `dir` when its stat shows its entries unchanged since (settled
 * before that walk began), false when it is no folder any more, undefined when it is to be read.
 * Synchronous (a trip through the thread pool takes far longer): an unchanged folder is this stat alone.
 */
function unchangedFolder(dir: string, last: LastWalk | undefined): WalkedFolder | false | undefined {
  const known = last?.folders.get(dir);
  if (known?.stat === undefined) return undefined;
  let st: Stats | undefined;
  try {
    st = lstatSync(dir, { throwIfNoEntry: false });
  } catch {
    return false;
  }
  if (st === undefined || !st.isDirectory()) return false;
  return settledSame(known.stat, st, last!) ? known : undefined;
}

/** A folder as `fs` shows it; with `stamp` (the real folder, for the cache), its stat taken synchronously as unchangedFolder's. */
async function folderIn(dir: string, fs: SurfaceFs, stamp: boolean): Promise<WalkedFolder | undefined> {
  let st: Stats | undefined;
  try {
    st = stamp ? lstatSync(dir) : fs === realFs ? undefined : await fs.lstat(dir);
  } catch {
    return undefined;
  }
  if (st !== undefined && !st.isDirectory()) return undefined;
  return { ...folderOf(dir, await readNames(dir, fs)), ...(stamp && st ? { stat: stampOf(st) } : {}) };
}

function folderOf(dir: string, names: NameEntry[]): WalkedFolder {
  const dotGit = names.find((d) => d.name === '.git');
  return {
    subfolders: names.filter((d) => d.isDirectory() && d.name !== '.git').map((d) => join(dir, d.name)),
    objects: join(dir, 'objects'),
    dotGit: dotGit === undefined ? null : dotGit.isDirectory() ? 'dir' : 'other',
    shaped: basename(dir) !== '.git' && looksLikeGitDir(names),
  };
}

/**
 * The surface of every repository in the project folder. With `cache` (kept per folder by
 * the caller), folders unchanged since the last walk are not read again. With `fs`, the
 * folder as that view shows it (a write layer over it).
 */
export async function snapshotGitSurface(projectDir: string, home: string, cache?: RepositoryWalkCache, fs: SurfaceFs = realFs): Promise<GitSurface> {
  const reader = new SurfaceReader(realPathOf(projectDir), home, fs);
  await reader.walk(cache);
  return reader.surface;
}

/** Paths to keep read-only during a run (existing ones; the rest is checked after it). */
export function surfaceMounts(surface: GitSurface, limit = 2000): { readOnly: string[]; pinned: string[] } {
  const readOnly: string[] = [];
  for (const [path, entry] of surface.entries) {
    if (entry.kind === 'link' || entry.kind === 'other') continue;
    // Folders cover their files (hooks, info); a file of its own otherwise. Notes refs are
    // compared whole (packed-refs too, which every ref change rewrites), never mounted.
    if (entry.role === 'hook' || entry.role === 'info' || entry.role === 'notes') continue;
    readOnly.push(path);
  }
  const pinned = [...surface.gitDirs.keys()].filter((dir) => basename(dir) === '.git');
  return { readOnly: readOnly.slice(0, limit), pinned: pinned.slice(0, limit) };
}

function isInert(path: string, after: SurfaceFile, before: GitSurface, afterSurface: GitSurface): boolean {
  const newRepository = after.gitDir !== undefined && !before.gitDirs.has(after.gitDir);
  switch (after.role) {
    case 'hook':
      // git never runs `*.sample`; every other file there may be a hook or what one sources.
      return after.kind === 'file' && path.endsWith('.sample') && after.gitDir !== undefined;
    case 'config':
      return after.kind === 'file' && after.content !== undefined && isInertConfig(after.content.toString('utf8'));
    case 'folder':
      return after.kind === 'dir';
    case 'info':
    case 'notes':
      return newRepository;
    case 'pointer': {
      // A new repository may point where it likes inside the folder (its target is checked as
      // a repository itself); not outside it (what is there is nobody's to check: another
      // user's /tmp/x on a shared host); an existing one is never moved.
      const target = afterSurface.targets.get(path);
      const leadsIn = target !== undefined && afterSurface.gitDirs.has(target);
      if (after.gitDir !== undefined) return newRepository && (target === undefined || leadsIn);
      return !before.entries.has(path) && leadsIn;
    }
    case 'program':
      return false;
  }
}

async function writeAtomically(path: string, data: Buffer | string, mode: number): Promise<void> {
  const temp = join(dirname(path), `.${basename(path).slice(0, 60)}.deepdesk-tmp-${randomBytes(6).toString('hex')}`);
  await writeFile(temp, data, { mode: 0o600, flag: 'wx' });
  await chmod(temp, mode);
  await rename(temp, path);
}

async function putBack(path: string, entry: SurfaceFile, before: GitSurface): Promise<void> {
  await rm(path, { recursive: true, force: true });
  if (entry.kind === 'dir') {
    await mkdir(path, { mode: entry.mode });
    for (const [child, kept] of before.entries) if (dirname(child) === path) await putBack(child, kept, before);
  } else if (entry.kind === 'link' && entry.content) await symlink(entry.content.toString(), path);
  else if (entry.kind === 'file' && entry.content) await writeAtomically(path, entry.content, entry.mode);
}

/** Why a surface path that is new would change what git runs or where a repository lives. */
function whyNew(entry: SurfaceFile): string {
  switch (entry.role) {
    case 'hook':
      return 'a git hook would run outside the sandbox';
    case 'config':
      return 'settings that run programs';
    case 'pointer':
      return 'it would move a git repository';
    case 'program':
      return 'a program git runs';
    default:
      return 'a protected path';
  }
}

/** A surface path that `after` changed from `before` in a way git would act on. */
export interface SurfaceChange {
  /** Absolute path. */
  path: string;
  now: SurfaceFile;
  was?: SurfaceFile;
  /** It belongs to a repository (or is a path) that existed before. */
  existing: boolean;
  /** What it is to git, for the blocked line. */
  why: string;
  /** A new repository's config: its inert part may stay (inertPart). */
  reducible: boolean;
}

/**
 * What `after` changed in git's surface that is not inert, parents first (nothing below a
 * change is listed: it goes with it). Judged by content alone: an entry that is not as it
 * was is a change whatever its age.
 */
export function surfaceChanges(before: GitSurface, after: GitSurface, skip: (path: string) => boolean = () => false): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  const paths = [...after.entries.keys()].sort((a, b) => a.split(sep).length - b.split(sep).length || (a < b ? -1 : 1));
  for (const path of paths) {
    const now = after.entries.get(path)!;
    if (skip(path) || changes.some((c) => isPathInside(c.path, path))) continue;
    const was = before.entries.get(path);
    if (was && sameEntry(now, was)) continue;
    if (isInert(path, now, before, after)) continue;
    const existing = was !== undefined || (now.gitDir !== undefined && before.gitDirs.has(now.gitDir));
    const reducible = !existing && now.role === 'config' && basename(path) === 'config' && now.gitDir !== undefined && now.kind === 'file' && now.content !== undefined;
    changes.push({ path, now, ...(was ? { was } : {}), existing, why: existing ? 'a protected path' : whyNew(now), reducible });
  }
  return changes;
}

/** The outcome of undoing one change, for the blocked line: done, or "could not undo …". */
function undone(change: SurfaceChange, outcome: string): string {
  return change.existing ? change.why : `${change.why}; ${outcome}`;
}

function couldNotUndo(change: SurfaceChange, err: unknown): string {
  const code = typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : 'EUNKNOWN';
  return `could not undo (${code}): ${change.why}`;
}

/** Undoes one change in the real folder; throws when it could not be (the path is then as the run left it, or gone). */
async function undo(change: SurfaceChange, before: GitSurface): Promise<string> {
  const { path, now, was } = change;
  if (now.role === 'notes') return restoreNotes(change);
  if (was && (was.kind === 'dir' || was.content !== undefined)) {
    await putBack(path, was, before);
    return undone(change, 'put back');
  }
  if (change.reducible && now.content !== undefined) {
    try {
      await writeAtomically(path, inertPart(now.content.toString('utf8')), now.mode);
      return undone(change, 'reset');
    } catch {
      // No room for the reduced copy (a full disk): removing it needs none.
    }
  }
  await rm(path, { recursive: true, force: true });
  // rm with force says nothing when the path is still there (e.g. immutable); look.
  try {
    await lstat(path);
  } catch {
    return undone(change, 'removed');
  }
  throw Object.assign(new Error(`${path} is still there`), { code: 'EPERM' });
}

/** The notes refs as they were: those the run made gone (from packed-refs too), the others loose with their old value; never through a link. */
function restoreNotes(change: SurfaceChange): string {
  const gitDir = change.now.gitDir!;
  const refsOf = (entry?: SurfaceFile) => new Map((textOf(entry) ?? '').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));
  const [was, now] = [refsOf(change.was), refsOf(change.now)];
  const suffix = randomBytes(6).toString('hex');
  const made = [...now.keys()].filter((ref) => !was.has(ref));
  // `refs/notes` made a link: the link goes (what it led to is not the repository's).
  if (lstatAt(gitDir, NOTES)?.isSymbolicLink()) unlinkAt(gitDir, NOTES);
  for (const ref of made) if (lstatAt(gitDir, ref) !== undefined) unlinkAt(gitDir, ref);
  const packed = made.length > 0 && lstatAt(gitDir, 'packed-refs')?.isFile() ? inParent(gitDir, 'packed-refs', {}, (at) => readFileSync(at, 'utf8')) : undefined;
  if (packed !== undefined) replaceAt(gitDir, 'packed-refs', 'f', Buffer.from(packed.split('\n').filter((l) => !made.includes(l.split(' ')[1]!)).join('\n')), 0o644, false, suffix);
  for (const [ref, value] of was) if (now.get(ref) !== value && !value.startsWith('-> ')) replaceAt(gitDir, ref, 'f', Buffer.from(`${value}\n`), 0o644, true, suffix);
  return change.why;
}

/**
 * Where no write layer is available: puts back what the run changed in git's surface and
 * makes what it added inert; says what it undid, and what it could not ("could not undo
 * …"). `untouchable`: paths that were read-only during the run. Nothing is spared for its
 * age: what is git-shaped and not as it was before the run is the run's to undo.
 */
export async function enforceGitSurface(
  projectDir: string,
  before: GitSurface,
  options: {
    home: string;
    untouchable: readonly string[];
    /** The folder's walk cache (snapshotGitSurface). */
    cache?: RepositoryWalkCache;
  },
): Promise<{ items: BlockedItem[]; after: GitSurface }> {
  const root = realPathOf(projectDir);
  const after = await snapshotGitSurface(root, options.home, options.cache);
  const items: BlockedItem[] = [];
  const untouchable = (path: string): boolean => options.untouchable.some((p) => isPathInside(p, path));
  for (const change of surfaceChanges(before, after, untouchable)) {
    let why: string;
    try {
      why = await undo(change, before);
    } catch (err) {
      why = couldNotUndo(change, err);
    }
    items.push({ kind: 'write', path: change.path, why });

  }
  return { items, after };
}

/** One undo after a run, for a folder undone elsewhere (a remote folder): put back what was there, keep only the inert part of a new config, or remove. */
export interface SurfaceRepair {
  path: string;
  action: 'put-back' | 'inert' | 'remove';
  /** What is there now. */
  now: SurfaceFile;
  /** What was there before (put-back). */
  was?: SurfaceFile;
  /** What the blocked line says. */
  item: Extract<BlockedItem, { path: string }>;
}

/** surfaceChanges as the undo steps a remote folder carries out (remote-git-surface.ts). */
export function planSurfaceRepairs(before: GitSurface, after: GitSurface, options: { untouchable: readonly string[] }): SurfaceRepair[] {
  const untouchable = (path: string): boolean => options.untouchable.some((p) => isPathInside(p, path));
  return surfaceChanges(before, after, untouchable).map((change) => ({
    path: change.path,
    action: change.was && (change.was.kind === 'dir' || change.was.content !== undefined) ? 'put-back' : change.reducible ? 'inert' : 'remove',
    now: change.now,
    ...(change.was ? { was: change.was } : {}),
    item: { kind: 'write', path: change.path, why: change.why },
  }));
}

/** Whether `dir` looks like a git folder once `target` (below it) is written: the write that completes one counts too. */
function becomesGitDir(names: NameEntry[], dir: string, target: string): boolean {
  const [child, ...rest] = target.slice(dir.length + 1).split(sep);
  if (!child || !['HEAD', 'objects', 'refs'].includes(child)) return false;
  const has = (name: string, folder: boolean): boolean =>
    (child === name && (rest.length > 0) === folder) || names.some((d) => d.name === name && (folder ? d.isDirectory() : d.isFile()));
  return has('HEAD', false) && has('objects', true) && has('refs', true);
}

/**
 * Why a write to `path` (inside the project folder) would change what git runs or where a
 * repository lives, or null. For the agent's own file tools, which run outside the
 * sandbox: such writes always ask. Looks only at the path's own folders and the
 * repositories they belong to, not the whole folder.
 */
export async function gitSurfaceReason(projectDir: string, path: string, home: string): Promise<string | null> {
  const root = realPathOf(projectDir);
  const target = realPathOf(path);
  if (!isPathInside(root, target) || target === root) return null;
  const reader = new SurfaceReader(root, home);
  for (let dir = dirname(target); isPathInside(root, dir); dir = dirname(dir)) {
    const names = await readNames(dir);
    if (basename(dir) === '.git' || looksLikeGitDir(names) || becomesGitDir(names, dir, target)) return 'it is inside a git folder';
    const dotGit = names.find((d) => d.name === '.git');
    if (dotGit?.isDirectory()) await reader.addGitDir(join(dir, '.git'), dir);
    else if (dotGit) {
      const entry = await readEntry(join(dir, '.git'));
      const gitDir = entry ? await pointerTarget(join(dir, '.git'), entry) : undefined;
      if (gitDir) await reader.addGitDir(gitDir, dir);
    }
    if (dir === root) break;
  }
  if (basename(target) === '.git') return 'it is where git looks for a repository';
  const named = [...reader.named].find((p) => isPathInside(p, target));
  if (named !== undefined) return 'git runs or reads it (a path its config names)';
  for (const [p, entry] of reader.surface.entries) {
    if (isPathInside(p, target) && entry.role !== 'info') return 'git runs or reads it';
  }
  return null;
}
