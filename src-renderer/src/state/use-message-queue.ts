// The person's messages to the open thread: sent, or queued while a run goes (then withdrawn or
// sent at once); a first message that waits for its new thread; a retry; and the draft that
// `/goal` brings back (SPEC §21), kept with its thread: edited and accepted, or dismissed.

import { useCallback, useEffect, useRef, useState } from 'react';
import { parseSlash, type GoalDraft, type Params } from '../../../src-main/app/contract';
import { shownAttachment, type PendingFile } from '../lib/pending-files';
import { TransportError } from '../transport/errors';
import { errorMessage, useToasts } from './toasts';
import { useApi } from './use-api';
import type { OpenThread } from './use-thread-stream';

export function useMessageQueue({ threadId, select, state, dispatch, current, loadedThread }: OpenThread, showGoalDraft: (threadId: string, draft: GoalDraft) => void) {
  const api = useApi();
  const { push } = useToasts();
  /** A first message for a thread that was just created; sent once that thread has loaded. */
  const firstMessage = useRef<{ threadId: string; text: string; files: readonly PendingFile[] } | null>(null);
  /** While a send is in flight the thread list may not know about the run yet. */
  const sending = useRef(0);
  const runningRef = useRef(false);
  runningRef.current = state.running;
  /** A send or a retry of the open thread failed: the error says so (offering `Open settings` when the fix is there: no model, no API key). */
  const failed = useCallback((id: string, what: string, err: unknown) => {
    if (current.current !== id) return;
    dispatch({ type: 'local_error', message: `Could not ${what}: ${errorMessage(err)}`, settings: err instanceof TransportError && err.code === 'needs_settings' });
    dispatch({ type: 'set_running', running: false });
  }, [current, dispatch]);
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
        if (result.goalDraft !== undefined) showGoalDraft(id, result.goalDraft);
        if (result.threadId !== undefined) {
          select(result.threadId);
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
        failed(id, 'send', err);
        return false;
      } finally {
        sending.current--;
      }
    },
    [api, push, current, dispatch, failed, select, showGoalDraft],
  );
  const sendWaiting = useCallback((id: string) => {
    const pending = firstMessage.current;
    if (pending?.threadId !== id) return;
    firstMessage.current = null;
    void sendNow(id, pending.text, pending.files);
  }, [sendNow]);

  const creating = useRef<Promise<{ id: string } | undefined> | null>(null);
  // The thread just made stays the one to give until it is open: its answer comes a render
  // before the open thread is known, and a message sent in between goes to it, not to another.
  useEffect(() => {
    if (threadId !== null) creating.current = null;
  }, [threadId]);
  const createThread = useCallback((another = false) => {
    if (another) creating.current = null;
    creating.current ??= api.safe('threads.create', {}).then((made) => {
      if (made === undefined) creating.current = null;
      return made;
    });
    return creating.current;
  }, [api]);
  const selectIfNone = useCallback((id: string) => select((open) => open ?? id), [select]);

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
      select(created.id);
      return true;
    },
    [createThread, sendNow, current, loadedThread, select],
  );

  const retry = useCallback(async () => {
    const id = current.current;
    if (id === null) return;
    dispatch({ type: 'set_running', running: true });
    sending.current++;
    try {
      await api.call('threads.retry', { threadId: id });
    } catch (err) {
      failed(id, 'retry', err);
    } finally {
      sending.current--;
    }
  }, [api, current, dispatch, failed]);

  /** A call about the open thread, if one is open (a failure is a toast). */
  const onOpen = useCallback(async <M extends 'threads.stop' | 'threads.cancelQueued' | 'threads.sendQueuedNow'>(method: M, params: Omit<Params<M>, 'threadId'>) => {
    if (current.current !== null) await api.safe(method, { threadId: current.current, ...params } as Params<M>);
  }, [api, current]);
  const stop = useCallback(() => onOpen('threads.stop', {}), [onOpen]);
  const cancelQueued = useCallback((queuedId: string) => onOpen('threads.cancelQueued', { queuedId }), [onOpen]);
  const sendQueuedNow = useCallback((queuedId: string) => onOpen('threads.sendQueuedNow', { queuedId }), [onOpen]);

  return { send, sendWaiting, sending, createThread, selectIfNone, stop, retry, cancelQueued, sendQueuedNow };
}

/** `/goal`'s draft waiting for the person, shown while its thread is open. */
export function useGoalDraft({ threadId, current }: OpenThread) {
  const api = useApi();
  const { push } = useToasts();
  const [goalDraft, setGoalDraft] = useState<{ threadId: string; draft: GoalDraft } | null>(null);
  const drop = (id: string | null) => setGoalDraft((held) => (held?.threadId === id ? null : held));
  /** The thread's draft as its view or a send's answer brings it; none: the thread has none any more. */
  const showGoalDraft = useCallback((id: string, draft: GoalDraft | undefined) => (draft !== undefined ? setGoalDraft({ threadId: id, draft }) : drop(id)), []);
  const acceptGoal = useCallback(
    async (draft: GoalDraft) => {
      const id = current.current;
      if (id === null) return false;
      try {
        await api.call('threads.startGoal', { threadId: id, draft });
        drop(id);
        return true;
      } catch (err) {
        push(`Could not start the goal: ${errorMessage(err)}`);
        return false;
      }
    },
    [api, push, current],
  );
  const dismissGoal = useCallback(() => {
    const id = current.current;
    drop(id);
    if (id !== null) void api.safe('threads.dismissGoal', { threadId: id });
  }, [api, current]);

  return { goalDraft: goalDraft !== null && goalDraft.threadId === threadId ? goalDraft.draft : null, showGoalDraft, acceptGoal, dismissGoal };
}
