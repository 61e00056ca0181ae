// Asked before a restore would discard the person's own changes: the files they changed
// after the agent did, and what to do with them. Paths the restore refuses (through a link
// in a parent folder, or into .git: SPEC §8) are listed too; no choice restores them.

import { Modal } from './Modal';

export interface ConflictPrompt {
  title: string;
  conflicts: ReadonlyArray<{ path: string; reason: string; refused?: boolean }>;
  decide(choice: 'keep-mine' | 'take-restore' | 'cancel'): void;
}

export function ConflictDialog({ prompt }: { prompt: ConflictPrompt }): React.JSX.Element {
  const refused = prompt.conflicts.filter((c) => c.refused).length;
  const n = prompt.conflicts.length - refused;
  return (
    <Modal label="Files changed since the agent’s change" role="alertdialog" onEscape={() => prompt.decide('cancel')} className="confirm-dialog conflict-dialog" title={prompt.title}>
      <p className="confirm-message">
        {n > 0 ? `${n === 1 ? 'This file was' : `These ${n} files were`} changed after the agent changed ${n === 1 ? 'it' : 'them'}. Restoring would discard those changes.` : null}
        {n > 0 && refused > 0 ? ' ' : null}
        {refused > 0 ? `${refused === 1 ? 'One path goes' : `${refused} paths go`} through a link or into .git: never restored, whatever you choose.` : null}
      </p>
      <ul className="conflict-list" aria-label="Conflicting files">
        {prompt.conflicts.map((c) => (
          <li key={c.path}>
            <span className="mono">{c.path}</span> <span className="muted">— {c.reason}</span>
          </li>
        ))}
      </ul>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={() => prompt.decide('cancel')} data-autofocus>
          Cancel
        </button>
        <button type="button" className="btn" onClick={() => prompt.decide('keep-mine')}>
          Keep mine
        </button>
        <button type="button" className="btn btn-danger" onClick={() => prompt.decide('take-restore')}>
          Take the restore
        </button>
      </div>
    </Modal>
  );
}
