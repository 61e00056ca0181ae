// The window's worktree methods for the app of one folder (SPEC §16, issue 40): one
// WorktreeService on the app's database, made with the app and closed (its git work
// cancelled) with it. The open folder is a worktree when it lies in one the service made;
// `worktrees.create` is asked of the person's folder, the rest of the worktree's own app.

import { basename } from 'node:path';
import type Database from 'better-sqlite3';
import type { z } from 'zod';
import { ContractError, type methods, type Result, type WorktreeMethodName } from '../contract';
import { WorktreeError, WorktreeService, type WorktreeRecord } from './worktree-service';

type WorktreeHandlers = { [M in WorktreeMethodName]: (params: z.output<(typeof methods)[M]['params']>) => Promise<Result<M>> };

export interface WorktreeMethodsOptions {
  /** The open folder (a path, or an `ssh://` URL for a remote one). */
  folder: string;
  remote: boolean;
  dataDir: string;
  db: Database.Database;
  env: NodeJS.ProcessEnv;
  /** Tells the windows of this folder (`worktrees.changed`). */
  changed: () => void;
  /** Notes the open folder's new commits (SPEC §24): `Commit…` is noted before it answers. */
  noteCommits?: () => Promise<void>;
}

export interface WorktreeMethods {
  handlers: WorktreeHandlers;
  /** Cancels the git work under way; the database is the app's to close. */
  close(): void;
}

export function worktreeMethods(options: WorktreeMethodsOptions): WorktreeMethods {
  const service = new WorktreeService({ dataDir: options.dataDir, db: options.db, env: options.env });
  const abort = new AbortController();
  const { signal } = abort;

  const own = (): WorktreeRecord | undefined => (options.remote ? undefined : service.byFolder(options.folder));
  const required = (): WorktreeRecord => {
    const record = own();
    if (record === undefined) throw new ContractError('The open folder is not a worktree.', 'bad_request');
    return record;
  };
  const answer = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      throw forWindow(err);
    }
  };

  const handlers: WorktreeHandlers = {
    'worktrees.info': () =>
      answer(async () => {
        const record = own();
        if (record === undefined) return null;
        const status = await service.status(record.name, signal);
        return {
          name: status.name,
          branch: status.branch,
          baseCommit: status.baseCommit,
          sinceCommit: status.sinceCommit,
          originFolder: record.originFolder,
          originName: basename(record.originFolder),
          path: status.path,
          ahead: status.ahead,
          uncommitted: status.uncommittedFiles,
          files: status.files.map((f) => ({ path: f.path, kind: f.kind, added: f.additions, removed: f.deletions })),
          filesTotal: status.filesTotal,
          counts: status.counts,
          applied: status.applied,
        };
      }),
    'worktrees.canCreate': async ({ count }) => {
      if (options.remote) return { git: false, why: 'Worktrees need a local git repository; this folder is remote.' };
      const record = own();
      if (record !== undefined) return { git: false, why: `This folder is the worktree ${record.name}: make new worktrees from ${record.originFolder}.` };
      try {
        // Quick git questions; counting the changes reads the whole folder.
        await service.baseOf(options.folder, signal);
        if (count === false) return { git: true };
        return { git: true, uncommitted: await service.uncommittedChanges(options.folder, signal) };
      } catch (err) {
        if (err instanceof WorktreeError && err.code !== 'cancelled') return { git: false, why: sentence(err.message) };
        throw forWindow(err);
      }
    },
    'worktrees.create': ({ name, carry }) =>
      answer(async () => {
        if (options.remote) throw new WorktreeError('worktrees need a local git repository; this folder is remote', 'not_git');
        if (own() !== undefined) throw new WorktreeError('this folder is a worktree already: make new worktrees from the folder it was made from', 'failed');
        const wanted = name?.trim();
        const made = await service.create({ folder: options.folder, ...(wanted ? { name: wanted } : {}), carry, signal });
        options.changed();
        return { name: made.name, threadFolder: made.threadFolder, branch: made.branch, carried: made.carried };
      }),
    'worktrees.diff': () => answer(() => service.diff(required().name, signal)),
    'worktrees.apply': () =>
      answer(async () => {
        const result = await service.apply(required().name, signal);
        options.changed();
        return result;
      }),
    'worktrees.mergeFolderIn': () =>
      answer(async () => {
        const result = await service.mergeFolderIn(required().name, signal);
        options.changed();
        return result;
      }),
    'worktrees.commit': ({ message }) =>
      answer(async () => {
        const result = await service.commit(required().name, message, signal);
        await options.noteCommits?.();
        options.changed();
        return result;
      }),
    'worktrees.remove': ({ force }) =>
      answer(async () => {
        const record = required();
        const result = await service.remove(record.name, { force, signal });
        if (result.removed) options.changed();
        return { ...result, originFolder: record.originFolder };
      }),
  };

  return {
    handlers,
    close() {
      abort.abort();
      service.close();
    },
  };
}

/** A WorktreeError in the window's words: a sentence, `bad_request` when it is about the name. */
function forWindow(err: unknown): unknown {
  if (!(err instanceof WorktreeError)) return err;
  return new ContractError(sentence(err.message), err.code === 'bad_name' || err.code === 'taken' ? 'bad_request' : 'failed');
}

function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
