// Notes for the model: news the agent must hear on its next request that no tool told it,
// e.g. that the person restored files (the history still shows the reverted writes as done).
// A note waits with the thread (in SQLite, so it survives a restart) until it is put into
// the history, once, as a user-role message marked as a note; the window shows it as a notice.

import type { ChatMessage, MessageNote } from '../models/types';

/** A note waiting to be delivered. */
export interface PendingNote extends MessageNote {
  /** What the model reads. */
  text: string;
  createdAt: string;
}

export type NoteMessage = Extract<ChatMessage, { role: 'user' }> & { note: MessageNote };

export function isNote(message: ChatMessage): message is NoteMessage {
  return message.role === 'user' && message.note !== undefined;
}

/** A message the person sent (a user-role message that is not a note). */
export function isPersonMessage(message: ChatMessage): boolean {
  return message.role === 'user' && message.note === undefined;
}

/** Index of the person's latest message, or -1. */
export function latestPersonMessage(messages: readonly ChatMessage[]): number {
  return messages.findLastIndex(isPersonMessage);
}

export function noteMessage(note: PendingNote): NoteMessage {
  const meta: MessageNote = { id: note.id, kind: note.kind, display: note.display, ...(note.checkpointId !== undefined ? { checkpointId: note.checkpointId } : {}) };
  return { role: 'user', content: note.text, note: meta };
}

/**
 * Appends the notes not yet in `messages` (each note goes in once, whoever delivers it)
 * and returns the ones appended.
 */
export function appendNotes(messages: ChatMessage[], notes: readonly PendingNote[]): PendingNote[] {
  if (notes.length === 0) return [];
  const have = new Set(messages.flatMap((m) => (isNote(m) ? [m.note.id] : [])));
  const fresh = notes.filter((n) => !have.has(n.id));
  for (const note of fresh) messages.push(noteMessage(note));
  return fresh;
}
