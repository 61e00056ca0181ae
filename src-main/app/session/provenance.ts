// Provenance in git for a folder Deepdesk knows (SPEC §24): its new commits noted when a
// session opens on it and, while it stays open, within seconds of each commit (no hook: on this
// computer git's reflog of HEAD is watched; over SSH the folder is looked at every few seconds,
// git running there). Settings › Provenance says whether (a folder's entry over the global one).

import fs from 'node:fs';
import { noteNewCommits, pushNotes, type NoteWriting } from '../../core/checkpoints/provenance/commit-notes';
import { NOTES_REF } from '../../core/checkpoints/provenance/git-ai-note';
import { noRepositoryAt } from '../../core/git/no-repository';
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

/**
 * Notes the folder's new commits now (and pushes them, when chosen), as its settings allow; never
 * throws (provenance never stops work). True when every commit found is settled (a look while
 * nothing changed in git would find nothing more).
 */
export async function noteFolderCommits(options: CommitNotesOptions): Promise<boolean> {
  const choices = provenanceFor(options.settings(), options.folder);
  if (!choices.enabled) return false;
  const writing = { ...options, toolOf: (agent: string) => knownAgent(agent)?.gitAiTool ?? agent };
  const { noted, settled } = await noteNewCommits(writing).catch(() => ({ noted: [], settled: false }));
  if (choices.push && noted.length > 0) await pushNotes(writing).catch(() => false);
  return settled;
}

/** A file's identity and size as it is now (undefined: absent). */
function fileState(path: string): string | undefined {
  const st = fs.statSync(path, { bigint: true, throwIfNoEntry: false });
  return st === undefined ? undefined : `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/**
 * Notes now, after each commit while the session is open, and as it closes; `look` notes now (once the look going on ends).
 * A look runs no git where git can find no repository, nor when HEAD's reflog and the notes' are
 * as they were before the last look that settled every commit it found (a commit, a reset or a
 * note written since moves them): a run that committed nothing ends without git.
 */
export function watchCommits(options: CommitNotesOptions): { look(): Promise<void>; close(): Promise<void> } {
  const local = options.place === undefined;
  /** HEAD's reflog and the notes' (a local repository's), once git said where they are. */
  let logs: { head: string; notes: string } | undefined;
  /** The reflogs' state before the last look that settled everything. */
  let seen: string | undefined;
  /** `found`: git's answer of where the reflogs are, awaited (the look as the session opens goes beside it). */
  const lookNow = async (found?: Promise<void>): Promise<void> => {
    if (local && noRepositoryAt(options.folder)) return;
    await found;
    const head = logs !== undefined ? fileState(logs.head) : undefined;
    const state = logs !== undefined && head !== undefined ? `${head}|${fileState(logs.notes) ?? 'none'}` : undefined;
    if (state !== undefined && state === seen) return;
    seen = (await noteFolderCommits(options)) ? state : undefined;
  };
  let running: Promise<void> = lookNow();
  let closed = false;
  const polling = options.place ? setInterval(() => changed(), REMOTE_WATCH_MS).unref() : undefined;
  const watching =
    polling || noRepositoryAt(options.folder)
      ? Promise.resolve()
      : runGit(['rev-parse', '--path-format=absolute', '--git-path', 'logs/HEAD', '--git-path', `logs/${NOTES_REF}`], { cwd: options.folder, env: gitEnv(options.env), timeoutMs: 30_000 }).then((r) => {
          const [head, notes] = r.stdout.trim().split('\n');
          if (closed || r.code !== 0 || head === undefined || notes === undefined) return;
          logs = { head, notes };
          fs.watchFile(head, { interval: WATCH_MS, persistent: false }, changed);
        });
  // A look asked while one goes: one more after it, for every ask meanwhile.
  let queued: Promise<void> | undefined;
  const look = (): Promise<void> =>
    (queued ??= running = running.then(() => {
      queued = undefined;
      return lookNow(watching);
    }));
  const changed = (): void => void look();
  return {
    look,
    close: async () => {
      closed = true;
      clearInterval(polling);
      await watching;
      if (logs !== undefined) fs.unwatchFile(logs.head, changed);
      // A commit the session's last step made (or one its watch has not seen yet) is noted before it ends.
      await look();
    },
  };
}
