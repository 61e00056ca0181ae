// The default mount table of SPEC §1: the project folder at `/`, long-term memories at
// /memories/ (SPEC §25: the project's and global/), and the thread-scoped folders
// kept in memory and persisted with the thread (/attachments/ holds files the person
// attached that the model does not take as content); with skills, the person's skills
// read-only at /skills/ (SPEC §11); and the mounts the person added (--mount, Settings ›
// Mounts; SPEC §13), each listed in `ls /`. /memories/ may live in PostgreSQL instead.

import type Database from 'better-sqlite3';
import { SkillsBackend } from './skills-backend';
import { SKILLS_MOUNT } from './skills-mount';
import type { Skill } from '../../extensions/skills/types';
import type { Sandbox } from '../../sandbox/types';
import { createComposite, type CompositeRoute } from './composite';
import { FilesystemBackend } from '../filesystem/filesystem';
import { LocalShellBackend } from '../filesystem/local-shell';
import { MEMORIES_NAMESPACE } from '../store/memory-store-api';
import type { MountRoute } from './mount-table';
import type { Backend } from '../protocol';
import { StateBackend, type StateSnapshot } from '../store/state';
import { StoreBackend } from '../store/store';

export const MEMORIES_PREFIX = '/memories/';
export const LARGE_RESULTS_PREFIX = '/large_tool_results/';
export const HISTORY_PREFIX = '/conversation_history/';
export const ATTACHMENTS_PREFIX = '/attachments/';

export interface ThreadFiles {
  largeResults: StateBackend;
  history: StateBackend;
  attachments: StateBackend;
}

/** What a thread stores of its files (attachments came later: older threads have none). */
export interface ThreadFilesSnapshot {
  largeResults: StateSnapshot;
  history: StateSnapshot;
  attachments?: StateSnapshot;
}

export function emptyThreadFiles(): ThreadFiles {
  return { largeResults: new StateBackend(), history: new StateBackend(), attachments: new StateBackend() };
}

export function threadFilesFrom(snapshot: ThreadFilesSnapshot): ThreadFiles {
  return {
    largeResults: StateBackend.fromJSON(snapshot.largeResults),
    history: StateBackend.fromJSON(snapshot.history),
    attachments: StateBackend.fromJSON(snapshot.attachments ?? { files: {} }),
  };
}

export function threadFilesSnapshot(files: ThreadFiles): ThreadFilesSnapshot {
  const snapshot: ThreadFilesSnapshot = { largeResults: files.largeResults.toJSON(), history: files.history.toJSON() };
  if (!files.attachments.isEmpty()) snapshot.attachments = files.attachments.toJSON();
  return snapshot;
}

export interface MountOptions {
  folder: string;
  db: Database.Database;
  /** Run commands (LocalShellBackend) or not (FilesystemBackend). Default true. */
  execute?: boolean;
  threadFiles?: ThreadFiles;
  /** Replaces the folder backend (e.g. the window's shell backend, whose commands it shows). */
  folderBackend?: Backend;
  /** Commands of the default LocalShellBackend run inside it (SPEC §7). */
  sandbox?: Sandbox;
  /** The skills to serve read-only at /skills/<name>/ (read on every call, so the list may change). */
  skills?: () => readonly Skill[];
  /** Mounts added by the person, read on every call when a function (a change applies to the next call). */
  extraMounts?: readonly MountRoute[] | (() => readonly MountRoute[]);
  /** What serves /memories/: a thread's view of its folder's memories (SPEC §25); default (tests): the SQLite store on `db`, ungated. */
  memories?: Backend;
}

export interface Mounts {
  backend: Backend;
  folder: Backend;
  memories: Backend;
  threadFiles: ThreadFiles;
}

export function createDefaultMounts(options: MountOptions): Mounts {
  const folder =
    options.folderBackend ??
    (options.execute === false
      ? new FilesystemBackend({ rootDir: options.folder })
      : new LocalShellBackend({ rootDir: options.folder, ...(options.sandbox ? { sandbox: options.sandbox } : {}) }));
  const memories = options.memories ?? new StoreBackend({ db: options.db, namespace: MEMORIES_NAMESPACE });
  const threadFiles = options.threadFiles ?? emptyThreadFiles();
  const fixed: CompositeRoute[] = [
    { prefix: MEMORIES_PREFIX, backend: memories, listInRoot: 'always' },
    { prefix: LARGE_RESULTS_PREFIX, backend: threadFiles.largeResults, listInRoot: 'when-not-empty' },
    { prefix: HISTORY_PREFIX, backend: threadFiles.history, listInRoot: 'when-not-empty' },
    { prefix: ATTACHMENTS_PREFIX, backend: threadFiles.attachments, listInRoot: 'when-not-empty' },
    ...(options.skills ? [{ prefix: SKILLS_MOUNT, backend: new SkillsBackend(options.skills), listInRoot: 'when-not-empty' as const }] : []),
  ];
  const extra = options.extraMounts;
  const backend = createComposite(folder, typeof extra === 'function' ? withExtra(fixed, extra) : [...fixed, ...asRoutes(extra ?? [])]);
  return { backend, folder, memories, threadFiles };
}

/** The person's mounts show in their parent's listing always (an empty mount is still there). */
function asRoutes(extra: readonly MountRoute[]): CompositeRoute[] {
  return extra.map((m) => ({ prefix: m.prefix, backend: m.backend, listInRoot: 'always' as const }));
}

/** The routes with the extra mounts as they are now: the same array while they are unchanged. */
function withExtra(fixed: readonly CompositeRoute[], extra: () => readonly MountRoute[]): () => readonly CompositeRoute[] {
  let last: { from: readonly MountRoute[]; routes: readonly CompositeRoute[] } | undefined;
  return () => {
    const now = extra();
    if (last?.from !== now) last = { from: now, routes: [...fixed, ...asRoutes(now)] };
    return last.routes;
  };
}
