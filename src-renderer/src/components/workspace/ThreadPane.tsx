// The conversation's column: above the thread the offer of modes, the trust prompt and the way back
// from a candidate's thread; the thread (or the Usage view in its place); the terminal below it.

import { useEffect, useMemo } from 'react';
import type { AppInfo } from '../../../../src-main/app/contract';
import { terminalOnAgentCommand } from '../../lib/layout';
import { useAgents } from '../../state/agents-context';
import { useSettings } from '../../state/settings-context';
import type { ModeApi } from '../../state/use-mode';
import type { ThreadSession } from '../../state/use-thread-session';
import { ConversationPane } from '../ConversationPane';
import { ErrorBoundary } from '../ErrorBoundary';
import { MODE_OFFER_SLOT } from '../ModeChooser';
import { PanelFrame } from '../PanelFrame';
import { TerminalPanel } from '../TerminalPanel';
import { TrustPrompt } from '../TrustPrompt';
import { UsageView } from '../UsageView';
import { TERMINAL_SHORTCUT_HINT } from '../use-terminal-focus';
import type { Dialogs } from './DialogHost';
import { SizeResizer } from './SidePanels';
import type { OpenThread } from './use-open-thread';
import type { SidePanels } from './use-side-panels';

export function ThreadPane(props: { info: AppInfo; session: ThreadSession; thread: OpenThread; dialogs: Dialogs; panels: SidePanels; theme: 'dark' | 'light'; mode: ModeApi }): React.JSX.Element {
  const { info, session, thread, dialogs, panels, theme, mode } = props;
  const { settings } = useSettings();
  const agentsView = useAgents();
  const { layout, setTerminal } = panels;
  const { usageShown, closeUsage } = dialogs;
  const { backTo, currentSummary } = thread;
  const threadIds = useMemo(() => new Set(thread.threads.map((t) => t.id)), [thread.threads]);

  // The agent started a command: show the terminal, unless the person closed it.
  const agentCommand = session.state.running && session.state.items.some((i) => i.kind === 'tool' && i.name === 'execute' && i.output === undefined && i.approval !== 'pending');
  useEffect(() => {
    if (agentCommand) setTerminal(terminalOnAgentCommand);
  }, [agentCommand, setTerminal]);

  return (
    <main className="center">
      <div id={MODE_OFFER_SLOT} className="mode-offer-slot" />
      <TrustPrompt />
      {backTo !== null ? (
        <div className="beside-bar">
          <span className="muted">A candidate’s thread, in its worktree; the window stays on {info.folderName}.</span>
          <button type="button" className="btn btn-small" onClick={() => session.select(backTo.to)}>Back</button>
        </div>
      ) : null}
      <ConversationPane
        session={session}
        sandbox={info.sandbox}
        run={currentSummary}
        source={currentSummary?.source}
        title={thread.title}
        noModel={settings !== null && settings.model.trim() === ''}
        settingsLoaded={settings !== null}
        onOpenSettings={dialogs.openSettings}
        openThreadFile={dialogs.openThreadFile}
        openAttachment={panels.openAttachment}
        hidden={usageShown}
      />
      {usageShown ? (
        <ErrorBoundary name="Usage">
          <UsageView
            threadIds={threadIds}
            onOpenThread={(id) => {
              session.select(id);
              closeUsage('message');
            }}
            onOpenOtherFolderThread={(id) => void agentsView.open(id)}
            onClose={() => closeUsage('opener')}
          />
        </ErrorBoundary>
      ) : null}
      {layout.terminalOpen ? <SizeResizer panels={panels} label="Resize Terminal" size="terminalHeight" direction={-1} /> : null}
      <div ref={panels.terminalRef} className="bottom-panel" style={layout.terminalOpen ? { height: layout.terminalHeight } : undefined}>
        <PanelFrame name="Terminal" collapsed={!layout.terminalOpen} onToggle={() => panels.toggleTerminal()} hint={TERMINAL_SHORTCUT_HINT} keyShortcuts="Control+Shift+`">
          <ErrorBoundary name="Terminal">
            <TerminalPanel threadId={session.threadId} theme={theme} mode={mode} open={layout.terminalOpen} />
          </ErrorBoundary>
        </PanelFrame>
      </div>
    </main>
  );
}
