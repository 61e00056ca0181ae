// The page's title: the folder, and how many threads need the person, across folders (seen
// from another tab or window, or the taskbar, where the conversation is not).

/** `(1 needs you) `, `(2 need you) `, or nothing. */
export function needYouPrefix(count: number): string {
  if (!(count > 0)) return '';
  return count === 1 ? '(1 needs you) ' : `(${count} need you) `;
}

export function pageTitle(folderName: string | undefined, needYou: number): string {
  return `${needYouPrefix(needYou)}${folderName ? `${folderName} — Deepdesk` : 'Deepdesk'}`;
}

/** The title while no folder is open (the `Open folder` screen). */
export function openFolderTitle(needYou: number): string {
  return `${needYouPrefix(needYou)}Open a folder — Deepdesk`;
}
