// `--mount /PREFIX/=SPEC` (run, serve, tools, acp) and `--memories-store` (every command):
// bad values are bad usage (exit 2) with the reason; the flags add to Settings' mounts and
// store for this session only (a flag wins at its prefix), never saved (SPEC §5, §13).

import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openMemoriesStore, type OpenedMemories } from '../core/backends/store/memory-store';
import { memoriesStoreTextError } from '../core/backends/store/memories-store-text';
import { MountSpecError, type MountSpec } from '../core/backends/mounts/mount-spec';
import { localMountProblem, MountTable, parseMountFlags } from '../core/backends/mounts/mount-table';
import type { SecretStore } from '../app/secret-store';
import { SettingsService } from '../app/settings/settings-service';
import { UsageError } from './usage';

/** The `--mount` flags, parsed and checked (a local folder must be there); throws UsageError. */
export function mountFlags(flags: readonly string[] | undefined, cwd: string = process.cwd()): MountSpec[] {
  let specs: MountSpec[];
  try {
    specs = parseMountFlags(flags ?? [], cwd);
  } catch (err) {
    if (err instanceof MountSpecError) throw new UsageError(err.message);
    throw err;
  }
  for (const spec of specs) {
    const problem = localMountProblem(spec);
    if (problem !== null) throw new UsageError(`--mount ${spec.text}: ${problem}`);
  }
  return specs;
}

/** `--memories-store` checked before anything opens; throws UsageError. */
export function memoriesStoreFlag(flag: string | undefined): string | undefined {
  if (flag === undefined) return undefined;
  const problem = memoriesStoreTextError(flag);
  if (problem !== null) throw new UsageError(`--memories-store: ${problem}`);
  return flag.trim();
}

/** Nothing secret is read here: only settings.json's mounts and memories store. */
const NO_SECRETS: SecretStore = { get: async () => undefined, set: async () => undefined, delete: async () => undefined };

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
  const settings = new SettingsService(options.dataDir, NO_SECRETS, options.env);
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
