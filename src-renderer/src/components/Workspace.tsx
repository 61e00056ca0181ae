// The window's layout and the state that ties the panels together: which thread is open,
// which file is shown, which dialog is up.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Result } from '../../../src-main/app/contract';
import { agentChangedPaths, type FileChange } from '../lib/file-tree';
import { useSettings } from '../state/settings-context';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { useMode } from '../state/use-mode';
import { useConnection } from '../state/transport-context';
import { useTheme } from '../state/use-theme';
import { useThreadSession } from '../state/use-thread-session';
import { useThreads } from '../state/use-threads';
import { CheckpointsProvider } from '../state/checkpoints-context';
import { AppHeader } from './AppHeader';
import { ChangesPanel } from './ChangesPanel';
import { ApprovalDialog } from './ApprovalDialog';
import { ConversationPane } from './ConversationPane';
import { ErrorBoundary } from './ErrorBoundary';
import { FileTree } from './FileTree';
import { FileViewer, type OpenFile } from './FileViewer';
import { MemoriesPanel } from './MemoriesPanel';
import { SettingsDialog } from './SettingsDialog';
import { TerminalPanel } from './TerminalPanel';
import { TextViewerDialog, type TextViewerContent } from './TextViewerDialog';
import { ThreadList } from './ThreadList';
import { Toasts } from './Toasts';

type AppInfo = Result<'app.info'>;

export function Workspace(): React.JSX.Element {
  const api = useApi();
  const { status } = useConnection();
  const { settings } = useSettings();
  const theme = useTheme(settings?.theme);
  const { threads, loaded: threadsLoaded, refresh: refreshThreads } = useThreads();
  const session = useThreadSession();
  const mode = useMode();
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [openFile, setOpenFile] = useState<OpenFile | null>(null);
  const [viewer, setViewer] = useState<TextViewerContent | null>(null);
  const [treeKey, setTreeKey] = useState(0);
  const autoSelected = useRef(false);

  useEffect(() => {
    void api.safe('app.info', {}).then((i) => i && setInfo(i));
  }, [api]);

  useEffect(() => {
    document.title = info?.folderName ? `${info.folderName} — Deepdesk` : 'Deepdesk';
  }, [info]);

  const newThread = useCallback(async () => {
    const created = await api.safe('threads.create', {});
    if (created) {
      session.select(created.id);
      void refreshThreads();
    }
  }, [api, session.select, refreshThreads]);

  // Open the most recent thread at start; with none, start one, so the terminal (which
  // belongs to a thread) works before the first message.
  const { select, syncRunning, threadId } = session;
  useEffect(() => {
    if (autoSelected.current || !threadsLoaded) return;
    autoSelected.current = true;
    if (threadId !== null) return;
    if (threads[0]) select(threads[0].id);
    else void newThread();
  }, [threadsLoaded, threads, threadId, select, newThread]);

  // The open thread was deleted elsewhere: move to another.
  const listed = useRef(new Set<string>());
  useEffect(() => {
    const ids = new Set(threads.map((t) => t.id));
    if (threadId !== null && listed.current.has(threadId) && !ids.has(threadId)) select(threads[0]?.id ?? null);
    listed.current = ids;
  }, [threads, threadId, select]);

  // The list knows when a run ended even if its 'done' never came.
  const currentSummary = threads.find((t) => t.id === threadId);
  useEffect(() => {
    if (currentSummary) syncRunning(currentSummary.running);
  }, [currentSummary, syncRunning]);

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

  const openPath = useCallback(
    (path: string) => {
      setOpenFile({ path });
      void readFile(path);
    },
    [readFile],
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

  const pickFolder = async (): Promise<void> => {
    const picked = await api.safe('app.pickFolder', {});
    if (!picked?.folder) return;
    const next = await api.safe('app.info', {});
    if (next) setInfo(next);
    setOpenFile(null);
    setTreeKey((k) => k + 1);
    autoSelected.current = false;
    select(null);
    void refreshThreads();
  };

  const noModel = settings !== null && settings.model.trim() === '';
  const approval = session.approvals[0];
  const changedPaths = useMemo(() => agentChangedPaths(session.state.items), [session.state.items]);
  const title = currentSummary?.title || (threadId ? 'Untitled thread' : 'New conversation');

  return (
    <CheckpointsProvider threadId={threadId} running={session.state.running}>
      <div className={`app theme-${theme}${openFile ? ' viewing' : ''}`}>
        <AppHeader
          folderName={info?.folderName ?? ''}
          folder={info?.folder ?? ''}
          canPickFolder={info?.canPickFolder ?? false}
          model={settings?.model ?? ''}
          connection={status}
          onPickFolder={() => void pickFolder()}
          onOpenSettings={() => setSettingsOpen(true)}
          mode={mode}
        />
        <aside className="sidebar">
          <ErrorBoundary name="Threads">
            <ThreadList threads={threads} currentId={threadId} currentRunning={session.state.running} onSelect={select} onNew={() => void newThread()} />
          </ErrorBoundary>
          <ErrorBoundary name="Files">
            <FileTree key={treeKey} folderName={info?.folderName ?? ''} selectedPath={openFile?.path ?? null} onOpenFile={openPath} onChanges={onFileChanges} changedPaths={changedPaths} />
          </ErrorBoundary>
        </aside>
        <main className="center">
          <ConversationPane
            session={session}
            title={title}
            noModel={noModel}
            settingsLoaded={settings !== null}
            onOpenSettings={() => setSettingsOpen(true)}
            openThreadFile={openThreadFile}
          />
        </main>
        <aside className={`right${openFile ? ' with-viewer' : ''}`}>
          {openFile ? (
            <ErrorBoundary name="File viewer">
              <FileViewer file={openFile} onClose={() => setOpenFile(null)} />
            </ErrorBoundary>
          ) : null}
          <ErrorBoundary name="Memories">
            <MemoriesPanel />
          </ErrorBoundary>
          <ErrorBoundary name="Changes">
            <ChangesPanel />
          </ErrorBoundary>
        </aside>
        <div className="bottom">
          <ErrorBoundary name="Terminal">
            <TerminalPanel threadId={threadId} theme={theme} mode={mode} />
          </ErrorBoundary>
        </div>
      </div>
      <ErrorBoundary name="Approval">
        {approval ? <ApprovalDialog key={approval.toolCallId} approval={approval} total={session.approvals.length} onDecide={(decision) => session.decide(approval, decision)} /> : null}
      </ErrorBoundary>
      <ErrorBoundary name="Settings">{settingsOpen ? <SettingsDialog onClose={() => setSettingsOpen(false)} /> : null}</ErrorBoundary>
      <ErrorBoundary name="Viewer">{viewer ? <TextViewerDialog content={viewer} onClose={() => setViewer(null)} /> : null}</ErrorBoundary>
      <Toasts />
    </CheckpointsProvider>
  );
}
