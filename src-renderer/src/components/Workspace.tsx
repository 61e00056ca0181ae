// The window's layout and the state that ties the panels together: which thread is open
// (also from the Agents view, whose row of another folder opens that folder first), which
// file is shown, which dialog is up, and the panel frames (collapse, resize, the switcher on
// narrow windows, the terminal as a bottom panel).

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AppInfo } from '../../../src-main/app/contract';
import { attachmentContent } from '../lib/attachment-content';
import { agentChangedPaths, type FileChange } from '../lib/file-tree';
import type { ShownAttachment } from '../lib/thread-reducer';
import { LEFT_PANELS, LIMITS, RIGHT_PANELS, terminalOnAgentCommand, type SidePanel } from '../lib/layout';
import { pageTitle } from '../lib/page-title';
import { needYouCount } from '../lib/agents';
import { useAgents } from '../state/agents-context';
import { usePageLooking } from '../state/use-page-looking';
import { useSettings } from '../state/settings-context';
import { FileLinkContext } from '../state/file-links';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { useMode } from '../state/use-mode';
import { useConnection } from '../state/transport-context';
import { useLayout } from '../state/use-layout';
import { useTheme } from '../state/use-theme';
import { useThreadSession } from '../state/use-thread-session';
import { useThreads } from '../state/use-threads';
import { CheckpointsProvider } from '../state/checkpoints-context';
import { AgentsPanel } from './AgentsPanel';
import { AppHeader } from './AppHeader';
import { MODE_OFFER_SLOT } from './ModeChooser';
import { ChangesPanel } from './ChangesPanel';
import { ConversationPane } from './ConversationPane';
import { ErrorBoundary } from './ErrorBoundary';
import { FileTree } from './FileTree';
import { FileViewer, type OpenFile } from './FileViewer';
import { MemoriesPanel } from './MemoriesPanel';
import { PanelFrame } from './PanelFrame';
import { PanelSwitcher } from './PanelSwitcher';
import { Resizer } from './Resizer';
import { SettingsDialog } from './SettingsDialog';
import { TerminalPanel } from './TerminalPanel';
import { TextViewerDialog, type TextViewerContent } from './TextViewerDialog';
import { TrustPrompt } from './TrustPrompt';
import { UsageView } from './UsageView';
import { ThreadList } from './ThreadList';
import { Toasts } from './Toasts';
import { useRegionNavigation } from './use-region-navigation';
import { useTerminalFocus, TERMINAL_SHORTCUT_HINT } from './use-terminal-focus';
import { focusMessageBox, stillFocusable } from '../lib/focus';
import { hasDraft } from '../state/drafts';
import { useFocusRescue } from '../lib/focus-rescue';

type Drawer = SidePanel | 'viewer' | null;

interface WorkspaceProps {
  /** The app and the open folder (the folder gate renders a Workspace only once one is open). */
  info: AppInfo;
  /** Offers another folder (`Open folder` in the header). */
  onOpenFolder(): void;
}

