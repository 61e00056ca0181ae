// Which thread is open: the most recent at start, a new one on the person's click, one opened from
// the Agents view, another when the open one is deleted elsewhere; its title, and the page's.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { AppInfo } from '../../../../src-main/app/contract';
import { needYouCount } from '../../lib/agents';
import { focusMessageBox } from '../../lib/focus';
import { pageTitle } from '../../lib/page-title';
import { useAgents } from '../../state/agents-context';
import { draftOnceShown, hasDraft } from '../../state/drafts';
import { useApi } from '../../state/use-api';
import { usePageLooking } from '../../state/use-page-looking';
import type { ThreadSession } from '../../state/use-thread-session';
import type { useThreads } from '../../state/use-threads';

export type OpenThread = ReturnType<typeof useOpenThread>;

/** `closeUsage`, `setDrawer`: opening a thread closes the Usage view and the switcher's drawer. */
export function useOpenThread(info: AppInfo, session: ThreadSession, list: ReturnType<typeof useThreads>, closeUsage: (focus: null) => void, setDrawer: (drawer: null) => void) {
  const api = useApi();
  const agentsView = useAgents();
  const { threads, loaded: threadsLoaded, refresh: refreshThreads } = list;
  const { select, selectIfNone, createThread, syncRunning, threadId } = session;
  const autoSelected = useRef(false);
  /** The window's first thread is being made (none was listed at start). */
  const makingFirst = useRef(false);

  // The title counts the threads that need the person, of every folder (seen from another
  // tab, or the taskbar); this folder's own list and the open thread know theirs first.
  const needYou = needYouCount({ agents: agentsView.agents, threads, currentThreadId: threadId, currentWaiting: session.approvals.length > 0 });
  useEffect(() => {
    document.title = pageTitle(info.folderName, needYou);
  }, [info, needYou]);
  const currentSummary = threads.find((t) => t.id === threadId);
  const currentEmpty = threadId !== null && session.state.items.length === 0 && !session.state.running && (currentSummary?.messageCount ?? 0) === 0;
  const title = currentSummary?.title || agentsView.agents?.find((a) => a.threadId === threadId)?.title || (threadId ? 'Untitled thread' : 'New conversation');

  const openThread = useCallback((id: string | null) => {
    select(id);
    closeUsage(null);
    setDrawer(null);
  }, [select, closeUsage, setDrawer]);

  const newThread = useCallback(async (startup = false) => {
    // Clicked while the window's first thread is still being made: that thread opens first and
    // takes what was typed meanwhile (the box gives it to the thread that opens); then, with a
    // draft there, the new thread starts empty beside it; without, the first one is the new one.
    // Only while it is made: a click as the list loads (its most recent thread chosen, not yet
    // open) makes a new thread, not waits for one that is not coming.
    let another = false;
    if (threadId === null && !startup && makingFirst.current) {
      const first = await createThread();
      if (!first) return;
      // Asked before it opens: the box's note as it shows the first thread answers.
      const drafted = draftOnceShown(first.id);
      selectIfNone(first.id);
      void refreshThreads();
      if (!(await drafted)) return;
      another = true;
    } else if (currentEmpty && threadId !== null && !hasDraft(threadId)) {
      // An empty thread is already a new thread: don't pile up empty ones. Unless a draft was
      // typed in it: that stays there, and the new thread starts empty.
      focusMessageBox();
      return;
    }
    closeUsage(null);
    // The person chose: the list loading after this click does not open its most recent thread over the new one.
    autoSelected.current = true;
    // From the click on, what is typed belongs to the thread that opens, not to the one left
    // (the message box gives what was typed while no thread was open to the one that opens).
    select(null);
    const created = await createThread(another);
    if (created) {
      selectIfNone(created.id);
      void refreshThreads();
    } else if (threadId !== null) selectIfNone(threadId);
  }, [createThread, select, selectIfNone, refreshThreads, currentEmpty, threadId, closeUsage]);

  // Open the most recent thread at start; with none, start one, so the terminal (which
  // belongs to a thread) works before the first message.
  useEffect(() => {
    if (autoSelected.current || !threadsLoaded) return;
    autoSelected.current = true;
    if (threadId !== null) return;
    if (threads[0]) select(threads[0].id);
    else {
      makingFirst.current = true;
      void newThread(true).finally(() => {
        makingFirst.current = false;
      });
    }
  }, [threadsLoaded, threads, threadId, select, newThread]);

  // A thread opened from the Agents view: once its folder is the open one (this workspace is
  // made anew for another folder), it is the open thread. One opened beside the folder (a
  // candidate's) leaves a way back to the thread that was open.
  const { request, consume } = agentsView;
  const openNow = useRef(threadId);
  openNow.current = threadId;
  const [backTo, setBackTo] = useState<{ from: string; to: string | null } | null>(null);
  useEffect(() => {
    if (request === null || request.info.folder !== info.folder) return;
    consume(request.seq);
    if (request.beside && openNow.current !== request.threadId) setBackTo({ from: request.threadId, to: openNow.current });
    autoSelected.current = true;
    openThread(request.threadId);
    void refreshThreads();
  }, [request, consume, info.folder, openThread, refreshThreads]);

  // The open thread finished while the person looked at it: it was seen, so it leaves the
  // Agents view as one opened there does (a run that ended unseen stays listed `Done`).
  const looking = usePageLooking();
  const finishedHere = agentsView.agents?.find((a) => a.threadId === threadId && (a.state === 'done' || a.state === 'failed' || a.state === 'stopped'));
  const seenRun = useRef<string | null>(null);
  useEffect(() => {
    if (finishedHere === undefined || !looking) return;
    const run = `${finishedHere.threadId} ${finishedHere.startedAt}`;
    if (seenRun.current === run) return;
    seenRun.current = run;
    // Beside: marking it seen never moves the window off its folder (a candidate's thread is shown beside it).
    void api.call('agentsView.open', { threadId: finishedHere.threadId, beside: true }).catch(() => undefined);
  }, [finishedHere, looking, api]);

  // The open thread was deleted elsewhere: move to another.
  const listed = useRef(new Set<string>());
  useEffect(() => {
    const ids = new Set(threads.map((t) => t.id));
    if (threadId !== null && listed.current.has(threadId) && !ids.has(threadId)) select(threads[0]?.id ?? null);
    listed.current = ids;
  }, [threads, threadId, select]);

  // The list knows when a run ended even if its 'done' never came.
  useEffect(() => {
    if (currentSummary) syncRunning(currentSummary.running);
  }, [currentSummary, syncRunning]);

  return { threads, currentSummary, title, backTo: backTo?.from === threadId ? backTo : null, openThread, newThread };
}
