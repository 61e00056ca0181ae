// Settings › Agent Protocol (SPEC §19): the LangGraph API the agent host serves for other apps
// and agents, off until an address is set. Part of the Settings draft: nothing is saved
// before `Save settings`.

import { useId } from 'react';
import type { AgentProtocolDraft } from '../lib/agent-protocol-settings';

interface AgentProtocolSettingsProps {
  draft: AgentProtocolDraft;
  onChange(patch: Partial<AgentProtocolDraft>): void;
}

export function AgentProtocolSettings({ draft, onChange }: AgentProtocolSettingsProps): React.JSX.Element {
  const ids = useId();
  return (
    <fieldset className="settings-section">
      <legend>Agent Protocol</legend>
      <p className="muted small" id={`${ids}-about`}>
        The agent host serves LangGraph&apos;s API here, for the LangGraph SDK, useStream apps and Deep Agents&apos; async subagents. Empty: nothing listens. These
        settings apply from the host&apos;s next start (for the desktop app: once you quit it). Clients send the key that <code>deepdesk host --print-key</code>{' '}
        prints; <code>--rotate-key</code> replaces it at once.
      </p>
      <div className="field">
        <label htmlFor={`${ids}-listen`}>Listen on</label>
        <input
          id={`${ids}-listen`}
          value={draft.protocolListenText}
          placeholder="127.0.0.1:2024"
          spellCheck={false}
          autoComplete="off"
          aria-describedby={`${ids}-about`}
          onChange={(e) => onChange({ protocolListenText: e.target.value })}
        />
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={draft.protocolAllowRemote} onChange={(e) => onChange({ protocolAllowRemote: e.target.checked })} />
        Allow other computers
      </label>
      <div className="field">
        <label htmlFor={`${ids}-origins`}>Allowed browser origins</label>
        <textarea
          id={`${ids}-origins`}
          className="mono"
          rows={3}
          value={draft.protocolOriginsText}
          placeholder="http://localhost:3000"
          spellCheck={false}
          aria-describedby={`${ids}-origins-note`}
          onChange={(e) => onChange({ protocolOriginsText: e.target.value })}
        />
        <p className="muted small" id={`${ids}-origins-note`}>
          One a line, as the browser sends it (scheme://host[:port]).
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${ids}-folder`}>Default folder</label>
        <input
          id={`${ids}-folder`}
          className="mono"
          value={draft.protocolFolderText}
          placeholder="/path/to/project"
          spellCheck={false}
          autoComplete="off"
          aria-describedby={`${ids}-folder-note`}
          onChange={(e) => onChange({ protocolFolderText: e.target.value })}
        />
        <p className="muted small" id={`${ids}-folder-note`}>
          Where a run works when its request names no folder (an absolute path; <code>deepdesk host --folder</code> wins). Deep Agents&apos; async subagents name none: they
          need it.
        </p>
      </div>
    </fieldset>
  );
}
