// The Agents view's state (SPEC §16), kept above the folder's workspace so it lives on when
// another folder opens: every thread working, needing the person, queued or newly finished,
// across folders, listed again on `agentsView.changed` (a burst of them makes one listing)
// and after a reconnect. Each new listing is compared with the one before (agentNotices):
// what changed is read out politely (from here, so a folded or hidden Agents panel does not
// silence it; not about the thread open in the window, whose conversation says it) and, in a
// browser, shown as a notification once the person allowed them (the desktop app's main
// process shows its own). Opening one asks
// the folder host to open its folder here; the workspace of that folder then selects it.

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { agentNotices, type AgentDto, type AgentNotice, type AppInfo } from '../../../src-main/app/contract';
import { agentAnnouncement } from '../lib/agents';
import { coalesce, type Coalesced } from '../lib/coalesce';
import { errorMessage } from './toasts';
import { useApi } from './use-api';
import { useConnection, useEvent, useTransport } from './transport-context';

/** A thread opened from the Agents view: its folder is (being) opened; its workspace selects it and takes the request. */
export interface OpenThreadRequest {
  seq: number;
  info: AppInfo;
  threadId: string;
  /** Opened beside the window's folder (a candidate's, in its worktree): the window stays on its own. */
  beside: boolean;
}

/**
 * The browser's notifications: `desktop` when the main process shows them (Electron),
 * `unsupported` where the page has none, else the page's permission.
 */
export type NotificationState = 'desktop' | 'unsupported' | NotificationPermission;

interface AgentsApi {
  /** The list, or null until it was listed once. */
  agents: AgentDto[] | null;
  /** Why the last listing failed (null once one succeeds). */
  error: string | null;
  /** The thread open in the window (what is read out leaves it to its conversation). */
  setCurrentThread(threadId: string | null): void;
  /** Opens the thread (its folder first, or `beside` the window's); false when it could not be opened (the toast says why). */
  open(threadId: string, beside?: boolean): Promise<boolean>;
  request: OpenThreadRequest | null;
  /** The workspace selected the request's thread. */
  consume(seq: number): void;
  notifications: NotificationState;
  /** Asks the browser for permission (from the person's click: browsers ask only then). */
  enableNotifications(): void;
}

const AgentsContext = createContext<AgentsApi | null>(null);

/** A burst of `agentsView.changed` waits this long for the rest before listing once. */
const RELIST_MS = 150;

function pageNotifications(): typeof Notification | null {
  return typeof window !== 'undefined' && typeof window.Notification === 'function' ? window.Notification : null;
}

/** Whether the person is looking elsewhere (another tab, another window). */
function pageAway(): boolean {
  return document.visibilityState === 'hidden' || !document.hasFocus();
}

export function AgentsProvider({ children }: { children: ReactNode }): React.JSX.Element {
  const transport = useTransport();
  const api = useApi();
  const { reconnects } = useConnection();
  const [agents, setAgents] = useState<AgentDto[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** What is read out: a new node for each change, so the same words said again are read again. */
  const [said, setSaid] = useState<{ seq: number; text: string }>({ seq: 0, text: '' });
  const currentThread = useRef<string | null>(null);
  const [request, setRequest] = useState<OpenThreadRequest | null>(null);
  const previous = useRef<AgentDto[] | null>(null);
  const requests = useRef(0);
  const notices = useRef(0);

  const web = transport.kind === 'web' ? pageNotifications() : null;
  const [notifications, setNotifications] = useState<NotificationState>(() => (transport.kind === 'electron' ? 'desktop' : web === null ? 'unsupported' : web.permission));

  const open = useCallback(
    async (threadId: string, beside = false) => {
      const opened = await api.safe('agentsView.open', { threadId, ...(beside ? { beside } : {}) });
      if (!opened) return false;
      requests.current += 1;
      setRequest({ seq: requests.current, info: opened.info, threadId: opened.threadId, beside });
      return true;
    },
    [api],
  );
  const openRef = useRef(open);
  useEffect(() => {
    openRef.current = open;
  }, [open]);

  /** Shows `list` in the browser's notifications, when allowed and the person looks elsewhere. */
  const notify = useCallback(
    (list: readonly AgentNotice[]) => {
      if (web === null || web.permission !== 'granted' || !pageAway()) return;
      for (const notice of list) {
        try {
          // One per thread: the page's other tabs show the same one, not one each.
          const shown = new web(notice.title, { body: notice.body, tag: `deepdesk-agent-${notice.threadId}` });
          shown.onclick = () => {
            window.focus();
            shown.close();
            void openRef.current(notice.threadId);
          };
        } catch {
          // A browser that allows them only from a service worker: the window's own list says it.
        }
      }
    },
    [web],
  );

  const runner = useRef<Coalesced | null>(null);
  useEffect(() => {
    const relist = coalesce(async () => {
      try {
        const next = await transport.call('agentsView.list', {});
        const before = previous.current;
        previous.current = next;
        setAgents(next);
        setError(null);
        // The first listing is where things stand, not news.
        if (before === null) return;
        const changed = agentNotices(before, next);
        if (changed.length === 0) return;
        const text = agentAnnouncement(changed, currentThread.current);
        if (text !== '') {
          notices.current += 1;
          setSaid({ seq: notices.current, text });
        }
        notify(changed);
      } catch (err) {
        setError(errorMessage(err));
      }
    }, RELIST_MS);
    runner.current = relist;
    return () => {
      relist.stop();
      if (runner.current === relist) runner.current = null;
    };
  }, [transport, notify]);

  useEffect(() => {
    runner.current?.now();
  }, [reconnects, transport, notify]);
  useEvent('agentsView.changed', () => runner.current?.request());
  // The first folder opened in a new data folder makes the records the list is read from (and
  // a listing then starts their changes coming).
  useEvent('app.folderChanged', () => runner.current?.request());
  // The desktop app: the person clicked its OS notification about this thread.
  useEvent('agentsView.openThread', ({ threadId }) => void open(threadId));

  // The permission may change in the browser's own settings meanwhile.
  useEffect(() => {
    if (web === null) return undefined;
    const check = (): void => setNotifications(web.permission);
    window.addEventListener('focus', check);
    return () => window.removeEventListener('focus', check);
  }, [web]);

  const enableNotifications = useCallback(() => {
    if (web === null) return;
    void web
      .requestPermission()
      .then((answer) => setNotifications(answer))
      .catch(() => setNotifications(web.permission));
  }, [web]);

  const consume = useCallback((seq: number) => setRequest((r) => (r?.seq === seq ? null : r)), []);
  const setCurrentThread = useCallback((threadId: string | null) => {
    currentThread.current = threadId;
  }, []);

  const value = useMemo<AgentsApi>(
    () => ({ agents, error, setCurrentThread, open, request, consume, notifications, enableNotifications }),
    [agents, error, setCurrentThread, open, request, consume, notifications, enableNotifications],
  );
  return (
    <AgentsContext.Provider value={value}>
      {children}
      <div className="visually-hidden agents-announcer" aria-live="polite" aria-atomic="true">
        {said.text !== '' ? <span key={said.seq}>{said.text}</span> : null}
      </div>
    </AgentsContext.Provider>
  );
}

export function useAgents(): AgentsApi {
  const agents = useContext(AgentsContext);
  if (!agents) throw new Error('useAgents outside AgentsProvider');
  return agents;
}
