// Settings › Agents (SPEC §22): the catalog of known ACP agents with their pinned versions,
// each installed into Deepdesk's data folder only once the person confirms it; what each
// agent's `initialize` reported when it last started; and commands the person adds as agents.
// These apply at once (an install, an added command).

import { useCallback, useEffect, useId, useState } from 'react';
import type { ExternalAgentDto } from '../../../src-main/app/contract';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { useEvent } from '../state/transport-context';
import { TransportError } from '../transport/errors';
import { VisibleText } from './VisibleText';
import { TextField } from './TextField';
import { ErrorAlert } from './ErrorText';
import { commandWords } from './McpSettings';

/** The external agents (the catalog and the added commands), loaded and kept here. */
/** Every open list of agents hears of an install or an added command (the thread list's *New thread with…* too). */
const agentListeners = new Set<() => void>();

export function useExternalAgents(): [ExternalAgentDto[] | null, (list: ExternalAgentDto[]) => void] {
  const api = useApi();
  const [list, setList] = useState<ExternalAgentDto[] | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const changed = (): void => setVersion((v) => v + 1);
    agentListeners.add(changed);
    return () => {
      agentListeners.delete(changed);
    };
  }, []);
  useEffect(() => whileCurrent(api.call('externalAgents.list', {}), setList, () => setList([])), [api, version]);
  const replace = useCallback((next: ExternalAgentDto[]) => {
    setList(next);
    for (const listener of agentListeners) listener();
  }, []);
  return [list, replace];
}

export function AgentsSettings(): React.JSX.Element {
  const api = useApi();
  const titleId = useId();
  const [list, setList] = useExternalAgents();
  const [confirming, setConfirming] = useState<string | null>(null);
  const [installing, setInstalling] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Each install's latest line: npm's progress while it goes on, then what happened. */
  const [progress, setProgress] = useState<Readonly<Record<string, { line: string; done: boolean }>>>({});
  useEvent('externalAgents.progress', ({ name: agent, line, done }) => {
    setProgress((all) => ({ ...all, [agent]: { line, done } }));
    if (done) for (const listener of agentListeners) listener();
  });
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');

  const install = useCallback(
    async (agent: ExternalAgentDto): Promise<void> => {
      setConfirming(null);
      setInstalling(agent.name);
      setError(null);
      try {
        setList(await api.call('externalAgents.install', { name: agent.name }));
      } catch (err) {
        // An install that failed says so on its row; what is left is a call that never got there.
        if (!(err instanceof TransportError && err.code === 'failed')) setError(err instanceof Error ? err.message : String(err));
      } finally {
        setInstalling(null);
      }
    },
    [api, setList],
  );

  const add = async (): Promise<void> => {
    const [cmd, ...args] = commandWords(command.trim());
    if (name.trim() === '') return setError('Give the agent a name.');
    if (cmd === undefined) return setError('Enter the command that starts the agent (it speaks ACP on its stdio).');
    setError(null);
    try {
      setList(await api.call('externalAgents.add', { name: name.trim(), command: cmd, args, env: {} }));
      setName('');
      setCommand('');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <section className="settings-section agents-settings" aria-labelledby={titleId}>
      <h3 id={titleId} className="settings-section-title">
        Agents
      </h3>
      <p className="muted small">
        Other agents run as threads (New thread with…) under this folder&apos;s sandbox, rules, approvals and budget. A known agent is installed, at its pinned version, into Deepdesk&apos;s data folder, never the project.
      </p>
      {list === null ? <p className="muted small">Loading…</p> : null}
      {list && list.length > 0 ? (
        <ul className="agents-list" aria-label="Agents">
          {list.map((agent) => (
            <li key={agent.name} className="agents-item">
              <div>
                <strong>
                  <VisibleText text={agent.label} />
                </strong>{' '}
                {agent.kind === 'known' ? (
                  <span className="muted small">
                    {agent.packageName}@{agent.version} · {agent.installed ? 'Installed' : 'Not installed'}
                  </span>
                ) : (
                  <span className="muted small mono">
                    <VisibleText text={agent.command ?? ''} />
                  </span>
                )}
              </div>
              {agent.reported ? (
                <p className="muted small agents-reported">
                  Reported: <VisibleText text={[agent.reported.agentName, agent.reported.agentVersion].filter(Boolean).join(' ') || 'no name'} />
                  {' · offers '}
                  <VisibleText text={agent.reported.capabilities.length > 0 ? agent.reported.capabilities.join(', ') : 'nothing more'} />
                </p>
              ) : null}
              {agent.kind === 'known' && !agent.installed ? (
                confirming === agent.name ? (
                  <div role="group" aria-label={`Install ${agent.label}?`} className="agents-confirm">
                    <span className="small">
                      Install {agent.packageName}@{agent.version} from the npm registry into Deepdesk&apos;s data folder? No install scripts run.
                    </span>{' '}
                    <button type="button" className="btn btn-small btn-primary" onClick={() => void install(agent)}>
                      Install
                    </button>{' '}
                    <button type="button" className="btn btn-small" onClick={() => setConfirming(null)}>
                      Cancel
                    </button>
                  </div>
                ) : (
                  <button type="button" className="btn btn-small" disabled={installing !== null || agent.installing === true} aria-label={`Install ${agent.label}`} onClick={() => setConfirming(agent.name)}>
                    {installing === agent.name || agent.installing === true ? 'Installing…' : 'Install…'}
                  </button>
                )
              ) : null}
              {progress[agent.name] ? (
                <p role="status" className="muted small agents-progress">
                  {progress[agent.name]!.done ? '' : 'Installing… '}
                  <VisibleText text={progress[agent.name]!.line} />
                </p>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <div className="agents-add">
        <TextField id={`${titleId}-name`} label="Agent name" value={name} onValue={setName} placeholder="my-agent" />
        <TextField id={`${titleId}-command`} label="Agent command" value={command} onValue={setCommand} placeholder="npx my-agent --acp" />
        <button type="button" className="btn btn-small" onClick={() => void add()}>
          Add agent
        </button>
      </div>
      <ErrorAlert error={error} />
    </section>
  );
}
