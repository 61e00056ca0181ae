// The window's layout and what ties its regions together (workspace/): the open thread, the
// side panels with the file shown, the dialogs, the keyboard map.

import { useCallback } from 'react';
import type { AppInfo } from '../../../src-main/app/contract';
import { CheckpointsProvider } from '../state/checkpoints-context';
import { FileLinkContext } from '../state/file-links';
import { MemoriesNavContext, useMemoriesNavValue } from '../state/memories-nav';
import { useSettings } from '../state/settings-context';
import { useConnection } from '../state/transport-context';
import { useMode } from '../state/use-mode';
import { useTheme } from '../state/use-theme';
import { useThreadSession } from '../state/use-thread-session';
import { useThreads } from '../state/use-threads';
import { AppHeader } from './AppHeader';
import { DialogHost, useDialogs } from './workspace/DialogHost';
import { LeftPanels, RightPanels } from './workspace/SidePanels';
import { ThreadPane } from './workspace/ThreadPane';
import { useOpenThread } from './workspace/use-open-thread';
import { useSidePanels } from './workspace/use-side-panels';
import { useWorkspaceKeys } from './workspace/use-workspace-keys';

interface WorkspaceProps {
  /** The app and the open folder (the folder gate renders a Workspace only once one is open). */
  info: AppInfo;
  /** Offers another folder (`Open folder` in the header). */
  onOpenFolder(): void;
}

export function Workspace({ info, onOpenFolder }: WorkspaceProps): React.JSX.Element {
  const { status } = useConnection();
  const { settings } = useSettings();
  const theme = useTheme(settings?.theme);
  const list = useThreads();
  const session = useThreadSession();
  const mode = useMode();
  const dialogs = useDialogs(session.threadId);
  const panels = useSidePanels(session.attachment);
  const thread = useOpenThread(info, session, list, dialogs.closeUsage, panels.setDrawer);
  useWorkspaceKeys(panels);
  const { togglePanel, setDrawer, narrow } = panels;
  const showMemories = useCallback(() => {
    togglePanel('Memories', false);
    if (narrow) setDrawer('Memories');
  }, [togglePanel, setDrawer, narrow]);
  const memoriesNav = useMemoriesNavValue(showMemories, thread.openThread);

  return (
    <CheckpointsProvider threadId={session.threadId} running={session.state.running}>
      <FileLinkContext.Provider value={panels.openPath}>
        <MemoriesNavContext.Provider value={memoriesNav}>
          <div className={`app theme-${theme}${panels.narrow ? ' narrow' : ''}`}>
            <AppHeader
              folderName={info.folderName}
              folder={info.folder ?? ''}
              host={info.host}
              model={settings?.model ?? ''}
              agent={thread.currentSummary?.agent}
              connection={status}
              onOpenFolder={onOpenFolder}
              onOpenSettings={() => dialogs.openSettings()}
              usageShown={dialogs.usageShown}
              onToggleUsage={dialogs.toggleUsage}
              mode={mode}
              threadId={session.threadId}
            />
            <div className="app-body">
              <LeftPanels panels={panels} thread={thread} session={session} folderName={info.folderName} />
              <ThreadPane info={info} session={session} thread={thread} dialogs={dialogs} panels={panels} theme={theme} mode={mode} />
              <RightPanels panels={panels} />
            </div>
          </div>
          <DialogHost dialogs={dialogs} folder={info.folder ?? ''} />
        </MemoriesNavContext.Provider>
      </FileLinkContext.Provider>
    </CheckpointsProvider>
  );
}
