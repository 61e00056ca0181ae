// The page's title: the folder, and whether a thread waits for the person's approval (seen
// from another tab or window, where the conversation is not).

export function pageTitle(folderName: string | undefined, waitingForApproval: boolean): string {
  const base = folderName ? `${folderName} — Deepdesk` : 'Deepdesk';
  return waitingForApproval ? `(waiting for approval) ${base}` : base;
}
