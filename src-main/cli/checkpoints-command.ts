// `deepdesk checkpoints ls --thread ID | diff ID [PATH] | restore ID [--force]` (SPEC §8).
// A restore is told to the thread's agent on its next model request (a note kept with the thread).

import { databasePath, resolveDataDir } from '../app/base/data-dir';
import { ThreadStore } from '../app/threads/thread-store';
import { openDatabase } from '../core/backends/store/store';
import { CheckpointHistory, CheckpointNotFoundError } from '../core/checkpoints/history';
import type { RestoreOutcome } from '../core/checkpoints/restore';
import { restoreNote } from '../core/agent/restore-note';
import { CheckpointStore } from '../core/checkpoints/store';
import type { OpenedFolderBackend } from '../app/places/folder-backend';
import { parseFolderLocation } from '../app/places/folder-location';
import { RemoteBackend } from '../core/backends/remote/remote-backend';
import { isSshFolder } from '../core/backends/remote/ssh-target';
import { recorderFor } from '../core/checkpoints/recorder';
import { remoteFolderSource } from '../core/checkpoints/remote-folder';
import { folderLocation } from './folder-flag';
import { openCommandFolder } from './folders';
import { COMMAND_OPTIONS } from './command-table';
import { parseCommand, UsageError } from './usage';
import { writeContent } from './terminal-output';
import { processIo, type CommandIo } from './command-io';

const OPTIONS = COMMAND_OPTIONS.checkpoints;

export async function checkpointsCommand(argv: string[], io: Pick<CommandIo, 'stdout' | 'stderr'> = processIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, OPTIONS);
  const [action, ...args] = positionals;
  const usage = 'expected one of: checkpoints ls --thread ID | diff ID [PATH] | restore ID [--force]';
  if (action === 'ls') {
    if (values.thread === undefined || values.thread === '') throw new UsageError('checkpoints ls needs --thread ID');
    if (args.length > 0) throw new UsageError(`unexpected arguments: ${args.join(' ')}`);
  } else if (action === 'diff') {
    if (args.length < 1 || args.length > 2) throw new UsageError('checkpoints diff needs a checkpoint id and at most one PATH');
  } else if (action === 'restore') {
    if (args.length !== 1) throw new UsageError('checkpoints restore needs exactly one checkpoint id');
  } else {
    throw new UsageError(usage);
  }
  if (values.force && action !== 'restore') throw new UsageError('--force only applies to checkpoints restore');

  const dataDir = resolveDataDir(values['data-dir']);
  // Checkpoints live in the local data folder, a remote folder's too (SPEC §13): ls and diff
  // read only them; a restore writes into the folder.
  if (values.folder !== undefined) {
    const location = folderLocation(values.folder);
    // A restore writes into the folder: a remote one is checked there first (missing: bad usage, as a local one).
    if (action === 'restore' && location.kind === 'ssh') await (await openCommandFolder(location, { dataDir, execute: false })).close();
  }
  const store = CheckpointStore.open(dataDir);
  const history = new CheckpointHistory(store);
  let remote: OpenedFolderBackend | undefined;
  try {
    // A remote folder's checkpoint is restored over a connection to it (its files are written there).
    const target = action === 'restore' ? store.checkpoint(args[0]!) : undefined;
    if (target !== undefined && isSshFolder(target.folder)) {
      remote = await openCommandFolder(parseFolderLocation(target.folder), { dataDir, execute: false });
      if (!(remote.backend instanceof RemoteBackend)) throw new Error(`${target.folder} did not open as a remote folder`);
      recorderFor(store, remoteFolderSource(remote.backend.connection));
    }
    if (action === 'ls') {
      for (const c of history.list(values.thread!)) io.stdout.write(`${c.id}  ${c.createdAt}  ${c.files} files  ${label(c)}\n`);
      return 0;
    }
    if (action === 'diff') {
      writeContent(io.stdout, history.diff(args[0]!, args[1]));
      return 0;
    }
    const outcome = await history.restoreTo(args[0]!, values.force ? 'take-restore' : 'ask');
    // One `<path>: <reason>` line a conflict. A path through a link or into .git is never
    // restored, --force or not (SPEC §8): listed, left alone, and the exit is 1.
    const refused = outcome.conflicts.filter((c) => c.refused);
    const never = refused.length > 0 ? '; a path through a link or into .git is never restored' : '';
    if (!outcome.applied) {
      io.stdout.write(`${outcome.conflicts.length} conflicts, nothing restored (rerun with --force to restore files changed after the agent's change anyway${never}):\n`);
      for (const c of outcome.conflicts) io.stdout.write(`${c.path}: ${c.reason}\n`);
      io.stderr.write(`deepdesk checkpoints: not restored: ${outcome.conflicts.length} conflicts\n`);
      return 1;
    }
    for (const s of outcome.skipped) io.stderr.write(`not restored: ${s.path} (${s.reason})\n`);
    tellThread(dataDir, history, outcome);
    io.stdout.write(`Restored ${outcome.restored.length} files\n`);
    if (refused.length > 0) {
      io.stdout.write(`${refused.length} conflicts left alone (never restored):\n`);
      for (const c of refused) io.stdout.write(`${c.path}: ${c.reason}\n`);
    }
    if (outcome.checkpoint) io.stdout.write(`(undo with: deepdesk checkpoints restore ${outcome.checkpoint.id})\n`);
    if (refused.length > 0) {
      io.stderr.write(`deepdesk checkpoints: ${refused.length} conflicts left alone\n`);
      return 1;
    }
    return 0;
  } catch (err) {
    if (err instanceof CheckpointNotFoundError) {
      io.stderr.write(`deepdesk checkpoints: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    store.close();
    await remote?.close();
  }
}

/** The thread of the restored checkpoints hears of the restore on its next model request (a note kept with it). */
function tellThread(dataDir: string, history: CheckpointHistory, outcome: RestoreOutcome): void {
  const threadId = outcome.checkpoint?.threadId;
  if (threadId == null) return;
  const note = restoreNote(history, outcome);
  if (note === null) return;
  const db = openDatabase(databasePath(dataDir));
  try {
    const threads = new ThreadStore(db);
    if (threads.exists(threadId)) threads.addNote(threadId, note);
  } finally {
    db.close();
  }
}

function label(c: { kind: string; messageLine: string }): string {
  const line = c.messageLine.replace(/\s+/g, ' ').trim();
  return c.kind === 'restore' ? `(restore) ${line}`.trim() : line;
}
