// Settings › Agent Protocol (SPEC §19): the LangGraph API the agent host serves for other apps
// and agents, off until an address is set. Part of the Settings draft: nothing is saved
// before `Save settings`.

import { useCallback, useEffect, useId, useState } from 'react';
import type { AgentProtocolStatus } from '../../../src-main/app/contract';
import type { AgentProtocolDraft } from '../lib/agent-protocol-settings';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { CopyButton } from './CopyButton';
import { TextField } from './TextField';

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
        settings apply from the host&apos;s next start (for the desktop app: once you quit it). Clients send the key below (<code>deepdesk host --print-key</code>{' '}
        prints it too); whoever holds it can reach every folder you opened and your memories.
      </p>
      <ProtocolNow />
      <TextField id={`${ids}-listen`} label="Listen on" value={draft.protocolListenText} placeholder="127.0.0.1:2024" spellCheck={false} autoComplete="off" aria-describedby={`${ids}-about`} onValue={(text) => onChange({ protocolListenText: text })} />
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
      <TextField id={`${ids}-folder`} label="Default folder" className="mono" value={draft.protocolFolderText} placeholder="/path/to/project" spellCheck={false} autoComplete="off" onValue={(text) => onChange({ protocolFolderText: text })} linkHelp
        help={
          <>
            Where a run works when its request names no folder (an absolute path; <code>deepdesk host --folder</code> wins). Deep Agents&apos; async subagents name none: they
            need it.
          </>
        }
      />
    </fieldset>
  );
}

/** Whether the agent host listens now, where, and its key: copied, or rotated (the old key is refused at once). */
function ProtocolNow(): React.JSX.Element {
  const api = useApi();
  const ids = useId();
  const [status, setStatus] = useState<AgentProtocolStatus | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [rotated, setRotated] = useState(false);
  const read = useCallback(
    (method: 'agentProtocol.status' | 'agentProtocol.rotateKey') =>
      api.call(method, {}).then(
        (now) => {
          setStatus(now);
          setProblem(undefined);
          return true;
        },
        (err: unknown) => {
          setProblem(errorMessage(err));
          return false;
        },
      ),
    [api],
  );
  useEffect(() => {
    void read('agentProtocol.status');
  }, [read]);
  if (problem !== undefined && status === undefined) return <p className="muted small">The Agent Protocol&apos;s state could not be read: {problem}</p>;
  if (status === undefined) return <p className="muted small">Reading the Agent Protocol&apos;s state…</p>;
  return (
    <div className="protocol-now">
      <p role="status" aria-label="Agent Protocol status" className="small">
        {status.listening.length > 0 ? `Listening on ${status.listening.join(', ')}` : 'Not listening now'}
      </p>
      <div className="field">
        <label htmlFor={`${ids}-key`}>Protocol key</label>
        <div className="row">
          <input id={`${ids}-key`} className="mono" type="password" readOnly value={status.key} autoComplete="off" spellCheck={false} />
          <CopyButton text={status.key} label="Copy key" />
          <button
            type="button"
            onClick={() => {
              setRotated(false);
              void read('agentProtocol.rotateKey').then(setRotated);
            }}
          >
            Rotate key
          </button>
        </div>
        {problem !== undefined ? <p className="error small">{problem}</p> : null}
        {rotated ? <p className="muted small">A new key: the old one is refused from now on. Give the new one to the clients that should keep access.</p> : null}
      </div>
    </div>
  );
}
