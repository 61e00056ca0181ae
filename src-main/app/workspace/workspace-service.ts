// The project folder for the window: a live watch (debounced) feeding the file tree,
// listings, file viewing and @-mention search, all through the folder's backend so the
// same path rules apply as for the agent. Nothing here is proportional to the folder's
// size up front: the tree lists folders as they are opened, the watcher subscribes in the
// background, and the @-mention index is built on the first search.

import { join } from 'node:path';
import { ancestorRules, childStack, compileGitignore, hasGitDir, isIgnored, loadGitignore, type GitignoreStack } from '../../core/backends/filesystem/fs-gitignore';
import type { Backend, FileInfo } from '../../core/backends/protocol';
import { isImageMime } from '../../core/backends/text';
import { joinVirtual, normalizeVirtualPath } from '../../core/backends/paths';
import { base64Bytes, MAX_MEDIA_BYTES, mediaTypeOf, type MediaType } from '../../core/media/kinds';
import { ContractError, type FileContent, type FileEntry } from '../contract';
import type { FolderChangeFeed } from './folder-change-feed';
import { FolderWatcher, UNWATCHED_DIRS, type FileChange, type FolderWatcherOptions, type RawChange } from './folder-watcher';
import { ListedFoldersWatcher } from './listed-folders-watcher';
import { PollWatcher } from '../../core/backends/filesystem/poll-watcher';

export type { FileChange } from './folder-watcher';
const DEBOUNCE_MS = 75;
/** How long the folders' own watches overlap the whole-folder subscription once it is up. */
const HAND_OVER_MS = 1_000;
const MAX_VIEW_CHARS = 2_000_000;
const PDF = 'application/pdf';

export interface WorkspaceOptions {
  folder: string;
  backend: Backend;
  /**
   * The folder is not on this disk (a remote folder, SPEC §13): changes are followed by listing
   * the folders the tree opened through the backend (PollWatcher), and .gitignore dimming
   * reads the ignore files through the backend too.
   */
  remote?: {
    pollIntervalMs?: number;
    /** Listing the folder failed (the connection is lost, say): told once until a listing works again. */
    onError?: (message: string) => void;
  };
  onChange: (changes: FileChange[]) => void;
  /** Told every path the watcher reports, and when watching starts, fails or stops (checkpoints' change feed). */
  feed?: FolderChangeFeed;
  /** The whole folder cannot be watched (the system's watch limit, say): only the folders the tree opened are followed. */
  onWatchLimited?: (message: string) => void;
  /** The native subscription (tests make it fail as the watch limit does). */
  subscribe?: FolderWatcherOptions['subscribe'];
}

export class WorkspaceService {
  private watcher: FolderWatcher | null = null;
  /** The folders the tree listed, each watched on its own until the whole-folder watch is up (or for good if it cannot be). */
  private listed: ListedFoldersWatcher | null = null;
  /** Every folder the tree listed ('/' among them), for a ListedFoldersWatcher made later. */
  private readonly opened = new Set<string>(['/']);
  private poller: PollWatcher | null = null;
  private restarting: Promise<void> | null = null;
  private restartAgain = false;
  private pending = new Map<string, FileChange>();
  private timer: NodeJS.Timeout | null = null;
  /** Closes the folders' own watches a moment after the whole-folder subscription is up. */
  private handOver: NodeJS.Timeout | null = null;
  private disposed = false;
  /** Every file path, for @-mention search; dropped when files appear or disappear. */
  private allFiles: Promise<string[]> | null = null;

  constructor(private readonly options: WorkspaceOptions) {}

  /** Starts watching; resolves once changes are being reported (the app does not wait for it). */
  async start(): Promise<void> {
    const { feed, remote } = this.options;
    if (remote !== undefined) {
      this.poller = new PollWatcher({
        backend: this.options.backend,
        ignoredNames: UNWATCHED_DIRS,
        ...(remote.pollIntervalMs !== undefined ? { intervalMs: remote.pollIntervalMs } : {}),
        onChanges: (changes) => {
          for (const change of changes) this.queue(change);
        },
        onError: (message) => remote.onError?.(message),
      });
      this.poller.watch('/');
      this.poller.start();
      return;
    }
    // The subscription walks the folder's folders first (seconds in a big one): meanwhile the
    // root and the folders the tree lists are watched one by one, so what the tree shows is live at once.
    this.followListed();
    this.watcher = new FolderWatcher({
      folder: this.options.folder,
      onChanges: (changes) => this.queueAll(changes),
      ...(feed ? { onPaths: (changes: RawChange[]) => feed.paths(changes) } : {}),
      onError: (err) => {
        feed?.failed();
        process.stderr.write(`deepdesk: watching the folder failed: ${err.message}\n`);
      },
      ...(this.options.subscribe ? { subscribe: this.options.subscribe } : {}),
    });
    try {
      await this.watcher.start();
      feed?.started();
      this.handOverToSubscription();
    } catch (err) {
      // Too many folders for the OS's watch limit, or no native watcher: the folders the tree
      // opens are still followed one by one, the rest is listed when opened.
      const reason = err instanceof Error ? err.message : String(err);
      process.stderr.write(`deepdesk: the file tree follows only the folders it shows: ${reason}\n`);
      this.options.onWatchLimited?.(watchLimitedMessage(reason));
    }
  }

