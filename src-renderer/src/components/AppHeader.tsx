// The top bar: the folder, the approval mode, the model in use, the connection, the Usage view's
// button and the settings button.

import type { ModeApi } from '../state/use-mode';
import type { ConnectionStatus } from '../state/transport-context';
import { Icon } from './Icon';
import { ModeChooser } from './ModeChooser';
import { ModeControl } from './ModeControl';

interface AppHeaderProps {
  folderName: string;
  folder: string;
  /** A remote folder's `[USER@]HOST[:PORT]`: the header marks it as remote. */
  host?: string | undefined;
  model: string;
  /** The open thread's agent when it is another one (SPEC §22): named in the model's place, whose model it is not. */
  agent?: string | undefined;
  connection: ConnectionStatus;
  /** Offers another folder: recent ones, a path, the native dialog in the desktop app. */
  onOpenFolder(): void;
  onOpenSettings(): void;
  /** Whether the Usage view is shown (in the conversation's place); the button shows or hides it. */
  usageShown: boolean;
  onToggleUsage(): void;
  mode: ModeApi;
  /** The open thread: the offer of modes, opened by itself, closes when another one opens. */
  threadId?: string | null;
}

export function AppHeader({ folderName, folder, host, model, agent, connection, onOpenFolder, onOpenSettings, usageShown, onToggleUsage, mode, threadId = null }: AppHeaderProps): React.JSX.Element {
  return (
    <header className="app-header" data-region="Header">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        <span className="brand-name">Deepdesk</span>
      </div>
      <div className="header-folder" title={folder}>
        <Icon name="folder" size={14} />
        <span className="header-folder-name">{folderName || folder || '…'}</span>
        {host !== undefined ? (
          <span className="badge header-remote" role="img" aria-label={`Remote folder on ${host}`} title={`On ${host}, over SSH`}>
            Remote · {host}
          </span>
        ) : null}
        <button type="button" className="btn btn-small btn-quiet header-open-folder" onClick={onOpenFolder} title="Open another folder">
          <Icon name="folderOpen" size={14} />
          {/* Only the icon shows on a narrow window; the name stays for assistive technology and tests. */}
          <span className="header-open-folder-label">Open folder</span>
        </button>
      </div>
      <span className="spacer" />
      {/* With no model yet, `Open settings` is the first step: the offer waits behind its button. */}
      <ModeChooser mode={mode} waiting={model.trim() === ''} threadId={threadId} />
      <ModeControl state={mode.state} onChange={(m) => void mode.setMode(m)} />
      {connection !== 'open' ? (
        <span className="connection" role="status" title={connectionText(connection)}>
          {connectionText(connection)}
        </span>
      ) : null}
      {agent !== undefined ? (
        <span className="model-chip agent-chip" role="note" aria-label={`Agent ${agent}`} title={`This thread's agent is ${agent}: it works with its own model and sign-in, not Deepdesk's model`}>
          <Icon name="users" size={13} />
          Agent: {agent}
        </span>
      ) : (
        <button type="button" className={`model-chip${model ? '' : ' missing'}`} onClick={onOpenSettings} title="Change the model" aria-label={model ? `Model ${model}` : 'No model configured'}>
          {model || 'No model'}
        </button>
      )}
      <button type="button" className="btn btn-quiet header-usage" onClick={onToggleUsage} aria-pressed={usageShown} title={usageShown ? 'Back to the conversation' : 'Model calls, tokens and cost by thread, day and model'}>
        <Icon name="chart" size={15} />
        {/* Only the icon shows on a narrow window; the name stays for assistive technology and tests. */}
        <span className="header-usage-label">Usage</span>
      </button>
      <button type="button" className="btn btn-quiet header-settings" onClick={onOpenSettings} title="Settings">
        <Icon name="gear" size={15} />
        <span className="header-settings-label">Settings</span>
      </button>
    </header>
  );
}

function connectionText(connection: string): string {
  return connection === 'connecting' ? 'Connecting…' : connection === 'gone' ? 'Disconnected' : 'Disconnected — reconnecting…';
}
