// The window: providers for the transport, toasts, the Agents view (every folder's) and
// settings around the workspace of the open folder (or the `Open folder` screen while none is).

import { ErrorBoundary } from './components/ErrorBoundary';
import { AgentsProvider } from './state/agents-context';
import { FolderGate } from './components/FolderGate';
import { ExternalLinkProvider } from './state/external-links';
import { FileNotices } from './state/use-file-notices';
import { Workspace } from './components/Workspace';
import { SettingsProvider } from './state/settings-context';
import { ToastProvider } from './state/toasts';
import { TransportProvider, type AppTransport } from './state/transport-context';

export function App({ transport }: { transport: AppTransport }): React.JSX.Element {
  return (
    <TransportProvider transport={transport}>
      <ToastProvider>
        <ExternalLinkProvider>
          <FileNotices />
          <AgentsProvider>
            <FolderGate>
              {(info, openFolder) => (
                <SettingsProvider>
                  <ErrorBoundary name="Deepdesk">
                    <Workspace info={info} onOpenFolder={openFolder} />
                  </ErrorBoundary>
                </SettingsProvider>
              )}
            </FolderGate>
          </AgentsProvider>
        </ExternalLinkProvider>
      </ToastProvider>
    </TransportProvider>
  );
}
