// A git remote mounted into the virtual tree (SPEC §13), the counterpart of Deep Agents'
// ContextHubBackend. The remote is cloned lazily (a partial clone: no old file contents)
// into `<cacheRoot>/<hash>/`: `git/` is the repository, `tree/` its work tree, kept apart
// so the work tree holds no `.git` the agent could reach. File operations are a
// FilesystemBackend on the work tree (same formats, confinement and .gitignore handling).
//
// Fetch policy: before an operation, when this mount has no change waiting to be pushed
// and the last fetch is `refreshIntervalMs` old (default 5 s), it fetches the branch and
// moves the work tree to it, so another agent's pushes are seen within a step or two. A
// fetch that fails leaves the copy as it was (reads go on from it); only the first clone
// failing is an error.
//
// Writes, edits, deletes and uploads are recorded until commitStep(), which makes one
// commit of them and pushes it. A rejected push fetches, resets the work tree to the
// remote, replays the recorded changes and pushes again (3 retries). A change that no
// longer applies (an edit whose old text is gone) is left out and reported; the step's
// other changes still commit, so each tool call's result says what happened to it. A push
// that fails for another reason (remote unreachable) keeps the local commit; the next
// commitStep pushes it again.
//
// Author: the person's git identity (user.name/user.email) when their config has one,
// else `Deepdesk <deepdesk@localhost>`; the `deepdesk:` subject marks the agent's commits.

import fs from 'node:fs';
import path from 'node:path';
import { FilesystemBackend } from '../filesystem/filesystem';
import { claimCacheDir, cacheKey, ReadWriteLock, type CacheClaim } from './git-mount-cache';
import { commitMessage, currentOperationTag, replayOperation, shownPath, type FailedOperation, type MountOperation } from './git-mount-ops';
import { gitEnv, gitFailure, runGit, type GitRunResult } from '../../git/run-git';
import { checkGitUrl, redactText } from './git-url';
import { normalizeVirtualPath } from '../paths';
import type {
  Backend, DeleteResult, EditResult, FileDownloadResponse, FileUpload, FileUploadResponse, GlobResult, GrepResult,
  LinkTarget, LsResult, ReadRawResult, ReadResult, StatResult, WriteResult,
} from '../protocol';

export { withMountOperationTag } from './git-mount-ops';

export interface GitMountOptions {
  url: string;
  branch?: string;
  /** `<data-dir>/mounts`: never inside the project folder. */
  cacheRoot: string;
  env?: NodeJS.ProcessEnv;
  /** The mount's prefix (e.g. `/docs/`), so commit messages and errors show the agent's paths. */
  prefix?: string;
  /** How old the last fetch may be before an operation fetches again (default 5000 ms). */
  refreshIntervalMs?: number;
}

export interface CommitStepResult {
  committed: boolean;
  commit?: string;
  /** Set when nothing reached the remote (unreachable, rejected 4 times): the changes stay in the local copy. */
  error?: string;
  /** Changes that no longer applied on the remote's newer commits and are in no commit. */
  failed?: FailedOperation[];
}

export interface MountCommit {
  commit: string;
  author: string;
  date: string;
  subject: string;
}

const LOCAL_TIMEOUT_MS = 60_000;
const CLONE_TIMEOUT_MS = 600_000;
const PUSH_RETRIES = 3;
const FAILED_FETCH_BACKOFF_MS = 30_000;
const FALLBACK_IDENTITY = { name: 'Deepdesk', email: 'deepdesk@localhost' };

interface Step {
  ops: MountOperation[];
}

export class GitMountBackend implements Backend {
  /** The URL without credentials, for messages. */
  readonly label: string;
  readonly url: string;
  private readonly urlError: string | undefined;
  private readonly options: GitMountOptions;
  private readonly env: NodeJS.ProcessEnv;
  private readonly refreshMs: number;
  /** Deadline of one network call of git (the first clone gets 10 minutes). */
  private readonly networkMs = 120_000;
  private readonly lock = new ReadWriteLock();
  private claim: CacheClaim | undefined;
  private gitDir = '';
  private workTree = '';
  private branch = '';
  private files: FilesystemBackend | undefined;
  private opening: Promise<string | null> | undefined;
  private refreshing: Promise<void> | undefined;
  private nextFetchAt = 0;
  private pending: MountOperation[] = [];
  /** Committed locally, not yet on the remote. */
  private unpushed: Step[] = [];
  private identity: Promise<NodeJS.ProcessEnv> | undefined;
  private closed = false;
  /** Whether the clone is partial (no old file contents); off when the server cannot serve one. */
  private partial = true;

