// Provenance in git for a folder on this computer (SPEC §24): its new commits noted when a
// session opens on it and, while it stays open, within seconds of each commit (git's reflog of
// HEAD is watched: no hook). Settings › Provenance says whether (a folder's entry over the global one).

import fs from 'node:fs';
import { noteNewCommits, pushNotes } from '../../core/checkpoints/provenance/commit-notes';
import type { CheckpointStore } from '../../core/checkpoints/store';
import { gitEnv, runGit } from '../../core/git/run-git';
import type { Settings } from '../contract';
import { knownAgent } from '../agents/vendors/catalog';
import { provenanceFor } from '../settings/settings-service';

/** How often the reflog of HEAD is looked at (a commit is noted within some 2 s, under SPEC's 5 s). */
const WATCH_MS = 1500;

export interface CommitNotesOptions {
  store: CheckpointStore;
  folder: string;
  env: NodeJS.ProcessEnv;
  settings: () => Settings['provenance'];
}

/** Notes the folder's new commits now (and pushes them, when chosen), as its settings allow; never throws (provenance never stops work). */
export async function noteFolderCommits(options: CommitNotesOptions): Promise<void> {
  const choices = provenanceFor(options.settings(), options.folder);
  if (!choices.enabled) return;
  const writing = { store: options.store, folder: options.folder, env: options.env, toolOf: (agent: string) => knownAgent(agent)?.gitAiTool ?? agent };
  const noted = await noteNewCommits(writing).catch(() => []);
  if (choices.push && noted.length > 0) await pushNotes(writing).catch(() => false);
}

/** Notes now and after each commit while the session is open; `close` waits for a note being written. */
export function watchCommits(options: CommitNotesOptions): { close(): Promise<void> } {
  let running: Promise<void> = noteFolderCommits(options);
  let again = false;
  const look = (): void => {
    if (again) return;
    again = true;
    running = running.then(() => {
      again = false;
      return noteFolderCommits(options);
    });
  };
  let reflog: string | undefined;
  let closed = false;
  const watching = runGit(['rev-parse', '--path-format=absolute', '--git-path', 'logs/HEAD'], { cwd: options.folder, env: gitEnv(options.env), timeoutMs: 30_000 }).then((r) => {
    if (closed || r.code !== 0) return;
    reflog = r.stdout.trim();
    fs.watchFile(reflog, { interval: WATCH_MS, persistent: false }, look);
  });
  return {
    close: async () => {
      closed = true;
      await watching;
      if (reflog !== undefined) fs.unwatchFile(reflog, look);
      await running;
    },
  };
}
