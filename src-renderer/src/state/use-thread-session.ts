// The open thread: its display state (threads.get, then live 'thread.event's folded by the
// thread reducer), its pending approvals, and sending, stopping and switching.

import type { GoalDraft } from '../../../src-main/app/contract';
import { startTransition, useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { parseSlash, type ApprovalDecisionDto, type PendingApproval, type Result } from '../../../src-main/app/contract';
import type { DecidedPreview } from '../components/conversation-context';
import type { RawAgentEvent } from '../lib/agent-event';
import { shownAttachment, type PendingFile } from '../lib/pending-files';
import { emptyThreadState, threadReducer, type ThreadDisplayState } from '../lib/thread-reducer';
import { errorMessage, useToasts } from './toasts';
import { useApi } from './use-api';
import { useSettings } from './settings-context';
import { useConnection, useEvent } from './transport-context';
import { approvalKey } from '../lib/approval-key';
import { editedAfter } from '../lib/approval-edit';
import { TransportError } from '../transport/errors';

/** A failure whose fix is in Settings (no model, no API key): the error offers `Open settings`. */
function needsSettings(err: unknown): boolean {
  return err instanceof TransportError && err.code === 'needs_settings';
}

export interface ThreadSession {
  threadId: string | null;
  state: ThreadDisplayState;
  /** Pending approvals of this thread, oldest first. */
  approvals: PendingApproval[];
  loading: boolean;
  select(threadId: string | null): void;
  /** Opens `threadId` unless a thread was opened meanwhile (e.g. a message sent while it was being made). */
  selectIfNone(threadId: string): void;
  /** Makes a new thread; while one is being made, that one (a message sent then goes to it, not to a second). */
  createThread(): Promise<{ id: string } | undefined>;
  /** Sends a message, creating a thread first when none is open. */
  send(text: string, attachments?: readonly PendingFile[]): Promise<boolean>;
  stop(): Promise<void>;
  decide(approval: PendingApproval, decision: ApprovalDecisionDto): Promise<boolean>;
  /** Withdraws a message queued during the run. */
  cancelQueued(queuedId: string): Promise<void>;
  /** Interrupts the current step and delivers this queued message at once. */
  sendQueuedNow(queuedId: string): Promise<void>;
  /** Runs the thread again after a failed run. */
  retry(): Promise<void>;
  /** The diffs approvals showed, kept for the cards after the decision. */
  decidedPreviews: ReadonlyMap<string, DecidedPreview>;
  /** Takes the running flag from a fresh thread list (a run can end without a 'done' event). */
  syncRunning(running: boolean): void;
  /** Loads the items before the loaded ones (state.page.cursor > 0); one load at a time. */
  loadEarlier(): Promise<void>;
  loadingEarlier: boolean;
  /** One tool call of the open thread in full (a loaded page cut its output or arguments). */
  fullToolCall(index: number, toolCallId: string, parentToolCallId?: string): Promise<Result<'threads.toolCall'>>;
  /** The bytes of an attachment of the person's message at `index` in the open thread. */
  attachment(index: number, name: string): Promise<Result<'threads.attachment'>>;
  /** `/goal`'s draft waiting for the person (SPEC §21): edited and accepted, or dismissed. */
  goalDraft: GoalDraft | null;
  acceptGoal(draft: GoalDraft): Promise<boolean>;
  dismissGoal(): void;
}

const DECISION_STATUS = { approve: 'approved', edit: 'edited', reject: 'rejected', respond: 'responded' } as const;

function oldestFirst(approvals: PendingApproval[]): PendingApproval[] {
  return [...approvals].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

export function useThreadSession(): ThreadSession {
  const api = useApi();
  const { push } = useToasts();
  const { reconnects } = useConnection();
  const [threadId, setThreadId] = useState<string | null>(null);
  const [state, dispatch] = useReducer(threadReducer, emptyThreadState());
  const [approvals, setApprovals] = useState<PendingApproval[]>([]);
  const [loading, setLoading] = useState(false);
  const [decidedPreviews, setDecidedPreviews] = useState<ReadonlyMap<string, DecidedPreview>>(new Map());
  /** Counts rewrites of the open thread's history (a conversation rewound or put back): each loads it again. */
  const [rewrites, setRewrites] = useState(0);
  const [goalDraft, setGoalDraft] = useState<{ threadId: string; draft: GoalDraft } | null>(null);
  /** Live events that arrive while threads.get loads, with their seq: they apply on top of it. */
  const buffer = useRef<Array<{ seq: number; event: RawAgentEvent }> | null>(null);
  /** The thread whose load has ended: until then a message waits (its snapshot would replace the message shown). */
  const loadedThread = useRef<string | null>(null);
  /** A first message for a thread that was just created; sent once that thread has loaded. */
  const firstMessage = useRef<{ threadId: string; text: string; files: readonly PendingFile[] } | null>(null);
  const current = useRef<string | null>(null);
  current.current = threadId;
  /** While a send is in flight the thread list may not know about the run yet. */
  const sending = useRef(0);

  const runningRef = useRef(false);
  runningRef.current = state.running;
  const pageRef = useRef(state.page);
  pageRef.current = state.page;
  const [loadingEarlier, setLoadingEarlier] = useState(false);
  const earlierInFlight = useRef(false);
  const sendNow = useCallback(
    async (id: string, text: string, files: readonly PendingFile[] = []) => {
      // While a run is going the message is queued: the queue shows it, not the conversation.
      // A slash command is carried out by the app (or becomes the message it stands for).
      const command = parseSlash(text) !== null;
      const optimistic = !runningRef.current && !command;
      const shown = files.map(shownAttachment);
      if (optimistic) dispatch({ type: 'local_user', text, attachments: shown });
      sending.current++;
      try {
        const attachments = files.map(({ name, mimeType, data }) => ({ name, mimeType, data }));
        const result = await api.call('threads.send', { threadId: id, text, ...(attachments.length > 0 ? { attachments } : {}) });
        if (current.current === id) dispatch({ type: 'sent' });
        if (result.note !== undefined) push(result.note, 'info');
        // Kept with its thread: a first message's thread may become the open one only after this answer.
        if (result.goalDraft !== undefined) setGoalDraft({ threadId: id, draft: result.goalDraft });
        if (result.threadId !== undefined) {
          setThreadId(result.threadId);
          return true;
        }
        // A skill's or a prompt's command went to the model: it shows as the person sent it.
        // (`/goal` is no message: its draft waits for the person, and nothing runs meanwhile.)
        if (command && result.note === undefined && result.queuedId === undefined && result.goalDraft === undefined && current.current === id) dispatch({ type: 'local_user', text, attachments: shown });
        if (current.current === id && !command) {
          if (result.queuedId !== undefined && optimistic) dispatch({ type: 'unlocal_user', text });
          // The run ended just before the send arrived: it started a run on this message.
          if (result.queuedId === undefined && !optimistic) dispatch({ type: 'local_user', text, attachments: shown });
        }
        return true;
      } catch (err) {
        if (current.current === id) {
          dispatch({ type: 'local_error', message: `Could not send: ${errorMessage(err)}`, settings: needsSettings(err) });
          dispatch({ type: 'set_running', running: false });
        }
        return false;
      } finally {
        sending.current--;
      }
    },
    [api, push],
  );

  const frameQueue = useRef<RawAgentEvent[]>([]);
  const loadedSeq = useRef(0);
  const frame = useRef<number | null>(null);
  /** The thread whose opening was told to the host: a load again after a reconnect or a rewind is no opening. */
  const opened = useRef<string | null>(null);
  useEffect(() => {
    dispatch({ type: 'reset', threadId });
    loadedThread.current = null;
    frameQueue.current = [];
    setApprovals([]);
    if (threadId === null) {
      opened.current = null;
      return undefined;
    }
    let cancelled = false;
    buffer.current = [];
    setLoading(true);
    // Only the person's opening marks the thread seen (it then leaves the Agents view once
    // finished); a reload while it stays open must not hide a finish that came meanwhile.
    const opening = opened.current !== threadId;
    opened.current = threadId;
    api
      .call('threads.get', opening ? { threadId } : { threadId, refresh: true })
      .then((view) => {
        if (cancelled) return;
        loadedSeq.current = view.eventSeq;
        // A page is up to 150 rows: as a transition React renders them in slices between frames.
        startTransition(() => {
          dispatch({ type: 'load', view });
          setApprovals(oldestFirst(view.approvals));
          // The thread's draft waiting for the person shows whenever the thread opens, not only from the reply that brought it.
          const draft = view.goalDraft;
          setGoalDraft((held) => (draft !== undefined ? { threadId, draft } : held?.threadId === threadId ? null : held));
        });
      })
      .catch((err: unknown) => {
        if (!cancelled) push(`Could not open the thread: ${errorMessage(err)}`);
      })
      .finally(() => {
        if (cancelled) return;
        // Events the snapshot already reflects (seq ≤ its eventSeq) must not apply twice.
        startTransition(() => {
          for (const { seq, event } of buffer.current ?? []) if (seq > loadedSeq.current) dispatch({ type: 'event', event });
          setLoading(false);
        });
        buffer.current = null;
        loadedThread.current = threadId;
        const pending = firstMessage.current;
        if (pending && pending.threadId === threadId) {
          firstMessage.current = null;
          void sendNow(threadId, pending.text, pending.files);
        }
      });
    return () => {
      cancelled = true;
      buffer.current = null;
    };
  }, [api, push, threadId, reconnects, sendNow, rewrites]);

  // Live events are applied once per animation frame: a fast stream of text deltas then
  // costs one render a frame instead of one per delta. Transitions, as the page they apply
  // to: an urgent update would restart a page's render in progress each frame.
  useEffect(
    () => () => {
      if (frame.current !== null) cancelAnimationFrame(frame.current);
    },
    [],
  );
  useEvent('thread.event', ({ threadId: id, seq, event }) => {
    if (id !== current.current) return;
    const raw = event as RawAgentEvent;
    // The history was rewritten (rewound or put back): load it again; what follows applies on top.
    if (raw.type === 'rewound') {
      setRewrites((n) => n + 1);
      return;
    }
    if (buffer.current) {
      buffer.current.push({ seq, event: raw });
      return;
    }
    frameQueue.current.push(raw);
    frame.current ??= requestAnimationFrame(() => {
      frame.current = null;
      const events = frameQueue.current;
      frameQueue.current = [];
      startTransition(() => dispatch({ type: 'events', events }));
    });
  });

  const refreshApprovals = useCallback(
    async (id: string) => {
      try {
        const view = await api.call('threads.get', { threadId: id, refresh: true });
        if (current.current !== id) return;
        setApprovals(oldestFirst(view.approvals));
        dispatch({ type: 'set_running', running: view.thread.running });
      } catch {
        // The thread may have been deleted meanwhile; the list refresh will show it.
      }
    },
    [api],
  );

  // A price set in Settings reaches the calls that were made without one: the open thread's costs are read again.
  const { settings } = useSettings();
  const prices = JSON.stringify(settings?.prices ?? {});
  const pricesRead = useRef(prices);
  useEffect(() => {
    if (pricesRead.current === prices) return;
    pricesRead.current = prices;
    const id = current.current;
    if (id === null) return;
    api.call('threads.get', { threadId: id, refresh: true }).then(
      (view) => {
        if (current.current === id) dispatch({ type: 'costs', usage: view.usage, lastRun: view.lastRun });
      },
      () => {
        // The thread may have been deleted meanwhile; its costs are read again when it opens.
      },
    );
  }, [api, prices]);

  useEvent('approvals.changed', ({ threadId: id }) => {
    if (id === current.current) void refreshApprovals(id);
  });

  const creating = useRef<Promise<{ id: string } | undefined> | null>(null);
  // The thread just made stays the one to give until it is open: its answer comes a render
  // before the open thread is known, and a message sent in between goes to it, not to another.
  useEffect(() => {
    if (threadId !== null) creating.current = null;
  }, [threadId]);
  const createThread = useCallback(() => {
    creating.current ??= api.safe('threads.create', {}).then((made) => {
      if (made === undefined) creating.current = null;
      return made;
    });
    return creating.current;
  }, [api]);
  const selectIfNone = useCallback((id: string) => setThreadId((open) => open ?? id), []);

  const send = useCallback(
    async (text: string, files: readonly PendingFile[] = []) => {
      const id = current.current;
      // While the thread is still loading, its snapshot would replace the message shown
      // now: send once it has loaded. Its load starts with the effects of the render that
      // opened it, which a key or click can come before.
      if (id !== null && loadedThread.current !== id) {
        firstMessage.current = { threadId: id, text, files };
        return true;
      }
      if (id !== null) return sendNow(id, text, files);
      const created = await createThread();
      if (!created) return false;
      firstMessage.current = { threadId: created.id, text, files };
      setThreadId(created.id);
      return true;
    },
    [createThread, sendNow],
  );

  const stop = useCallback(async () => {
    const id = current.current;
    if (id !== null) await api.safe('threads.stop', { threadId: id });
  }, [api]);

  const decide = useCallback(
    async (approval: PendingApproval, decision: ApprovalDecisionDto) => {
      const result = await api.safe('approvals.decide', {
        threadId: approval.threadId,
        toolCallId: approval.toolCallId,
        ...(approval.parentToolCallId ? { parentToolCallId: approval.parentToolCallId } : {}),
        decision,
      });
      const key = approvalKey(approval.toolCallId, approval.parentToolCallId);
      if (!result) return false;
      const preview = approval.preview;
      if (preview && (decision.type === 'approve' || decision.type === 'edit')) {
        // An edited write shows what it will really write.
        const after = decision.type === 'edit' && approval.toolName === 'write_file' && typeof decision.args.content === 'string' ? decision.args.content : preview.after;
        // An edited edit: the same file with the person's strings (until the result brings what it really did).
        const editedEdit = decision.type === 'edit' && approval.toolName === 'edit_file' ? editedAfter(preview.before, decision.args) : undefined;
        const kept =
          editedEdit === null
            ? null
            : editedEdit !== undefined
              ? { path: preview.path, before: preview.before.replace(/\r\n/g, '\n'), after: editedEdit }
              : { path: preview.path, before: preview.before, after };
        if (kept) setDecidedPreviews((m) => new Map(m).set(key, kept));
      }
      setApprovals((list) => list.filter((a) => approvalKey(a.toolCallId, a.parentToolCallId) !== key));
      if (approval.threadId === current.current) {
        dispatch({
          type: 'local_approval',
          toolCallId: approval.toolCallId,
          parent: approval.parentToolCallId,
          status: DECISION_STATUS[decision.type],
          ...(decision.type === 'edit' ? { args: decision.args } : {}),
        });
      }
      return true;
    },
    [api],
  );

  const retry = useCallback(async () => {
    const id = current.current;
    if (id === null) return;
    dispatch({ type: 'set_running', running: true });
    sending.current++;
    try {
      await api.call('threads.retry', { threadId: id });
    } catch (err) {
      if (current.current === id) {
        dispatch({ type: 'local_error', message: `Could not retry: ${errorMessage(err)}`, settings: needsSettings(err) });
        dispatch({ type: 'set_running', running: false });
      }
    } finally {
      sending.current--;
    }
  }, [api]);

  const syncRunning = useCallback((running: boolean) => {
    if (sending.current > 0 || buffer.current !== null) return;
    dispatch({ type: 'set_running', running });
  }, []);

  const cancelQueued = useCallback(
    async (queuedId: string) => {
      const id = current.current;
      if (id !== null) await api.safe('threads.cancelQueued', { threadId: id, queuedId });
    },
    [api],
  );

  const sendQueuedNow = useCallback(
    async (queuedId: string) => {
      const id = current.current;
      if (id !== null) await api.safe('threads.sendQueuedNow', { threadId: id, queuedId });
    },
    [api],
  );

  const approvalsRef = useRef(approvals);
  approvalsRef.current = approvals;
  const loadEarlier = useCallback(async () => {
    const id = current.current;
    const cursor = pageRef.current.cursor;
    // Not before the recent part has loaded: its page says where the earlier items end.
    if (id === null || cursor === 0 || earlierInFlight.current || buffer.current !== null) return;
    earlierInFlight.current = true;
    setLoadingEarlier(true);
    try {
      const earlier = await api.call('threads.earlier', { threadId: id, cursor });
      // The reducer drops it if the thread was loaded again meanwhile (its cursor moved).
      startTransition(() => dispatch({ type: 'earlier', threadId: id, cursor, items: earlier.items, before: earlier.cursor, approvals: approvalsRef.current }));
    } catch (err) {
      if (current.current === id) push(`Could not load earlier messages: ${errorMessage(err)}`);
    } finally {
      earlierInFlight.current = false;
      // Until the page is on screen: scrolling at the top asks for no page meanwhile.
      startTransition(() => setLoadingEarlier(false));
    }
  }, [api, push]);

  const fullToolCall = useCallback(
    async (index: number, toolCallId: string, parentToolCallId?: string) => {
      const id = current.current;
      if (id === null) throw new Error('no thread is open');
      return api.call('threads.toolCall', { threadId: id, index, toolCallId, ...(parentToolCallId !== undefined ? { parentToolCallId } : {}) });
    },
    [api],
  );

  const attachment = useCallback(
    async (index: number, name: string) => {
      const id = current.current;
      if (id === null) throw new Error('no thread is open');
      return api.call('threads.attachment', { threadId: id, index, name });
    },
    [api],
  );

  const acceptGoal = useCallback(
    async (draft: GoalDraft) => {
      const id = current.current;
      if (id === null) return false;
      try {
        await api.call('threads.startGoal', { threadId: id, draft });
        setGoalDraft((held) => (held?.threadId === id ? null : held));
        return true;
      } catch (err) {
        push(`Could not start the goal: ${errorMessage(err)}`);
        return false;
      }
    },
    [api, push],
  );
  const dismissGoal = useCallback(() => {
    const id = current.current;
    setGoalDraft((held) => (held?.threadId === id ? null : held));
    if (id !== null) void api.safe('threads.dismissGoal', { threadId: id });
  }, [api]);
  const shownDraft = goalDraft !== null && goalDraft.threadId === threadId ? goalDraft.draft : null;

  return {
    threadId, state, approvals, loading, select: setThreadId, selectIfNone, createThread, send, stop, decide, retry, decidedPreviews, cancelQueued, sendQueuedNow, syncRunning, loadEarlier, loadingEarlier, fullToolCall, attachment,
    goalDraft: shownDraft, acceptGoal, dismissGoal,
  };
}
