// Which threads' message boxes hold something not sent (text or attached files). The message
// box keeps each thread's draft; `New thread` reads this to know whether the open thread, if
// still empty, is really unused (else it starts another, and the draft stays where it was typed).

const drafted = new Set<string>();
/** Who waits for the box's next note, with the thread they wait for. */
let waiting: Array<{ threadId: string; answer: (hasDraft: boolean) => void }> = [];

/** Said by the message box whenever the open thread's draft changes, and when it opens another. */
export function noteDraft(threadId: string, hasDraft: boolean): void {
  if (hasDraft) drafted.add(threadId);
  else drafted.delete(threadId);
  const answered = waiting;
  waiting = [];
  for (const w of answered) w.answer(w.threadId === threadId && hasDraft);
}

/**
 * Whether `threadId` has a draft once the message box shows it (what was typed while no thread
 * was open has then moved there): false if the box shows another thread instead.
 */
export function draftOnceShown(threadId: string): Promise<boolean> {
  return new Promise((answer) => waiting.push({ threadId, answer }));
}

export function hasDraft(threadId: string): boolean {
  return drafted.has(threadId);
}
