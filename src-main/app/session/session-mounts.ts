// The mount table and memories of a headless session (`tools`, `memories`): the `--mount`
// flags over Settings' mounts, read live, and `--memories-store` over Settings' store
// (SPEC §13), with the folder's project's memories over it (SPEC §25); nothing here is saved.

import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openMemoriesStore, type OpenedMemories } from '../../core/backends/store/memory-store';
import type { MountSpec } from '../../core/backends/mounts/mount-spec';
import { MountTable } from '../../core/backends/mounts/mount-table';
import type { MemoryBook } from '../../core/memories/memory-book';
import { openMemoryBook } from '../../core/memories/open-memory-book';
import { projectKeyOf } from '../../core/memories/project-key';
import { realpathSync } from 'node:fs';
import { WorktreeStore } from '../worktrees/worktree-store';
import { NO_SECRETS, SettingsService } from '../settings/settings-service';

/** Nothing secret is read here: only settings.json's mounts, memories store and review. */

export interface SessionMountsOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  db: Database.Database;
  /** The session's folder (a local path or an ssh:// URL): its project's memories are at /memories/. */
  folder: string;
  flags: readonly MountSpec[];
  /** `--memories-store`, checked (else Settings' store). */
  memoriesStore: string | undefined;
  /** One line for the person (a saved mount that cannot be mounted, a saved store that cannot be used). */
  say(line: string): void;
}

/** The store behind /memories/ and the folder's memories over it (SPEC §25). */
export type SessionMemories = OpenedMemories & {
  book: MemoryBook;
  /** The project the memories are of (project-key.ts): a repository's main worktree root, a folder's real path, an ssh:// URL. */
  projectKey: string;
};

export interface SessionMounts {
  table: MountTable;
  memories: SessionMemories;
  close(): Promise<void>;
}

/** The mount table (flags over Settings, read live) and the memories of a command's session. */
export async function openSessionMounts(options: SessionMountsOptions): Promise<SessionMounts> {
  const settings = new SettingsService(options.dataDir, NO_SECRETS);
  const table = new MountTable({
    cacheRoot: join(options.dataDir, 'mounts'),
    flags: options.flags,
    saved: () => settings.raw().mounts,
    env: options.env,
    onProblem: options.say,
  });
  const opened = openMemoriesStore(options.memoriesStore ?? settings.raw().memoriesStore, options.db, (why) =>
    options.say(`Settings' memories store cannot be used (${why}); memories are kept in SQLite`),
  );
  const close = async () => {
    try {
      await table.close();
      await opened.store.close();
    } finally {
      settings.close();
    }
  };
  try {
    const projectKey = memoryProjectOf(options.db, options.folder);
    const book = await openMemoryBook({ store: opened.store, db: options.db, projectKey, review: () => settings.raw().memories?.review ?? 'person' });
    return { table, memories: { ...opened, book, projectKey }, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The project a folder's memories belong to (SPEC §25): a Deepdesk worktree's or sandbox's is its person's folder's; a remote folder's is its URL. */
export function memoryProjectOf(db: Database.Database, folder: string): string {
  return projectKeyOf(projectOfWorktree(db, folder) ?? folder);
}

/** The person's folder a worktree (or sandbox) folder was made from, when `folder` is one. */
export function projectOfWorktree(db: Database.Database, folder: string): string | undefined {
  let real = folder;
  try {
    real = realpathSync(folder);
  } catch {
    // Compared as given.
  }
  return new WorktreeStore(db).list().find((record) => record.threadFolder === real || record.path === real)?.originFolder;
}