  constructor(options: GitMountOptions) {
    this.options = options;
    const checked = checkGitUrl(options.url);
    this.url = checked.ok ? checked.url : options.url;
    this.label = checked.ok ? checked.label : options.url.replace(/\/\/[^@/]*@/, '//');
    this.urlError = checked.ok ? undefined : checked.error;
    this.env = gitEnv(options.env ?? process.env);
    this.refreshMs = options.refreshIntervalMs ?? 5_000;
  }

  /** The branch mounted (known once the remote was reached). */
  get branchName(): string | undefined {
    return this.branch === '' ? undefined : this.branch;
  }

  /** The work tree on disk (after the first operation), for tests and tools that show it. */
  get workTreeDir(): string | undefined {
    return this.files ? this.workTree : undefined;
  }

  // ---- Backend protocol -------------------------------------------------------------

  async ls(p: string): Promise<LsResult> {
    return this.reading(p, (f) => f.ls(p));
  }

  async read(p: string, offset?: number, limit?: number): Promise<ReadResult> {
    return this.reading(p, (f) => f.read(p, offset, limit));
  }

  async readRaw(p: string): Promise<ReadRawResult> {
    return this.reading(p, (f) => f.readRaw(p));
  }

  async stat(p: string): Promise<StatResult> {
    return this.reading(p, (f) => f.stat(p));
  }

  async grep(pattern: string, p = '/', glob?: string, maxCount?: number): Promise<GrepResult> {
    return this.reading(p, (f) => f.grep(pattern, p, glob, maxCount));
  }

  async glob(pattern: string, p = '/'): Promise<GlobResult> {
    return this.reading(p, (f) => f.glob(pattern, p));
  }

  async linkTarget(p: string): Promise<LinkTarget | null> {
    if (gitDirError(p) !== null || !this.files) return null;
    return this.files.linkTarget(p);
  }

  /** A change inside `.git` is refused (the same text as the change); nothing is cloned to say so. */
  changeRefusal(p: string): string | undefined {
    return gitDirError(p) ?? undefined;
  }

  async write(p: string, content: string): Promise<WriteResult> {
    return this.changing(p, async (f) => {
      const res = await f.write(p, content);
      if (res.error === undefined) this.record({ tool: 'write_file', path: res.path ?? p, content });
      return res;
    });
  }

  async edit(p: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    return this.changing(p, async (f) => {
      const res = await f.edit(p, oldString, newString, replaceAll);
      if (res.error === undefined) this.record({ tool: 'edit_file', path: res.path ?? p, oldString, newString, replaceAll });
      return res;
    });
  }

  async delete(p: string): Promise<DeleteResult> {
    return this.changing(p, async (f) => {
      const res = await f.delete(p);
      if (res.error === undefined) this.record({ tool: 'delete', path: res.path ?? p });
      return res;
    });
  }

