// Words the worktree parts of the window share.

/** `1 file`, `3 files`. */
export function fileCount(n: number): string {
  return `${n} file${n === 1 ? '' : 's'}`;
}
