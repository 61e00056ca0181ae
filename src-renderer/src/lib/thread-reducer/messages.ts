// What enters the conversation besides the model's answer: the person's messages and their
// queue, the notes the agent was given, what hooks said, and summaries of older messages.

import { splitAttachmentLines, type QueuedMessageDto } from '../../../../src-main/app/contract';
import { num, str } from '../agent-event';
import type { ShownAttachment, ThreadDisplayState } from '../thread-reducer';
import { finishStreaming, push, topLevel, withParent, type EventFamily } from './items';

export const messageEvents = {
  user_message: topLevel((state, event) => {
    const queuedId = str(event.queuedId);
    const { text, attachments } = splitAttachmentLines(str(event.text));
    const next = withUserMessage(state, text, attachments);
    return { ...next, queued: next.queued.filter((q) => q.id !== queuedId) };
  }),
  queued: topLevel((state, event) => ({ ...state, queued: queuedOf(event.queued) })),
  // A note the agent was given (a restore of files): shown where it went into the history.
  note: topLevel((state, event) => {
    const checkpointId = str(event.checkpointId);
    const about = event.kind === 'reviewer' ? { reviewer: true } : { restore: checkpointId !== '' ? { checkpointId } : {} };
    return push(finishStreaming(state, undefined), { kind: 'notice', key: '', text: str(event.text), ...about });
  }),
  hook(state, event, parent) {
    // A hook that failed is told (nothing was blocked); a refused message leaves the conversation (it was not sent).
    if (str(event.outcome) === 'error') return push(state, withParent({ kind: 'notice', key: '', text: str(event.message) }, parent));
    if (str(event.event) === 'UserPromptSubmit' && parent === undefined) {
      const last = state.items.map((item) => item.kind).lastIndexOf('user');
      if (last >= 0) return { ...state, items: state.items.filter((_, i) => i !== last) };
    }
    return state;
  },
  summarized(state, event, parent) {
    const summary = { kind: 'summary', key: '', archivePath: str(event.archivePath), summarizedMessages: num(event.summarizedMessages), text: str(event.summary) } as const;
    return push(finishStreaming(state, parent), withParent(summary, parent));
  },
} satisfies EventFamily;

/** The person's message: every streaming text ends, and what streams next answers it. */
export function withUserMessage(state: ThreadDisplayState, text: string, attachments?: ShownAttachment[]): ThreadDisplayState {
  const next = finishStreaming(state, undefined, true);
  return { ...push(next, { kind: 'user', key: '', text, ...(attachments?.length ? { attachments } : {}) }), textSeen: { ...next.textSeen, '': false } };
}

function queuedOf(value: unknown): QueuedMessageDto[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((q: unknown) => {
    const item = q as { id?: unknown; text?: unknown; createdAt?: unknown };
    return typeof item.id === 'string' && typeof item.text === 'string' ? [{ id: item.id, text: item.text, createdAt: str(item.createdAt) }] : [];
  });
}
