// The top bar: the folder, the approval mode, the model in use, the connection, and the settings button.

import type { ModeApi } from '../state/use-mode';
import type { ConnectionStatus } from '../state/transport-context';
import { Icon } from './Icon';
import { ModeChooser } from './ModeChooser';
import { ModeControl } from './ModeControl';

interface AppHeaderProps {
  folderName: string;
  folder: string;
  canPickFolder: boolean;
  model: string;
  connection: ConnectionStatus;
  onPickFolder(): void;
  onOpenSettings(): void;
  mode: ModeApi;
}

export function AppHeader({ folderName, folder, canPickFolder, model, connection, onPickFolder, onOpenSettings, mode }: AppHeaderProps): React.JSX.Element {
  return (
    <header className="app-header">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        <span className="brand-name">Deepdesk</span>
      </div>
      <div className="header-folder" title={folder}>
        <Icon name="folder" size={14} />
        <span className="header-folder-name">{folderName || folder || '…'}</span>
        {canPickFolder ? (
          <button type="button" className="btn btn-small btn-quiet" onClick={onPickFolder}>
            Open folder…
          </button>
        ) : null}
      </div>
      <span className="spacer" />
      <ModeChooser mode={mode} />
      <ModeControl state={mode.state} onChange={(m) => void mode.setMode(m)} />
      {connection !== 'open' ? (
        <span className="connection" role="status">
          {connection === 'connecting' ? 'Connecting…' : 'Disconnected — reconnecting…'}
        </span>
      ) : null}
      <button type="button" className={`model-chip${model ? '' : ' missing'}`} onClick={onOpenSettings} title="Change the model" aria-label={model ? `Model ${model}` : 'No model configured'}>
        {model || 'No model'}
      </button>
      <button type="button" className="btn btn-quiet" onClick={onOpenSettings}>
        <Icon name="gear" size={15} />
        Settings
      </button>
    </header>
  );
}
