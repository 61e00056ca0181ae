// The line that tells the person where a call really lands when a symlink takes its path
// elsewhere: shown in the approval dialog and in `deepdesk run`'s terminal question.

const VERBS: Record<string, string> = {
  write_file: 'Writes to',
  edit_file: 'Edits',
  delete_file: 'Deletes',
  read_file: 'Reads',
  ls: 'Lists',
  glob: 'Searches',
  grep: 'Searches',
};

/** E.g. `Writes to /.git/config (via symlink /docs/notes.md)`; null without a differing target. */
export function describeLinkTarget(toolName: string, args: Record<string, unknown>, resolvedTarget: string | undefined): string | null {
  if (resolvedTarget === undefined || resolvedTarget === '') return null;
  const named = typeof args.file_path === 'string' ? args.file_path : typeof args.path === 'string' ? args.path : null;
  const verb = Object.hasOwn(VERBS, toolName) ? VERBS[toolName]! : 'Reaches';
  return named === null ? `${verb} ${resolvedTarget}` : `${verb} ${resolvedTarget} (via symlink ${named})`;
}
