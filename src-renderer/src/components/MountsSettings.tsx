// Settings › Mounts (SPEC §13): the folders and git remotes added to the agent's paths, with
// where each comes from (a --mount flag is shown, not editable), add and remove (applied at
// once, to the next tool call of every thread), a git mount's history (the agent's commits),
// and the memories store (saved with Save settings, used from the next time the folder opens).

import { useId, useState } from 'react';
import { memoriesStoreTextError, savedMountError, type MountCommitDto, type MountInfoDto, type MountsListDto } from '../../../src-main/app/contract';
import { useApi } from '../state/use-api';
import { errorMessage } from '../state/toasts';
import { useListChange } from '../state/use-list-change';
import { useLiveValue } from '../state/use-live-value';
import { useEvent } from '../state/transport-context';
import { FlagNote } from './FlagNote';
import { VisibleText } from './VisibleText';
import { TextField } from './TextField';
import { capitalized } from '../lib/format';
import { ErrorAlert } from './ErrorText';
import { ListSection } from './ListSection';

export interface MountsSettingsProps {
  memoriesStore: string;
  /** The memories store is set by --memories-store for this session. */
  memoriesStoreFlag: boolean;
  onMemoriesStoreChange(value: string): void;
}

export function MountsSettings({ memoriesStore, memoriesStoreFlag, onMemoriesStoreChange }: MountsSettingsProps): React.JSX.Element {
  const api = useApi();
  const [list, set] = useLiveValue('mounts.list', 'mounts.changed');
  const ids = useId();
  const [prefix, setPrefix] = useState('');
  const [spec, setSpec] = useState('');
  const { error, setError, run } = useListChange(set);
  const storeProblem = memoriesStoreFlag ? null : memoriesStoreTextError(memoriesStore);

  const add = async (): Promise<void> => {
    const why = savedMountError(prefix.trim(), spec.trim());
    if (why !== null) return setError(`${capitalized(why)}.`);
    if (await run(() => api.call('mounts.add', { prefix: prefix.trim(), spec: spec.trim() }))) {
      setPrefix('');
      setSpec('');
    }
  };

  return (
    <ListSection title="Mounts" className="mounts-settings" about="Folders and git remotes the agent sees as paths such as /docs/. Adding or removing one applies at once, to the next tool call. A git remote is cloned into the data folder; each step's changes there are one commit, pushed." items={list?.mounts} empty="No mounts yet." listLabel="Mounts in force" after={<>
      <div className="mcp-add">
        <TextField id={`${ids}-prefix`} label="Mount prefix" className="mono" value={prefix} placeholder="/docs/" onValue={setPrefix} />
        <TextField id={`${ids}-spec`} label="Mount source" className="mono" value={spec} placeholder="ro:~/docs  or  /abs/folder  or  git+ssh://git@host/repo.git#main" onValue={setSpec} />
        <button type="button" className="btn" onClick={() => void add()}>Add mount</button>
      </div>
      <ErrorAlert error={error} />
      <div className="field">
        <label htmlFor={`${ids}-memories`}>Memories store</label>
        <input
          id={`${ids}-memories`}
          className="mono"
          value={memoriesStore}
          placeholder="sqlite  or  postgres://user@host:5432/team"
          disabled={memoriesStoreFlag}
          aria-invalid={storeProblem !== null}
          aria-describedby={`${ids}-memories-help`}
          onChange={(e) => onMemoriesStoreChange(e.target.value)}
        />
        {memoriesStoreFlag ? <FlagNote id={`${ids}-memories-flag`} field="memoriesStore" /> : null}
        <p id={`${ids}-memories-help`} className={storeProblem ? 'error-text small' : 'muted small'}>
          {storeProblem ??
            `Where /memories/ lives${list ? ` (now: ${list.memoriesStore})` : ''}: sqlite in the data folder, or a PostgreSQL database a team shares. Put its password in PGPASSWORD or ~/.pgpass, never here. Used from the next time the folder opens.`}
        </p>
      </div>
    </>}>
      {list?.mounts.map((mount) => <MountItem key={mount.prefix} mount={mount} run={run} />)}
    </ListSection>
  );
}

function MountItem({ mount, run }: { mount: MountInfoDto; run(work: () => Promise<MountsListDto>): Promise<boolean> }): React.JSX.Element {
  const api = useApi();
  const [history, setHistory] = useState<MountCommitDto[] | null>(null);
  const [historyError, setHistoryError] = useState<string | null>(null);
  /** The remote is still being cloned: its history is asked for again when the mounts change. */
  const [cloning, setCloning] = useState(false);

  const loadHistory = async (): Promise<void> => {
    setHistoryError(null);
    try {
      const answer = await api.call('mounts.history', { prefix: mount.prefix });
      setCloning(answer.cloning === true);
      setHistory(answer.commits);
    } catch (err) {
      setHistoryError(errorMessage(err));
    }
  };
  const showHistory = async (): Promise<void> => {
    if (history !== null) return setHistory(null);
    await loadHistory();
  };
  useEvent('mounts.changed', () => {
    if (cloning && history !== null) void loadHistory();
  });

  return (
    <li className="mcp-server" aria-label={mount.prefix}>
      <div className="mcp-server-head">
        <strong className="mono">{mount.prefix}</strong>
        <span className="muted small">{mount.kind === 'git' ? 'git remote' : 'folder'}</span>
        {mount.readOnly ? <span className="mcp-unsandboxed">read-only</span> : null}
      </div>
      <div className="mono small mcp-target"><VisibleText text={mount.source} /></div>
      <div className="muted small">{mount.from === 'flag' ? 'Set by --mount for this session (not saved, not editable here)' : 'Saved in Settings'}</div>
      {mount.problem ? <p className="error-text small">Not mounted: {mount.problem}</p> : null}
      <div className="mcp-actions">
        {mount.kind === 'git' ? (
          <button type="button" className="btn btn-small" aria-expanded={history !== null} onClick={() => void showHistory()}>
            {history !== null ? `Hide history of ${mount.prefix}` : `History of ${mount.prefix}`}
          </button>
        ) : null}
        {mount.from === 'settings' ? (
          <button type="button" className="btn btn-small" aria-label={`Remove ${mount.prefix}`} onClick={() => void run(() => api.call('mounts.remove', { prefix: mount.prefix }))}>Remove</button>
        ) : null}
      </div>
      {historyError ? <p className="error-text small">{historyError}</p> : null}
      {history !== null ? (
        cloning ? (
          <p className="muted small" role="status">Still cloning {mount.source}; its history shows here when that is done.</p>
        ) : history.length === 0 ? (
          <p className="muted small">No commits yet.</p>
        ) : (
          <ul className="mount-history" aria-label={`Commits of ${mount.prefix}`}>
            {history.map((c) => (
              <li key={c.commit}>
                <VisibleText text={c.subject} /> <span className="muted small">· {new Date(c.date).toLocaleString()} · {c.commit.slice(0, 8)}</span>
              </li>
            ))}
          </ul>
        )
      ) : null}
    </li>
  );
}
