// The mount table and memories store of a headless session (`run`, `acp`, `tools`): the
// `--mount` flags over Settings' mounts, read live, and `--memories-store` over Settings'
// store (SPEC §13); nothing here is saved.

import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openMemoriesStore, type OpenedMemories } from '../../core/backends/store/memory-store';
import type { MountSpec } from '../../core/backends/mounts/mount-spec';
import { MountTable } from '../../core/backends/mounts/mount-table';
import { NO_SECRETS, SettingsService } from '../settings/settings-service';

/** Nothing secret is read here: only settings.json's mounts and memories store. */

export interface SessionMountsOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  db: Database.Database;
  flags: readonly MountSpec[];
  /** `--memories-store`, checked (else Settings' store). */
  memoriesStore: string | undefined;
  /** One line for the person (a saved mount that cannot be mounted, a saved store that cannot be used). */
  say(line: string): void;
}

export interface SessionMounts {
  table: MountTable;
  memories: OpenedMemories;
  close(): Promise<void>;
}

/** The mount table (flags over Settings, read live) and the memories store of a command's session. */
export function openSessionMounts(options: SessionMountsOptions): SessionMounts {
  const settings = new SettingsService(options.dataDir, NO_SECRETS);
  const table = new MountTable({
    cacheRoot: join(options.dataDir, 'mounts'),
    flags: options.flags,
    saved: () => settings.raw().mounts,
    env: options.env,
    onProblem: options.say,
  });
  const memories = openMemoriesStore(options.memoriesStore ?? settings.raw().memoriesStore, options.db, (why) =>
    options.say(`Settings' memories store cannot be used (${why}); memories are kept in SQLite`),
  );
  return {
    table,
    memories,
    async close() {
      try {
        await table.close();
        await memories.store.close();
      } finally {
        settings.close();
      }
    },
  };
}
