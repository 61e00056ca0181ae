// Provenance in git for a folder Deepdesk knows (SPEC §24): its new commits noted when a
// session opens on it and, while it stays open, within seconds of each commit (no hook: on this
// computer git's reflog of HEAD is watched; over SSH the folder is looked at every few seconds,
// git running there). Settings › Provenance says whether (a folder's entry over the global one).

import fs from 'node:fs';
import { noteNewCommits, pushNotes, type NoteWriting } from '../../core/checkpoints/provenance/commit-notes';
import { gitEnv, runGit } from '../../core/git/run-git';
import type { Settings } from '../contract';
import { knownAgent } from '../agents/vendors/catalog';
import { provenanceFor } from '../settings/settings-service';

/** How often the reflog of HEAD is looked at (a commit is noted within some 2 s, under SPEC's 5 s). */
const WATCH_MS = 1500;
/** How often a folder on another machine is looked at (two git calls there). */
const REMOTE_WATCH_MS = 3000;

export interface CommitNotesOptions extends Pick<NoteWriting, 'store' | 'folder' | 'env' | 'place' | 'record'> {
  settings: () => Settings['provenance'];
}

/** Notes the folder's new commits now (and pushes them, when chosen), as its settings allow; never throws (provenance never stops work). */
export async function noteFolderCommits(options: CommitNotesOptions): Promise<void> {
  const choices = provenanceFor(options.settings(), options.folder);
  if (!choices.enabled) return;
  const writing = { ...options, toolOf: (agent: string) => knownAgent(agent)?.gitAiTool ?? agent };
  const noted = await noteNewCommits(writing).catch(() => []);
  if (choices.push && noted.length > 0) await pushNotes(writing).catch(() => false);
}

/** Notes now, after each commit while the session is open, and as it closes; `look` notes now (once the look going on ends). */
export function watchCommits(options: CommitNotesOptions): { look(): Promise<void>; close(): Promise<void> } {
  let running: Promise<void> = noteFolderCommits(options);
  // A look asked while one goes: one more after it, for every ask meanwhile.
  let queued: Promise<void> | undefined;
  const look = (): Promise<void> =>
    (queued ??= running = running.then(() => {
      queued = undefined;
      return noteFolderCommits(options);
    }));
  const changed = (): void => void look();
  let reflog: string | undefined;
  let closed = false;
  const polling = options.place ? setInterval(changed, REMOTE_WATCH_MS).unref() : undefined;
  const watching = polling ? Promise.resolve() : runGit(['rev-parse', '--path-format=absolute', '--git-path', 'logs/HEAD'], { cwd: options.folder, env: gitEnv(options.env), timeoutMs: 30_000 }).then((r) => {
    if (closed || r.code !== 0) return;
    reflog = r.stdout.trim();
    fs.watchFile(reflog, { interval: WATCH_MS, persistent: false }, changed);
  });
  return {
    look,
    close: async () => {
      closed = true;
      clearInterval(polling);
      await watching;
      if (reflog !== undefined) fs.unwatchFile(reflog, changed);
      // A commit the session's last step made (or one its watch has not seen yet) is noted before it ends.
      await look();
    },
  };
}