export function Workspace({ info, onOpenFolder }: WorkspaceProps): React.JSX.Element {
  const api = useApi();
  const { status } = useConnection();
  const { settings } = useSettings();
  const theme = useTheme(settings?.theme);
  const { threads, loaded: threadsLoaded, refresh: refreshThreads } = useThreads();
  const session = useThreadSession();
  const mode = useMode();
  const [settingsOpen, setSettingsOpen] = useState(false);
  /** The section Settings opens at (a label), when something asked for one. */
  const [settingsSection, setSettingsSection] = useState<string | undefined>(undefined);
  const openSettings = useCallback((section?: string) => {
    setSettingsSection(typeof section === 'string' ? section : undefined);
    setSettingsOpen(true);
  }, []);
  /** The Usage view in the conversation's place; where the keyboard goes when it closes. */
  const [usageShown, setUsageShown] = useState(false);
  const afterUsage = useRef<'opener' | 'message' | null>(null);
  const closeUsage = useCallback((focus: 'opener' | 'message' | null) => {
    afterUsage.current = focus;
    setUsageShown(false);
  }, []);
  useEffect(() => {
    if (usageShown || afterUsage.current === null) return;
    const focus = afterUsage.current;
    afterUsage.current = null;
    if (focus === 'opener') document.querySelector<HTMLElement>('.header-usage')?.focus();
    else focusMessageBox();
  }, [usageShown]);
  const [openFile, setOpenFile] = useState<OpenFile | null>(null);
  const [viewer, setViewer] = useState<TextViewerContent | null>(null);
  const [drawer, setDrawer] = useState<Drawer>(null);
  const autoSelected = useRef(false);
  const { layout, viewport, setSize, togglePanel, setTerminal } = useLayout(openFile !== null);
  const bottomRef = useRef<HTMLDivElement>(null);
  const leftRef = useRef<HTMLElement>(null);
  const rightRef = useRef<HTMLElement>(null);

  const { select, selectIfNone, createThread, syncRunning, threadId } = session;

  // The title counts the threads that need the person, of every folder (seen from another
  // tab, or the taskbar); this folder's own list and the open thread know theirs first.
  const agentsView = useAgents();
  const needYou = needYouCount({ agents: agentsView.agents, threads, currentThreadId: threadId, currentWaiting: session.approvals.length > 0 });
  useEffect(() => {
    document.title = pageTitle(info?.folderName, needYou);
  }, [info, needYou]);
  const currentSummary = threads.find((t) => t.id === threadId);
  const currentEmpty = threadId !== null && session.state.items.length === 0 && !session.state.running && (currentSummary?.messageCount ?? 0) === 0;

  const newThread = useCallback(async (startup = false) => {
    // Clicked while the window's first thread is still being made: that thread opens first and
    // takes what was typed meanwhile (the box gives it to the thread that opens); then, with a
    // draft there, the new thread starts empty beside it; without, the first one is the new one.
    if (threadId === null && !startup && autoSelected.current) {
      const first = await createThread();
      if (!first) return;
      selectIfNone(first.id);
      void refreshThreads();
      await afterPaint();
      if (!hasDraft(first.id)) return;
    } else if (currentEmpty && threadId !== null && !hasDraft(threadId)) {
      // An empty thread is already a new thread: don't pile up empty ones. Unless a draft was
      // typed in it: that stays there, and the new thread starts empty.
      document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.focus();
      return;
    }
    closeUsage(null);
    // The person chose: the list loading after this click does not open its most recent thread over the new one.
    autoSelected.current = true;
    // From the click on, what is typed belongs to the thread that opens, not to the one left
    // (the message box gives what was typed while no thread was open to the one that opens).
    select(null);
    const created = await createThread();
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
    else void newThread(true);
  }, [threadsLoaded, threads, threadId, select, newThread]);

  // A thread opened from the Agents view: once its folder is the open one (this workspace is
  // made anew for another folder), it is the open thread. One opened beside the folder (a
  // candidate's) leaves a way back to the thread that was open.
  const { request: openRequest, consume: consumeRequest } = agentsView;
  const narrowNow = layout.narrow;
  const openNow = useRef(threadId);
  openNow.current = threadId;
  const [backTo, setBackTo] = useState<{ from: string; to: string | null } | null>(null);
  useEffect(() => {
    if (openRequest === null || openRequest.info.folder !== info.folder) return;
    consumeRequest(openRequest.seq);
    if (openRequest.beside && openNow.current !== openRequest.threadId) setBackTo({ from: openRequest.threadId, to: openNow.current });
    autoSelected.current = true;
    select(openRequest.threadId);
    closeUsage(null);
    if (narrowNow) setDrawer(null);
    void refreshThreads();
  }, [openRequest, consumeRequest, info.folder, select, closeUsage, narrowNow, refreshThreads]);

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

  // The agent started a command: show the terminal, unless the person closed it.
  const agentCommand = session.state.running && session.state.items.some((i) => i.kind === 'tool' && i.name === 'execute' && i.output === undefined && i.approval !== 'pending');
  useEffect(() => {
    if (agentCommand) setTerminal(terminalOnAgentCommand);
  }, [agentCommand, setTerminal]);

  const readFile = useCallback(
    async (path: string) => {
      try {
        const content = await api.call('files.read', { path });
        setOpenFile((f) => (f?.path === path ? { path, content } : f));
      } catch (err) {
        setOpenFile((f) => (f?.path === path ? { path, error: errorMessage(err) } : f));
      }
    },
    [api],
  );

  const narrow = layout.narrow;
  /** What opened the file viewer (a tree row, a path in the conversation): it has the keyboard back on close. */
  const viewerOpener = useRef<HTMLElement | null>(null);
  const openPath = useCallback(
    (path: string) => {
      if (document.activeElement instanceof HTMLElement && !document.activeElement.closest('.viewer-panel')) viewerOpener.current = document.activeElement;
      setOpenFile({ path });
      void readFile(path);
      if (narrow) setDrawer('viewer');
    },
    [readFile, narrow],
  );

  /** An attachment of a sent message, from the bytes the window kept or the thread's. */
  const { attachment } = session;
  const openAttachment = useCallback(
    (file: ShownAttachment) => {
      if (document.activeElement instanceof HTMLElement && !document.activeElement.closest('.viewer-panel')) viewerOpener.current = document.activeElement;
      const path = file.path ?? file.name;
      setOpenFile({ path });
      if (narrow) setDrawer('viewer');
      const bytes =
        file.data !== undefined
          ? Promise.resolve({ mimeType: file.mimeType, data: file.data })
          : file.index !== undefined
            ? attachment(file.index, file.name)
            : Promise.reject(new Error('this attachment opens once its message is saved'));
      bytes
        .then(({ mimeType, data }) => setOpenFile((f) => (f?.path === path ? { path, content: attachmentContent(path, mimeType, data) } : f)))
        .catch((err: unknown) => setOpenFile((f) => (f?.path === path ? { path, error: errorMessage(err) } : f)));
    },
    [attachment, narrow],
  );

  const onFileChanges = useCallback(
    (changes: readonly FileChange[]) => {
      setOpenFile((f) => {
        if (!f) return f;
        const change = changes.find((c) => c.path === f.path);
        if (!change) return f;
        if (change.kind === 'unlink') return { ...f, deleted: true };
        void readFile(f.path);
        return { ...f, deleted: false };
      });
    },
    [readFile],
  );

  const openThreadFile = useCallback(
    (path: string, title: string) => {
      const id = session.threadId;
      if (id === null) return;
      setViewer({ title, path });
      api
        .call('threads.readArchive', { threadId: id, path })
        .then(({ text }) => setViewer((v) => (v?.path === path ? { ...v, text } : v)))
        .catch((err: unknown) => setViewer((v) => (v?.path === path ? { ...v, error: errorMessage(err) } : v)));
    },
    [api, session.threadId],
  );

  const closeFile = (): void => {
    const path = openFile?.path;
    setOpenFile(null);
    if (drawer === 'viewer') setDrawer(null);
    const opener = stillFocusable(viewerOpener.current) ?? (path === undefined ? null : stillFocusable(document.querySelector(`[role="treeitem"][data-key="${CSS.escape(path)}"]`)));
    viewerOpener.current = null;
    if (opener) opener.focus();
    else focusMessageBox();
  };

  const terminalOpen = layout.terminalOpen;
  const toggleTerminal = useCallback((open?: boolean) => setTerminal((old) => {
    const isOpen = old === 'open' || (old !== 'closed' && terminalOpen);
    return (open ?? !isOpen) ? 'open' : 'closed';
  }), [setTerminal, terminalOpen]);
  useTerminalFocus(bottomRef, terminalOpen, toggleTerminal);

  // Esc closes the switcher's drawer on narrow windows.
  useEffect(() => {
    if (!narrow || drawer === null) return undefined;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape' && !e.defaultPrevented) setDrawer(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [narrow, drawer]);
  useEffect(() => {
    if (!narrow) setDrawer(null);
  }, [narrow]);

  // A drawer that closes (Esc, the scrim, a thread chosen in it) gives the keyboard back to
  // the switcher's button that opened it, if the keyboard was in it.
  const lastDrawer = useRef<Drawer>(null);
  useEffect(() => {
    const closed = lastDrawer.current;
    lastDrawer.current = drawer;
    if (closed === null || drawer !== null) return;
    const active = document.activeElement;
    if (active !== null && active !== document.body && active.getClientRects().length > 0) return;
    const opener = closed === 'viewer' ? null : document.querySelector<HTMLElement>(`.switcher button[aria-label="Show ${closed}"]`);
    if (opener) opener.focus();
    else focusMessageBox();
  }, [drawer]);

  useRegionNavigation();
  useFocusRescue();

  const noModel = settings !== null && settings.model.trim() === '';
  const changedPaths = useMemo(() => agentChangedPaths(session.state.items), [session.state.items]);
  const title = currentSummary?.title || agentsView.agents?.find((a) => a.threadId === threadId)?.title || (threadId ? 'Untitled thread' : 'New conversation');
  const threadIds = useMemo(() => new Set(threads.map((t) => t.id)), [threads]);

  /** `share`: of the column, as a flex grow factor; or the frame's whole `flex`. */
  const frame = (panel: SidePanel, share: number | string | null): { collapsed: boolean; style: React.CSSProperties; className: string } => {
    const collapsed = !narrow && layout.collapsed[panel];
    const hidden = narrow && drawer !== panel;
    return {
      collapsed,
      className: hidden ? 'drawer-hidden' : '',
      style: narrow || collapsed || share === null ? {} : { flex: typeof share === 'string' ? share : `${share} 1 0` },
    };
  };

  const leftOpen = LEFT_PANELS.filter((p) => !layout.collapsed[p]).length === 2;
  const rightOpen = RIGHT_PANELS.filter((p) => !layout.collapsed[p]).length === 2;
  const leftColumnHeight = (): number => leftRef.current?.clientHeight ?? viewport.height - 46;
  const rightColumnHeight = (): number => rightRef.current?.clientHeight ?? viewport.height - 46;

  const sidePanel = (panel: SidePanel, share: number | string | null, body: React.ReactNode): React.JSX.Element => {
    const f = frame(panel, share);
    return (
      <PanelFrame name={panel} collapsed={f.collapsed} onToggle={() => togglePanel(panel)} className={f.className} style={f.style}>
        <ErrorBoundary name={panel}>{body}</ErrorBoundary>
      </PanelFrame>
    );
  };

  const leftDrawer = drawer === 'Threads' || drawer === 'Files';
  const rightDrawer = drawer === 'Memories' || drawer === 'Changes' || drawer === 'viewer';
  const viewerShown = openFile !== null && (!narrow || drawer === 'viewer');

  return (
    <CheckpointsProvider threadId={threadId} running={session.state.running}>
    <FileLinkContext.Provider value={openPath}>
      <div className={`app theme-${theme}${narrow ? ' narrow' : ''}`}>
        <AppHeader
          folderName={info?.folderName ?? ''}
          folder={info?.folder ?? ''}
          host={info?.host}
          model={settings?.model ?? ''}
          agent={currentSummary?.agent}
          connection={status}
          onOpenFolder={onOpenFolder}
          onOpenSettings={() => openSettings()}
          usageShown={usageShown}
          onToggleUsage={() => (usageShown ? closeUsage(null) : setUsageShown(true))}
          mode={mode}
          threadId={threadId}
        />
        <div className="app-body">
          {narrow ? <PanelSwitcher current={drawer === 'viewer' ? null : drawer} onSelect={(p) => setDrawer((d) => (d === p ? null : p))} /> : null}
          <aside
            ref={leftRef}
            aria-label="Threads and files"
            className={`side side-left${layout.leftRail && !narrow ? ' rail' : ''}${narrow ? (leftDrawer ? ' drawer open' : ' drawer') : ''}`}
            style={narrow ? undefined : { width: layout.leftWidth }}
          >
            <PanelFrame
              name="Agents"
              collapsed={!narrow && layout.collapsed.Agents}
              onToggle={() => togglePanel('Agents')}
              className={`agents-frame${narrow && drawer !== 'Threads' ? ' drawer-hidden' : ''}`}
              // With Threads and Files folded, it takes the column.
              style={!narrow && !layout.collapsed.Agents && LEFT_PANELS.every((p) => layout.collapsed[p]) ? { flex: '1 1 0', maxHeight: 'none' } : undefined}
            >
              <ErrorBoundary name="Agents">
                <AgentsPanel currentId={threadId} />
              </ErrorBoundary>
            </PanelFrame>
            {/* Threads keeps its share of the whole column: the Agents view's rows take their room from Files. */}
            {sidePanel(
              'Threads',
              leftOpen ? `0 1 ${layout.leftSplit * 100}%` : '1 1 0',
              <ThreadList
                threads={threads}
                currentId={threadId}
                currentRunning={session.state.running}
                onSelect={(id) => {
                  select(id);
                  closeUsage(null);
                  if (narrow) setDrawer(null);
                }}
                onNew={() => void newThread()}
              />,
            )}
            {!narrow && leftOpen ? (
              <Resizer
                label="Resize Threads and Files"
                orientation="horizontal"
                value={layout.leftSplit * leftColumnHeight()}
                min={leftColumnHeight() * 0.15}
                max={leftColumnHeight() * 0.85}
                onChange={(px) => setSize('leftSplit', px / leftColumnHeight())}
                onReset={() => setSize('leftSplit', undefined)}
              />
            ) : null}
            {sidePanel(
              'Files',
              '1 1 0',
              <FileTree folderName={info?.folderName ?? ''} selectedPath={openFile?.path ?? null} onOpenFile={openPath} onChanges={onFileChanges} changedPaths={changedPaths} />,
            )}
          </aside>
          {!narrow && !layout.leftRail ? (
            <Resizer
              label="Resize left panels"
              orientation="vertical"
              value={layout.leftWidth}
              min={LIMITS.leftWidth(viewport)[0]}
              max={LIMITS.leftWidth(viewport)[1]}
              onChange={(v) => setSize('leftWidth', v)}
              onReset={() => setSize('leftWidth', undefined)}
            />
          ) : null}
          <main className="center">
            <div id={MODE_OFFER_SLOT} className="mode-offer-slot" />
            <TrustPrompt />
            {backTo !== null && backTo.from === threadId ? (
              <div className="beside-bar">
                <span className="muted">A candidate’s thread, in its worktree; the window stays on {info.folderName}.</span>
                <button type="button" className="btn btn-small" onClick={() => select(backTo.to)}>
                  Back
                </button>
              </div>
            ) : null}
            <ConversationPane
              session={session}
              sandbox={info.sandbox}
              run={currentSummary}
              source={currentSummary?.source}
              title={title}
              noModel={noModel}
              settingsLoaded={settings !== null}
              onOpenSettings={openSettings}
              openThreadFile={openThreadFile}
              openAttachment={openAttachment}
              hidden={usageShown}
            />
            {usageShown ? (
              <ErrorBoundary name="Usage">
                <UsageView
                  threadIds={threadIds}
                  onOpenThread={(id) => {
                    select(id);
                    closeUsage('message');
                  }}
                  onOpenOtherFolderThread={(id) => void agentsView.open(id)}
                  onClose={() => closeUsage('opener')}
                />
              </ErrorBoundary>
            ) : null}
            {terminalOpen ? (
              <Resizer
                label="Resize Terminal"
                orientation="horizontal"
                direction={-1}
                value={layout.terminalHeight}
                min={LIMITS.terminalHeight(viewport)[0]}
                max={LIMITS.terminalHeight(viewport)[1]}
                onChange={(v) => setSize('terminalHeight', v)}
                onReset={() => setSize('terminalHeight', undefined)}
              />
            ) : null}
            <div ref={bottomRef} className="bottom-panel" style={terminalOpen ? { height: layout.terminalHeight } : undefined}>
              <PanelFrame name="Terminal" collapsed={!terminalOpen} onToggle={() => toggleTerminal()} hint={TERMINAL_SHORTCUT_HINT} keyShortcuts="Control+Shift+`">
                <ErrorBoundary name="Terminal">
                  <TerminalPanel threadId={threadId} theme={theme} mode={mode} open={terminalOpen} />
                </ErrorBoundary>
              </PanelFrame>
            </div>
          </main>
          {!narrow && !layout.rightRail ? (
            <Resizer
              label="Resize right panels"
              orientation="vertical"
              direction={-1}
              value={layout.rightWidth}
              min={(openFile ? LIMITS.viewerWidth : LIMITS.rightWidth)(viewport)[0]}
              max={(openFile ? LIMITS.viewerWidth : LIMITS.rightWidth)(viewport)[1]}
              onChange={(v) => setSize(openFile ? 'viewerWidth' : 'rightWidth', v)}
              onReset={() => setSize(openFile ? 'viewerWidth' : 'rightWidth', undefined)}
            />
          ) : null}
          <aside
            ref={rightRef}
            aria-label="Memories and changes"
            className={`side side-right${layout.rightRail && !narrow ? ' rail' : ''}${openFile ? ' with-viewer' : ''}${narrow ? (rightDrawer ? ' drawer open' : ' drawer') : ''}`}
            style={narrow ? undefined : { width: layout.rightWidth }}
          >
            {viewerShown && openFile ? (
              <ErrorBoundary name="File viewer">
                <FileViewer file={openFile} onClose={closeFile} />
              </ErrorBoundary>
            ) : null}
            {sidePanel('Memories', openFile ? null : layout.rightSplit, <MemoriesPanel />)}
            {!narrow && rightOpen && !openFile ? (
              <Resizer
                label="Resize Memories and Changes"
                orientation="horizontal"
                value={layout.rightSplit * rightColumnHeight()}
                min={rightColumnHeight() * 0.15}
                max={rightColumnHeight() * 0.85}
                onChange={(px) => setSize('rightSplit', px / rightColumnHeight())}
                onReset={() => setSize('rightSplit', undefined)}
              />
            ) : null}
            {sidePanel('Changes', openFile ? null : 1 - layout.rightSplit, <ChangesPanel />)}
          </aside>
          {narrow && drawer !== null ? <div className="drawer-scrim" aria-hidden="true" onClick={() => setDrawer(null)} /> : null}
        </div>
      </div>
      <ErrorBoundary name="Settings">{settingsOpen ? <SettingsDialog onClose={() => setSettingsOpen(false)} section={settingsSection} folder={info.folder ?? ''} /> : null}</ErrorBoundary>
      <ErrorBoundary name="Viewer">{viewer ? <TextViewerDialog content={viewer} onClose={() => setViewer(null)} /> : null}</ErrorBoundary>
      <Toasts />
    </FileLinkContext.Provider>
    </CheckpointsProvider>
  );
}

/** Once the window has drawn what was set before (its effects have run). */
function afterPaint(): Promise<void> {
  return new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
}
