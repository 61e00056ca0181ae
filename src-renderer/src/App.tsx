// The window: providers for the transport, toasts and settings around the workspace.

import { Workspace } from './components/Workspace';
import { SettingsProvider } from './state/settings-context';
import { ToastProvider } from './state/toasts';
import { TransportProvider, type AppTransport } from './state/transport-context';

export function App({ transport }: { transport: AppTransport }): React.JSX.Element {
  return (
    <TransportProvider transport={transport}>
      <ToastProvider>
        <SettingsProvider>
          <Workspace />
        </SettingsProvider>
      </ToastProvider>
    </TransportProvider>
  );
}