  private followListed(): void {
    if (this.handOver) clearTimeout(this.handOver);
    this.handOver = null;
    if (this.listed || this.disposed) return;
    this.listed = new ListedFoldersWatcher({ folder: this.options.folder, onChanges: (changes) => this.queueAll(changes) });
    for (const dir of this.opened) this.listed.watch(dir);
  }

  private stopFollowingListed(): void {
    if (this.handOver) clearTimeout(this.handOver);
    this.handOver = null;
    this.listed?.close();
    this.listed = null;
  }

  /**
   * The subscription is up, but a change made while it was being set up may be known only to
   * the folders' own watches, still on its way to this process: they stay a moment longer (the
   * same change heard twice is one change to the window).
   */
  private handOverToSubscription(): void {
    if (this.handOver) clearTimeout(this.handOver);
    this.handOver = setTimeout(() => this.stopFollowingListed(), HAND_OVER_MS);
    this.handOver.unref();
  }

  private queueAll(changes: readonly FileChange[]): void {
    for (const change of changes) this.queue(change);
  }

  /**
   * Subscribes the watcher anew (folder-change-feed.ts: a blind spot); requests while one runs
   * make one more after it. The feed is not trusted meanwhile.
   */
  watchAgain(): void {
    if (this.restarting) {
      this.restartAgain = true;
      return;
    }
    const watcher = this.watcher;
    if (!watcher) return;
    this.restarting = (async () => {
      do {
        this.restartAgain = false;
        this.options.feed?.stopped();
        // Between the old subscription and the new one, what the tree shows stays followed.
        this.followListed();
        try {
          await watcher.restart();
          this.options.feed?.started();
          this.handOverToSubscription();
        } catch (err) {
          process.stderr.write(`deepdesk: watching the folder again failed: ${err instanceof Error ? err.message : String(err)}\n`);
        }
      } while (this.restartAgain);
      this.restarting = null;
    })();
  }

  private queue(change: FileChange): void {
    if (this.disposed) return;
    if (change.kind !== 'change') this.allFiles = null;
    const before = this.pending.get(change.path);
    // A file created and then written within one batch is still new to the window.
    const kind = change.kind === 'change' && (before?.kind === 'add' || before?.kind === 'addDir') ? before.kind : change.kind;
    this.pending.set(change.path, { path: change.path, kind });
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const changes = [...this.pending.values()];
      this.pending = new Map();
      this.options.onChange(changes);
    }, DEBOUNCE_MS);
  }

  async list(path: string): Promise<FileEntry[]> {
    const dir = checked(path);
    const result = await this.options.backend.ls(dir);
    if (result.error !== undefined) throw new ContractError(result.error, 'not_found');
    const entries = result.entries ?? [];
    if (this.poller) this.poller.watch(dir, entries);
    this.opened.add(dir);
    this.listed?.watch(dir);
    const ignored = this.poller ? await ignoredEntriesThrough(this.options.backend, dir, entries) : await ignoredEntries(this.options.folder, dir, entries);
    return entries.map((e) => fileEntry(e, ignored.has(e.path)));
  }

  async read(path: string): Promise<FileContent> {
    const p = checked(path);
    const media = mediaTypeOf(p);
    if (media !== null && (media.kind !== 'document' || media.mimeType === PDF)) return this.readMedia(p, media);
    const result = await this.options.backend.read(p, 0, Number.MAX_SAFE_INTEGER);
    if (result.error !== undefined) throw new ContractError(result.error, 'not_found');
    const data = result.fileData!;
    if (data.encoding === 'base64') {
      const mime = data.mimeType ?? 'application/octet-stream';
      if (isImageMime(mime)) return { kind: 'image', path: p, mimeType: mime, data: data.content };
      return { kind: 'binary', path: p, mimeType: mime, size: base64Bytes(data.content) };
    }
    const truncated = data.content.length > MAX_VIEW_CHARS;
    return { kind: 'text', path: p, text: truncated ? data.content.slice(0, MAX_VIEW_CHARS) : data.content, truncated };
  }

  /** A file the viewer shows or plays, whole: its size is looked at before its bytes are read. */
  private async readMedia(p: string, media: MediaType): Promise<FileContent> {
    const { backend } = this.options;
    const stat = await backend.stat(p);
    if (stat.error !== undefined) throw new ContractError(stat.error, 'not_found');
    const size = stat.info?.size ?? 0;
    if (size > MAX_MEDIA_BYTES) return { kind: 'binary', path: p, mimeType: media.mimeType, size, tooLarge: true };
    const raw = await backend.readRaw(p);
    if (raw.error !== undefined) throw new ContractError(raw.error, 'not_found');
    const data = Buffer.from(raw.data ?? new Uint8Array()).toString('base64');
    if (media.kind === 'image') return { kind: 'image', path: p, mimeType: media.mimeType, data };
    return { kind: 'media', path: p, media: media.kind, mimeType: media.mimeType, data };
  }

  /** Paths whose name or path contains the query (for @-mentions), shortest first. */
  async search(query: string, limit = 50): Promise<string[]> {
    const q = query.trim().toLowerCase();
    this.allFiles ??= this.options.backend.glob('*', '/').then((found) => (found.matches ?? []).map((m) => m.path));
    const paths = (await this.allFiles).filter((p) => p.toLowerCase().includes(q));
    return paths.sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).slice(0, limit);
  }

  /** Which of `paths` are files in the folder (a folder, a bad path or one outside it is not). */
  async exists(paths: readonly string[]): Promise<boolean[]> {
    return Promise.all(
      paths.map(async (path) => {
        const p = normalizeVirtualPath(path);
        if (!p.ok) return false;
        const found = await this.options.backend.stat(p.path);
        return found.error === undefined && found.info !== undefined && found.info.isDir !== true;
      }),
    );
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.options.feed?.stopped();
    await this.restarting;
    this.stopFollowingListed();
    await this.watcher?.close();
    await this.poller?.close();
  }

}

