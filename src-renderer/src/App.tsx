// The window: providers for the transport, toasts and settings around the workspace.

import { ErrorBoundary } from './components/ErrorBoundary';
import { FileNotices } from './state/use-file-notices';
import { Workspace } from './components/Workspace';
import { SettingsProvider } from './state/settings-context';
import { ToastProvider } from './state/toasts';
import { TransportProvider, type AppTransport } from './state/transport-context';

export function App({ transport }: { transport: AppTransport }): React.JSX.Element {
  return (
    <TransportProvider transport={transport}>
      <ToastProvider>
        <FileNotices />
        <SettingsProvider>
          <ErrorBoundary name="Deepdesk">
            <Workspace />
          </ErrorBoundary>
        </SettingsProvider>
      </ToastProvider>
    </TransportProvider>
  );
}
