// A sandbox folder's backend: the provider's file tools and commands, and after every step that
// may have changed files, what changed comes back to the worktree (bring-back.ts) before the
// step's result is given — so what came back so far is kept whatever happens to the sandbox
// later. What the layer check refused is said as a local command's is: the `[Sandbox blocked …]`
// line at the end of a command's output, the error of a file tool's change.

import type {
  DeleteResult, EditResult, ExecuteOptions, ExecuteResult, FileDownloadResponse, FileUpload, FileUploadResponse, GlobResult, GrepResult, LinkTarget,
  LsResult, ReadRawResult, ReadResult, ShellBackend, StatResult, WriteResult,
} from '../../core/backends/protocol';
import { normalizeVirtualPath } from '../../core/backends/paths';

export interface BringBackBackendOptions {
  inner: ShellBackend;
  /** The worktree on disk: its path rules (what must always ask) are the sandbox folder's. */
  local: { alwaysAskReason?(path: string): Promise<string | null> };
  /**
   * Holds the sandbox for one call (its bring-back included): the idle clock stands still until
   * the matching release, and a sandbox stopped for idleness is started again first.
   */
  hold: () => Promise<void>;
  release: () => void;
  /** Brings back the whole folder, or only these folder-relative paths; a command's as its step, reviewed as its layer would be. */
  bringBack: (only?: readonly string[], step?: Step) => Promise<{ blockedLine: string | undefined; applied: string[] }>;
  /** `Daytona`: named when a bring-back fails. */
  where: string;
}

type Step = Pick<ExecuteOptions, 'attribution' | 'reviewLayer'>;

export class BringBackBackend implements ShellBackend {
  readonly id: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: BringBackBackendOptions) {
    this.id = options.inner.id;
  }

  /** Waits for the bring-backs under way (a session closing). */
  async settle(): Promise<void> {
    await this.queue.catch(() => undefined);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** One bring-back at a time; a failure is a sentence, never a lost result. */
  private back(only?: readonly string[], step?: Step): Promise<string | undefined> {
    return this.serial(async () => {
      try {
        return (await this.options.bringBack(only, step)).blockedLine;
      } catch (err) {
        return `[Not brought back from ${this.options.where} yet: ${err instanceof Error ? err.message : String(err)}]`;
      }
    });
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    await this.options.hold();
    try {
      return await fn();
    } finally {
      this.options.release();
    }
  }

  execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult> {
    // As a local sandboxed command on its write layer: what it changed reaches the folder only
    // through the checked bring-back, applied as this step's (sandbox/apply-checked-layer.ts).
    // Said before the sandbox is held: a command that fails to start (the sandbox stopped or
    // gone) changed nothing here, and its step must not be taken for one that wrote unseen.
    options?.attribution?.expectLayer();
    return this.call(async () => {
      const result = await this.options.inner.execute(command, options);
      const line = await this.back(undefined, options);
      if (line === undefined) return result;
      const output = result.output.endsWith('\n') || result.output === '' ? `${result.output}${line}` : `${result.output}\n${line}`;
      return { ...result, output, ...(line.startsWith('[Sandbox blocked') ? { sandboxBlocked: line } : {}) };
    });
  }

  /** A change by a file tool comes back at once; a refusal is its error. */
  private async changed<T extends { error?: string }>(paths: readonly string[], result: T): Promise<T> {
    if (result.error !== undefined) return result;
    const rels = paths.map(relOf).filter((r) => r !== '');
    if (rels.length === 0) return result;
    const line = await this.back(rels);
    return line === undefined ? result : { ...result, error: line };
  }

  write(path: string, content: string): Promise<WriteResult> {
    return this.call(async () => this.changed([path], await this.options.inner.write(path, content)));
  }

  edit(path: string, oldString: string, newString: string, replaceAll?: boolean): Promise<EditResult> {
    return this.call(async () => this.changed([path], await this.options.inner.edit(path, oldString, newString, replaceAll)));
  }

  delete(path: string): Promise<DeleteResult> {
    return this.call(async () => this.changed([path], await this.options.inner.delete(path)));
  }

  uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    return this.call(async () => {
      const results = await this.options.inner.uploadFiles(files);
      const done = results.filter((r) => r.error === undefined).map((r) => r.path);
      if (done.length > 0) await this.back(done.map(relOf).filter((r) => r !== ''));
      return results;
    });
  }

  ls(path: string): Promise<LsResult> {
    return this.call(() => this.options.inner.ls(path));
  }
  read(path: string, offset?: number, limit?: number): Promise<ReadResult> {
    return this.call(() => this.options.inner.read(path, offset, limit));
  }
  readRaw(path: string): Promise<ReadRawResult> {
    return this.call(() => this.options.inner.readRaw(path));
  }
  grep(pattern: string, path?: string, glob?: string, maxCount?: number): Promise<GrepResult> {
    return this.call(() => this.options.inner.grep(pattern, path, glob, maxCount));
  }
  glob(pattern: string, path?: string): Promise<GlobResult> {
    return this.call(() => this.options.inner.glob(pattern, path));
  }
  stat(path: string): Promise<StatResult> {
    return this.call(() => this.options.inner.stat(path));
  }
  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return this.call(() => this.options.inner.downloadFiles(paths));
  }
  async linkTarget(path: string): Promise<LinkTarget | null> {
    return this.options.inner.linkTarget ? this.call(() => this.options.inner.linkTarget!(path)) : null;
  }
  /** The same paths always ask as in the folder on this computer: they come back to it. */
  async alwaysAskReason(path: string): Promise<string | null> {
    return this.options.local.alwaysAskReason ? this.options.local.alwaysAskReason(path) : null;
  }
}

/** A virtual path as the folder-relative one bring-back takes ('' for the root or a bad path: the whole folder then). */
function relOf(path: string): string {
  const check = normalizeVirtualPath(path);
  return check.ok ? check.path.slice(1) : '';
}
