// Words the worktree parts of the window share.

import type { ConflictedFileDto } from '../../../src-main/app/contract';

/** `1 file`, `3 files`. */
export function fileCount(n: number): string {
  return `${n} file${n === 1 ? '' : 's'}`;
}

/**
 * The message that asks the thread's agent to resolve what conflicted, once the folder's
 * state is in the worktree (worktrees.mergeFolderIn): the files, which side is which, and
 * what to do. Sent as the person's message, so it shows in the conversation as what was asked.
 */
export function resolveRequest(conflicts: readonly ConflictedFileDto[], originName: string): string {
  const files = conflicts.map((c) => `- ${c.path}${c.notes.length > 0 ? ` (${c.notes.join('; ')})` : ''}`);
  return [
    `Applying this worktree's changes to my folder ${originName} conflicts, so I brought the folder's current state into the worktree.`,
    `These files now hold git's conflict markers: between <<<<<<< and ======= is my folder's version, between ======= and >>>>>>> is yours.`,
    ...files,
    'Resolve each conflict so the file keeps what both versions meant, and remove the markers; for a file deleted on one side, decide whether it stays. Change nothing else. I will apply again when you are done.',
  ].join('\n');
}