/** The notice for a folder that cannot be watched whole; `reason` is the watcher's own error. */
export function watchLimitedMessage(reason: string): string {
  const limit = /ENOSPC|no space left|too many/i.test(reason);
  return limit
    ? 'The file tree follows only the folders you open: this folder has more folders than the system lets Deepdesk watch. Raising fs.inotify.max_user_watches lets it follow all of them.'
    : `The file tree follows only the folders you open: watching the whole folder failed (${reason}).`;
}

function fileEntry(e: FileInfo, ignored: boolean): FileEntry {
  return {
    path: e.path,
    isDir: e.isDir === true,
    ...(e.size !== undefined ? { size: e.size } : {}),
    ...(e.modifiedAt ? { modifiedAt: e.modifiedAt } : {}),
    ...(ignored ? { ignored: true } : {}),
  };
}

/** The entries of virtual folder `dir` that the folder's .gitignore files ignore (and .git itself). */
async function ignoredEntries(root: string, dir: string, entries: readonly FileInfo[]): Promise<Set<string>> {
  const ignored = new Set<string>();
  if (entries.length === 0) return ignored;
  const realDir = join(root, ...dir.split('/').filter(Boolean));
  try {
    const [{ stack }, own, git] = await Promise.all([ancestorRules(root, realDir), loadGitignore(realDir), hasGitDir(realDir)]);
    const rules = childStack(stack, own, git);
    for (const entry of entries) {
      const name = entry.path.replace(/\/$/, '').split('/').pop()!;
      if (name === '.git' || isIgnored(rules, join(realDir, name), entry.isDir === true)) ignored.add(entry.path);
    }
  } catch {
    // Unreadable .gitignore files dim nothing.
  }
  return ignored;
}

/**
 * As ignoredEntries, for a folder that is not on this disk: the .gitignore files (and .git)
 * of the folder's root and each folder down to `dir` are read through the backend, in one
 * batch; virtual paths stand for real ones.
 */
async function ignoredEntriesThrough(backend: Backend, dir: string, entries: readonly FileInfo[]): Promise<Set<string>> {
  const ignored = new Set<string>();
  if (entries.length === 0) return ignored;
  const parts = dir.split('/').filter(Boolean);
  const folders = ['/', ...parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`)];
  const files = await backend.downloadFiles(folders.flatMap((folder) => [joinVirtual(folder, '.gitignore'), joinVirtual(folder, '.git')]));
  let rules: GitignoreStack = [];
  folders.forEach((folder, i) => {
    const own = files[2 * i];
    const git = files[2 * i + 1];
    const hasGit = git?.content !== undefined || git?.error === 'is_directory';
    rules = childStack(rules, own?.content ? compileGitignore(folder, Buffer.from(own.content).toString('utf8')) : null, hasGit);
  });
  const current = folders.at(-1)!;
  for (const entry of entries) {
    const name = entry.path.replace(/\/$/, '').split('/').pop()!;
    if (name === '.git' || isIgnored(rules, joinVirtual(current, name), entry.isDir === true)) ignored.add(entry.path);
  }
  return ignored;
}

function checked(path: string): string {
  const p = normalizeVirtualPath(path);
  if (!p.ok) throw new ContractError(p.error);
  return p.path;
}
