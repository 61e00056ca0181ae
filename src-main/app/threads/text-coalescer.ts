// A window's stream of a thread's events, its text deltas gathered: a model streaming 2,000
// tokens a second was 2,000 messages a second to the window, each a task for its page. The
// first delta goes at once (the first token is not delayed); the ones after it within a
// window of time are joined into one event, sent when that window ends or before any other
// event of the thread, so the order of events is kept. Only text of the same source (the top
// level, or one subagent's `task` call) is joined.

import type { AgentEvent } from '../../core/agent/types';

type TextEvent = Extract<AgentEvent, { type: 'text' }>;

interface Gathering {
  timer: NodeJS.Timeout;
  held?: TextEvent;
}

export class TextCoalescer {
  private readonly gathering = new Map<string, Gathering>();

  constructor(
    private readonly windowMs: number,
    /** Sends one event of the thread on (numbered by the caller as it is sent). */
    private readonly send: (threadId: string, event: AgentEvent) => void,
  ) {}

  push(threadId: string, event: AgentEvent): void {
    const open = this.gathering.get(threadId);
    if (event.type !== 'text') {
      this.flush(threadId);
      this.send(threadId, event);
      return;
    }
    if (open === undefined) {
      this.send(threadId, event);
      this.open(threadId);
      return;
    }
    if (open.held !== undefined && open.held.parentToolCallId === event.parentToolCallId) {
      open.held = { ...open.held, text: open.held.text + event.text };
      return;
    }
    if (open.held !== undefined) this.send(threadId, open.held);
    open.held = event;
  }

  /** Sends what is held for the thread now (before its latest number is read for a snapshot). */
  flush(threadId: string): void {
    const open = this.gathering.get(threadId);
    if (open?.held === undefined) return;
    const held = open.held;
    open.held = undefined;
    this.send(threadId, held);
  }

  /** Drops what is kept of a thread being forgotten. */
  forget(threadId: string): void {
    const open = this.gathering.get(threadId);
    if (open) clearTimeout(open.timer);
    this.gathering.delete(threadId);
  }

  private open(threadId: string): void {
    const timer = setTimeout(() => {
      const open = this.gathering.get(threadId);
      if (open === undefined) return;
      if (open.held === undefined) {
        // Nothing came meanwhile: the next delta goes at once again.
        this.gathering.delete(threadId);
        return;
      }
      this.flush(threadId);
      this.open(threadId);
    }, this.windowMs);
    timer.unref();
    this.gathering.set(threadId, { ...(this.gathering.get(threadId) ?? {}), timer });
  }
}