  async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    const refused = files.find((file) => gitDirError(file.path) !== null);
    const ready = refused ? null : await this.ready();
    if (ready === null || 'error' in ready) return files.map((file) => ({ path: file.path, error: refused ? 'invalid_path' : 'permission_denied' }));
    return this.lock.shared(async () => {
      const out = await ready.uploadFiles(files);
      out.forEach((res, i) => {
        if (res.error === undefined) this.record({ tool: 'upload_files', path: res.path, content: files[i]!.content });
      });
      return out;
    });
  }

  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    const ready = await this.ready();
    if ('error' in ready) return paths.map((p) => ({ path: p, error: 'file_not_found' }));
    return this.lock.shared(async () => {
      const allowed = paths.filter((p) => gitDirError(p) === null);
      const got = await ready.downloadFiles(allowed);
      return paths.map((p) => (gitDirError(p) !== null ? { path: p, error: 'invalid_path' as const } : got.shift()!));
    });
  }

  // ---- Steps ------------------------------------------------------------------------

  /** Whether changes wait for commitStep() (optionally only those made under `tag`). */
  hasPending(tag?: string): boolean {
    return tag === undefined ? this.pending.length > 0 : this.pending.some((op) => op.tag === tag);
  }

  /**
   * Commits the changes made since the last step as ONE commit and pushes it (see the top
   * of this file for rejected pushes and partial failures). With `tags` (one step's call
   * ids, in the step's order), only the changes those calls made, in that order: another
   * thread's step on the same mount keeps its own changes for its own commit. Nothing
   * pending and nothing left unpushed: { committed: false }.
   */
  async commitStep(signal?: AbortSignal, tags?: readonly string[]): Promise<CommitStepResult> {
    if (!this.files || (this.pending.length === 0 && this.unpushed.length === 0)) return { committed: false };
    return this.lock.exclusive(async () => {
      const ops = tags === undefined ? this.pending : tags.flatMap((tag) => this.pending.filter((op) => op.tag === tag));
      this.pending = tags === undefined ? [] : this.pending.filter((op) => op.tag === undefined || !tags.includes(op.tag));
      if (ops.length > 0) {
        const made = await this.commitOps(ops, signal);
        if ('error' in made) {
          // Not even a local commit: the changes stay pending for the next step.
          this.pending = [...ops, ...this.pending];
          return { committed: false, error: made.error };
        }
        if (made.committed) this.unpushed.push({ ops });
      }
      if (this.unpushed.length === 0) return { committed: false };
      return this.pushWithReplay(signal);
    });
  }

  /** The mount's commits, newest first (the local copy, fetched when due). */
  async history(limit = 50): Promise<MountCommit[]> {
    const ready = await this.ready();
    if ('error' in ready) return [];
    return this.lock.shared(async () => {
      const res = await this.git(['log', `-n${Math.max(1, Math.floor(limit))}`, '--format=%H%x1f%an <%ae>%x1f%aI%x1f%s', 'HEAD', '--']);
      if (res.code !== 0) return [];
      return res.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const [commit = '', author = '', date = '', subject = ''] = line.split('\x1f');
          return { commit, author, date, subject };
        });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.lock.exclusive(async () => {
      this.claim?.release();
    });
  }

  // ---- Internals --------------------------------------------------------------------

  private async reading<T extends { error?: string }>(p: string, fn: (f: FilesystemBackend) => Promise<T>): Promise<T> {
    const refused = gitDirError(p);
    if (refused !== null) return { error: refused } as T;
    const ready = await this.ready();
    if ('error' in ready) return { error: ready.error } as T;
    return this.lock.shared(() => fn(ready));
  }

  private changing<T extends { error?: string }>(p: string, fn: (f: FilesystemBackend) => Promise<T>): Promise<T> {
    return this.reading(p, fn);
  }

  private record(op: MountOperation): void {
    const tag = currentOperationTag();
    this.pending.push(tag === undefined ? op : { ...op, tag });
  }

  /** The work tree's backend once the clone is there (and fetched when due), or why not. */
  private async ready(): Promise<FilesystemBackend | { error: string }> {
    if (this.closed) return { error: `git mount ${this.label} is closed` };
    if (this.urlError !== undefined) return { error: this.urlError };
    if (!this.files) {
      this.opening ??= this.open().finally(() => (this.opening = undefined));
      const failed = await this.opening;
      if (failed !== null) return { error: failed };
    }
    await this.refreshIfDue();
    return this.files!;
  }

  private async refreshIfDue(): Promise<void> {
    const due = () => this.pending.length === 0 && this.unpushed.length === 0 && Date.now() >= this.nextFetchAt;
    if (!due()) return;
    this.refreshing ??= this.lock
      .exclusive(async () => {
        if (!due()) return;
        const fetched = await this.fetch();
        this.nextFetchAt = Date.now() + (fetched === null ? this.refreshMs : Math.max(this.refreshMs, FAILED_FETCH_BACKOFF_MS));
        // A change may have been recorded while the fetch ran.
        if (fetched === null && this.pending.length === 0 && this.unpushed.length === 0) await this.resetToRemote(false);
      })
      .finally(() => (this.refreshing = undefined));
    await this.refreshing;
  }

  private git(args: readonly string[], options: { timeoutMs?: number; signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {}): Promise<GitRunResult> {
    return runGit(args, {
      gitDir: this.gitDir,
      workTree: this.workTree,
      env: options.env ?? this.env,
      timeoutMs: options.timeoutMs ?? LOCAL_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  private failure(what: string, res: GitRunResult, timeoutMs = LOCAL_TIMEOUT_MS): string {
    return redactText(`${what}: ${gitFailure(res, timeoutMs)}`, this.url);
  }

  /** Null when the clone is ready, else an error naming the remote. */
  private async open(): Promise<string | null> {
    try {
      this.claim ??= claimCacheDir(this.options.cacheRoot, cacheKey(this.url, this.options.branch));
    } catch (err) {
      return `git mount ${this.label}: ${(err as Error).message}`;
    }
    const dir = this.claim.dir;
    this.gitDir = path.join(dir, 'git');
    this.workTree = path.join(dir, 'tree');
    const marker = path.join(this.gitDir, 'deepdesk-branch');
    if (fs.existsSync(marker)) {
      this.branch = fs.readFileSync(marker, 'utf8').trim();
      this.partial = (await this.git(['config', '--get', 'remote.origin.partialclonefilter'])).code === 0;
      fs.mkdirSync(this.workTree, { recursive: true });
      this.files = new FilesystemBackend({ rootDir: this.workTree });
      // Whatever a previous process left unpushed is dropped: the remote is the truth.
      await this.resetToRemote(true);
      return null;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(this.workTree, { recursive: true, mode: 0o700 });
    const failed = await this.cloneInto();
    if (failed !== null) {
      fs.rmSync(dir, { recursive: true, force: true });
      return failed;
    }
    fs.writeFileSync(marker, `${this.branch}\n`);
    this.files = new FilesystemBackend({ rootDir: this.workTree });
    this.nextFetchAt = Date.now() + this.refreshMs;
    return null;
  }

  /** A partial clone (`--filter=blob:none`) of the one branch, done step by step so an empty remote and a new branch work alike. */
  private async cloneInto(): Promise<string | null> {
    const init = await runGit(['init', '-q', '--bare', this.gitDir], { env: this.env, timeoutMs: LOCAL_TIMEOUT_MS, cwd: path.dirname(this.gitDir) });
    if (init.code !== 0) return this.failure(`git mount ${this.label}: could not create its local copy`, init);
    for (const [key, value] of [
      ['core.bare', 'false'],
      ['remote.origin.url', this.url],
      ['remote.origin.promisor', 'true'],
      ['remote.origin.partialclonefilter', 'blob:none'],
      ['gc.auto', '0'],
    ] as const) {
      const set = await this.git(['config', key, value]);
      if (set.code !== 0) return this.failure(`git mount ${this.label}: could not configure its local copy`, set);
    }
    const wanted = this.options.branch;
    const probe = await this.git(['ls-remote', '--symref', 'origin', 'HEAD', ...(wanted ? [`refs/heads/${wanted}`] : [])], { timeoutMs: this.networkMs });
    if (probe.code !== 0) return this.failure(`git remote ${this.label} is unreachable`, probe, this.networkMs);
    const lines = probe.stdout.split('\n');
    const symref = lines.map((l) => /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(l)?.[1]).find((b) => b !== undefined);
    this.branch = wanted ?? symref ?? (await this.defaultBranchName());
    const exists = wanted
      ? lines.some((l) => l.endsWith(`\trefs/heads/${wanted}`))
      : lines.some((l) => /^[0-9a-f]{40,64}\tHEAD$/.test(l));
    const refspec = `+refs/heads/${this.branch}:refs/remotes/origin/${this.branch}`;
    const setFetch = await this.git(['config', 'remote.origin.fetch', refspec]);
    if (setFetch.code !== 0) return this.failure(`git mount ${this.label}: could not configure its local copy`, setFetch);
    const head = await this.git(['symbolic-ref', 'HEAD', `refs/heads/${this.branch}`]);
    if (head.code !== 0) return this.failure(`git mount ${this.label}: branch '${this.branch}' cannot be used`, head);
    if (!exists) return null; // Empty remote or new branch: the first commit creates it.
    const fetched = await this.fetch(CLONE_TIMEOUT_MS);
    if (fetched !== null) return fetched;
    const checkoutArgs = ['checkout', '-q', '-f', '--no-track', '-B', this.branch, `refs/remotes/origin/${this.branch}`];
    let checkout = await this.git(checkoutArgs, { timeoutMs: CLONE_TIMEOUT_MS });
    if (checkout.code !== 0) {
      // A server that filtered the clone but will not hand out single files afterwards (an
      // old protocol without allowAnySHA1InWant): take a whole clone instead.
      this.partial = false;
      await this.git(['config', 'remote.origin.promisor', 'false']);
      await this.git(['config', '--unset', 'remote.origin.partialclonefilter']);
      const refetched = await this.fetch(CLONE_TIMEOUT_MS, undefined, true);
      if (refetched !== null) return refetched;
      checkout = await this.git(checkoutArgs, { timeoutMs: CLONE_TIMEOUT_MS });
    }
    if (checkout.code !== 0) return this.failure(`git remote ${this.label}: could not check out '${this.branch}'`, checkout, CLONE_TIMEOUT_MS);
    return null;
  }

  private async defaultBranchName(): Promise<string> {
    const res = await this.git(['config', '--get', 'init.defaultBranch']);
    const name = res.code === 0 ? res.stdout.trim() : '';
    return name !== '' ? name : 'main';
  }

  /** Fetches the branch into refs/remotes/origin/<branch>: null, or an error naming the remote. */
  private async fetch(timeoutMs = this.networkMs, signal?: AbortSignal, refetch = false): Promise<string | null> {
    const res = await this.git(
      [
        'fetch', '-q', '--no-tags', '--no-write-fetch-head', ...(this.partial ? ['--filter=blob:none'] : []), ...(refetch ? ['--refetch'] : []),
        'origin', `+refs/heads/${this.branch}:refs/remotes/origin/${this.branch}`,
      ],
      { timeoutMs, ...(signal ? { signal } : {}) },
    );
    if (res.code === 0) return null;
    if (/couldn't find remote ref/i.test(res.stderr)) {
      // The branch is not (or no longer) on the remote.
      await this.git(['update-ref', '-d', `refs/remotes/origin/${this.branch}`]);
      return null;
    }
    return this.failure(`git remote ${this.label} is unreachable`, res, timeoutMs);
  }

  private async revParse(ref: string): Promise<string | null> {
    const res = await this.git(['rev-parse', '-q', '--verify', `${ref}^{commit}`]);
    return res.code === 0 ? res.stdout.trim() : null;
  }

  /** Makes the branch, index and work tree what the remote has (nothing when there is nothing). */
  private async resetToRemote(force: boolean): Promise<void> {
    const remote = await this.revParse(`refs/remotes/origin/${this.branch}`);
    const local = await this.revParse('HEAD');
    if (!force && remote === local) return;
    if (remote !== null) {
      await this.git(['reset', '-q', '--hard', remote], { timeoutMs: this.networkMs });
    } else {
      if (local !== null) await this.git(['update-ref', '-d', `refs/heads/${this.branch}`]);
      await this.git(['read-tree', '--empty']);
    }
    await this.git(['clean', '-q', '-ffdx']);
  }

  private identityEnv(): Promise<NodeJS.ProcessEnv> {
    this.identity ??= (async () => {
      const [name, email] = await Promise.all([this.git(['config', '--get', 'user.name']), this.git(['config', '--get', 'user.email'])]);
      if (name.code === 0 && email.code === 0 && name.stdout.trim() !== '' && email.stdout.trim() !== '') return this.env;
      return {
        ...this.env,
        GIT_AUTHOR_NAME: FALLBACK_IDENTITY.name,
        GIT_AUTHOR_EMAIL: FALLBACK_IDENTITY.email,
        GIT_COMMITTER_NAME: FALLBACK_IDENTITY.name,
        GIT_COMMITTER_EMAIL: FALLBACK_IDENTITY.email,
      };
    })();
    return this.identity;
  }

  /** Stages the work tree (the recorded paths even when .gitignore'd) and commits. */
  private async commitOps(ops: readonly MountOperation[], signal?: AbortSignal): Promise<{ committed: boolean } | { error: string }> {
    const addAll = await this.git(['add', '-A'], { ...(signal ? { signal } : {}) });
    if (addAll.code !== 0) return { error: this.failure(`git mount ${this.label}: could not stage the changes`, addAll) };
    const written = [...new Set(ops.filter((op) => op.tool !== 'delete').map((op) => op.path.replace(/^\/+/, '')))].filter((rel) =>
      fs.existsSync(path.join(this.workTree, rel)),
    );
    if (written.length > 0) {
      const force = await this.git(['add', '-f', '--', ...written], { env: { ...this.env, GIT_LITERAL_PATHSPECS: '1' } });
      if (force.code !== 0) return { error: this.failure(`git mount ${this.label}: could not stage the changes`, force) };
    }
    const diff = await this.git(['diff', '--cached', '--quiet']);
    if (diff.code === 0) return { committed: false };
    const commit = await this.git(['commit', '-q', '--no-verify', '-m', commitMessage(ops, this.options.prefix)], {
      env: await this.identityEnv(),
      ...(signal ? { signal } : {}),
    });
    if (commit.code !== 0) return { error: this.failure(`git mount ${this.label}: could not commit`, commit) };
    return { committed: true };
  }

  private async pushWithReplay(signal?: AbortSignal): Promise<CommitStepResult> {
    const failed: FailedOperation[] = [];
    for (let attempt = 0; ; attempt++) {
      const res = await this.git(['push', '--porcelain', 'origin', `HEAD:refs/heads/${this.branch}`], { timeoutMs: this.networkMs, ...(signal ? { signal } : {}) });
      if (res.code === 0) {
        const head = (await this.revParse('HEAD')) ?? undefined;
        if (head !== undefined) await this.git(['update-ref', `refs/remotes/origin/${this.branch}`, head]);
        this.unpushed = [];
        this.nextFetchAt = Date.now() + this.refreshMs;
        return { committed: true, ...(head !== undefined ? { commit: head } : {}), ...(failed.length > 0 ? { failed } : {}) };
      }
      const rejected = /\[rejected\]|non-fast-forward|fetch first/.test(res.stdout + res.stderr) && !/\[remote rejected\]/.test(res.stdout + res.stderr);
      if (!rejected) return { committed: false, error: `${this.failure(`could not push to ${this.label}`, res, this.networkMs)}; the change is kept in the local copy and pushed with the next step`, ...(failed.length > 0 ? { failed } : {}) };
      if (attempt >= PUSH_RETRIES) {
        return { committed: false, error: `the push to ${this.label} was rejected ${attempt + 1} times (the remote kept moving on); the change is kept in the local copy and tried again with the next step`, ...(failed.length > 0 ? { failed } : {}) };
      }
      const fetched = await this.fetch(this.networkMs, signal);
      if (fetched !== null) return { committed: false, error: `${fetched}; the change is kept in the local copy and pushed with the next step` };
      const replayed = await this.replayOnRemote(signal);
      failed.push(...replayed.failed);
      if (replayed.error !== undefined) return { committed: false, error: replayed.error, failed };
      if (this.unpushed.length === 0) return { committed: false, ...(failed.length > 0 ? { failed } : {}) };
    }
  }

  /** Resets to the remote's branch and makes each unpushed step's commit again on top of it. */
  private async replayOnRemote(signal?: AbortSignal): Promise<{ failed: FailedOperation[]; error?: string }> {
    const files = this.files!;
    await this.resetToRemote(true);
    const failed: FailedOperation[] = [];
    const steps = this.unpushed;
    this.unpushed = [];
    for (const step of steps) {
      const kept: MountOperation[] = [];
      for (const op of step.ops) {
        const error = await replayOperation(files, op);
        if (error === null) kept.push(op);
        else failed.push({ tool: op.tool, path: shownPath(this.options.prefix, op.path), ...(op.tag !== undefined ? { tag: op.tag } : {}), error: `${op.tool} ${shownPath(this.options.prefix, op.path)} was not committed (${this.label} changed meanwhile): ${error}` });
      }
      if (kept.length === 0) continue;
      const made = await this.commitOps(kept, signal);
      if ('error' in made) return { failed, error: made.error };
      if (made.committed) this.unpushed.push({ ops: kept });
    }
    return { failed };
  }
}

/** Refuses any path through git's own folder (`.git`, in any letter case). */
function gitDirError(p: string): string | null {
  const checked = normalizeVirtualPath(p);
  if (!checked.ok) return null; // The file backend gives its own error.
  return checked.path.split('/').some((segment) => segment.toLowerCase() === '.git')
    ? `'${checked.path}' is inside a .git folder, which a git mount never reads or writes`
    : null;
}
