// `New thread with…` (SPEC §22): under New thread once an agent can start (a row of its own: its
// name stays whole however narrow the list), a thread whose
// agent is another one over ACP — an installed agent of the catalog or a command added in
// Settings › Agents. The thread
// opens with the keyboard in its message box; its first message starts the agent.

import { useId, useState } from 'react';
import { useApi } from '../state/use-api';
import { useBusy } from '../state/use-busy';
import { useExternalAgents } from './AgentsSettings';
import { Icon } from './Icon';
import { Modal } from './Modal';
import { Options } from './TextField';

export function NewThreadWithButton({ onCreated }: { onCreated(id: string): void }): React.JSX.Element | null {
  const [open, setOpen] = useState(false);
  const [list] = useExternalAgents();
  // Shown once an agent can start (installed, or a command added in Settings › Agents): before
  // that, Settings › Agents is the way, and the list keeps one way to start a thread.
  if (!open && !(list ?? []).some((a) => a.installed)) return null;
  return (
    <div className="new-thread-with">
      <button type="button" className="btn btn-small" onClick={() => setOpen(true)}>
        <Icon name="users" size={14} />
        New thread with…
      </button>
      {open ? (
        <NewThreadWithDialog
          onClose={() => setOpen(false)}
          onCreated={(id) => {
            setOpen(false);
            onCreated(id);
          }}
        />
      ) : null}
    </div>
  );
}

function NewThreadWithDialog({ onClose, onCreated }: { onClose(): void; onCreated(id: string): void }): React.JSX.Element {
  const api = useApi();
  const selectId = useId();
  const [list] = useExternalAgents();
  const usable = (list ?? []).filter((a) => a.installed);
  const [chosen, setChosen] = useState<string>('');
  const [busy, run] = useBusy();
  const name = chosen || usable[0]?.name || '';

  const start = async (): Promise<void> => {
    if (name === '' || busy) return;
    const made = await run(() => api.safe('threads.create', { agent: name }));
    if (made) onCreated(made.id);
  };

  return (
    <Modal label="New thread with…" title="New thread with…" onEscape={busy ? undefined : onClose} className="new-thread-with-dialog">
      {list === null ? <p className="muted small">Loading…</p> : null}
      {list !== null && usable.length === 0 ? <p className="muted small">No agent is installed yet: install one (or add a command) in Settings › Agents.</p> : null}
      {usable.length > 0 ? (
        <div className="field">
          <label htmlFor={selectId}>Agent</label>
          <select id={selectId} value={name} onChange={(e) => setChosen(e.target.value)}>
            <Options options={usable.map((a) => ({ value: a.name, label: a.label }))} />
          </select>
        </div>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={busy || name === ''}>
          Start
        </button>
      </div>
    </Modal>
  );
}
