// The file operations the synchronous record stores (StateBackend in memory, StoreBackend in
// SQLite) answer alike, written once over a few primitives: folders are implicit (a path with
// files below it), and results and errors are store-records.ts's. PostgresStoreBackend answers
// the same way with awaits between its queries.

import type {
  DeleteResult, EditResult, FileDownloadResponse, FileInfo, FileUpload, FileUploadResponse, LsResult, ReadRawResult, ReadResult, WriteResult,
} from '../protocol';
import { DEFAULT_READ_LIMIT } from '../protocol';
import { messages } from '../messages';
import { normalizeVirtualPath } from '../paths';
import { keepFileConventions } from '../text';
import { ancestorsOf, editRecord, previousText, readRecord, recordBytes, recordFromBytes, recordMessages, type FileRecord } from './store-records';

export type NewContent = Pick<FileRecord, 'content' | 'encoding' | 'mimeType'>;

export abstract class RecordBackend<F extends Pick<FileRecord, 'content' | 'encoding'>> {
  /** The file at `path`, if there is one. */
  protected abstract file(path: string): F | undefined;
  /** Whether any file lies below the folder `dir`. */
  protected abstract hasBelow(dir: string): boolean;
  /** The folder's immediate children (a folder's path ends with `/`), sorted by path. */
  protected abstract children(dir: string): FileInfo[];
  protected abstract info(path: string, file: F): FileInfo;
  protected abstract record(file: F): FileRecord;
  protected abstract put(path: string, data: NewContent, previous: F | undefined): void;
  protected abstract remove(path: string, file: F): void;

  /** Runs a change (one transaction where the store has them). */
  protected transaction<T>(body: () => T): T {
    return body();
  }

  /** Runs a method's body: what it throws rejects, unless the store says it as an error result. */
  protected async guard<T extends { error?: string }>(body: () => T): Promise<T> {
    return body();
  }

  ls(path: string): Promise<LsResult> {
    return this.guardAt(path, (p) => {
      const file = this.file(p.path);
      if (file) return { entries: [this.info(p.path, file)] };
      const entries = this.children(p.path);
      if (entries.length === 0 && p.path !== '/') return { error: messages.pathNotFound(p.path) };
      return { entries };
    });
  }

  read(path: string, offset = 0, limit = DEFAULT_READ_LIMIT): Promise<ReadResult> {
    return this.guardAt(path, (p) => {
      const file = this.file(p.path);
      if (!file) return { error: this.missingFileError(p.path) };
      return readRecord(p.path, this.record(file), offset, limit);
    });
  }

  readRaw(path: string): Promise<ReadRawResult> {
    return this.guardAt(path, (p) => {
      const file = this.file(p.path);
      if (!file) return { error: this.missingFileError(p.path) };
      return { data: recordBytes(file) };
    });
  }

  write(path: string, content: string): Promise<WriteResult> {
    return this.guardAt(path, (p) =>
      this.transaction((): WriteResult => {
        const blocked = this.writeBlocker(p.path);
        if (blocked) return { error: blocked };
        const previous = this.file(p.path);
        this.put(p.path, { content: keepFileConventions(previousText(previous), content), encoding: 'utf-8' }, previous);
        return { path: p.path };
      }),
    );
  }

  edit(path: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    return this.guardAt(path, (p) =>
      this.transaction((): EditResult => {
        const file = this.file(p.path);
        if (!file) return { error: this.missingFileError(p.path) };
        const outcome = editRecord(p.path, file, oldString, newString, replaceAll);
        if (!outcome.ok) return { error: outcome.error };
        this.put(p.path, { content: outcome.content, encoding: 'utf-8' }, file);
        return { path: p.path, occurrences: outcome.occurrences };
      }),
    );
  }

  delete(path: string): Promise<DeleteResult> {
    return this.guardAt(path, (p) => {
      if (p.path === '/') return { error: recordMessages.deleteRoot };
      return this.transaction((): DeleteResult => {
        const file = this.file(p.path);
        // Folders are implicit, so an existing one always holds files.
        if (!file) return { error: this.hasBelow(p.path) ? recordMessages.folderNotEmpty(p.path) : messages.pathNotFound(p.path) };
        this.remove(p.path, file);
        return { path: p.path };
      });
    });
  }

  /** The whole batch is one transaction (one fsync in SQLite), so bulk imports stay fast. */
  async uploadFiles(files: FileUpload[]): Promise<FileUploadResponse[]> {
    return this.transaction(() => files.map(({ path, content }): FileUploadResponse => {
      const p = normalizeVirtualPath(path);
      if (!p.ok) return { path, error: 'invalid_path' };
      if (this.writeBlocker(p.path)) return { path: p.path, error: this.isFolder(p.path) ? 'is_directory' : 'invalid_path' };
      this.put(p.path, recordFromBytes(p.path, content), this.file(p.path));
      return { path: p.path };
    }));
  }

  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return paths.map((path): FileDownloadResponse => {
      const p = normalizeVirtualPath(path);
      if (!p.ok) return { path, error: 'invalid_path' };
      const file = this.file(p.path);
      if (!file) return { path: p.path, error: this.exists(p.path) ? 'is_directory' : 'file_not_found' };
      return { path: p.path, content: recordBytes(file) };
    });
  }

  /** guard, on the normalised path (a malformed one is the answer's error). */
  protected guardAt<T extends { error?: string }>(path: string, body: (p: { path: string }) => T): Promise<T> {
    return this.guard(() => {
      const p = normalizeVirtualPath(path);
      return p.ok ? body(p) : ({ error: p.error } as T);
    });
  }

  protected isFolder(path: string): boolean {
    return path === '/' || this.hasBelow(path);
  }

  protected exists(path: string): boolean {
    return this.file(path) !== undefined || this.isFolder(path);
  }

  private missingFileError(path: string): string {
    return this.isFolder(path) ? messages.isDirectory(path) : messages.fileNotFound(path);
  }

  /** Why a file cannot be written at `path`, or null. */
  private writeBlocker(path: string): string | null {
    if (this.isFolder(path)) return messages.isDirectory(path);
    for (const dir of ancestorsOf(path)) if (this.file(dir)) return messages.notADirectory(dir);
    return null;
  }
}
