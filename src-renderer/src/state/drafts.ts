// Which threads' message boxes hold something not sent (text or attached files). The message
// box keeps each thread's draft; `New thread` reads this to know whether the open thread, if
// still empty, is really unused (else it starts another, and the draft stays where it was typed).

const drafted = new Set<string>();

/** Said by the message box whenever the open thread's draft changes. */
export function noteDraft(threadId: string, hasDraft: boolean): void {
  if (hasDraft) drafted.add(threadId);
  else drafted.delete(threadId);
}

export function hasDraft(threadId: string): boolean {
  return drafted.has(threadId);
}
