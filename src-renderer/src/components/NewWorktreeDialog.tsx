// `New thread in a worktree` (SPEC §16): beside New thread when the folder is a local git
// repository. The dialog asks for an optional name and, when the folder has uncommitted
// changes, offers to carry them over (off, as `run --worktree` without --carry-changes);
// creating makes the worktree, opens its folder in this
// window (the folder gate makes the workspace anew) and the new folder's workspace starts a
// thread there with the keyboard in its message box.

import { useEffect, useId, useRef, useState } from 'react';
import { fileCount as files } from '../lib/worktrees';
import { errorMessage, useToasts } from '../state/toasts';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { IconButton, Spinner } from './Icon';
import { FormActions, Modal, submitted } from './Modal';
import { FormMessage } from './ErrorText';
import '../styles/worktrees.css';

/** Whether a worktree can be made of the open folder (a local git repository, not a worktree itself): false until known. */
export function useCanMakeWorktree(): boolean {
  const api = useApi();
  const [possible, setPossible] = useState(false);
  useEffect(() => whileCurrent(api.call('worktrees.canCreate', { count: false }), (can) => setPossible(can.git)), [api]);
  return possible;
}

/** The button, shown once the folder is known to be a git repository, and its dialog. */
export function NewWorktreeButton(): React.JSX.Element | null {
  const possible = useCanMakeWorktree();
  const [open, setOpen] = useState(false);
  if (!possible) return null;
  return (
    <>
      <IconButton icon="branch" size={15} className="new-worktree" aria-label="New thread in a worktree" title="New thread in a worktree" onClick={() => setOpen(true)} />
      {open ? <NewWorktreeDialog onClose={() => setOpen(false)} /> : null}
    </>
  );
}

export function NewWorktreeDialog({ onClose }: { onClose(): void }): React.JSX.Element {
  const api = useApi();
  const { push } = useToasts();
  const nameId = useId();
  const hintId = useId();
  const messageId = useId();
  const nameField = useRef<HTMLInputElement>(null);
  const [name, setName] = useState('');
  /** Files differing from HEAD (null while counted). */
  const [uncommitted, setUncommitted] = useState<number | null>(null);
  const [carry, setCarry] = useState(false);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(
    () =>
      whileCurrent(
        api.call('worktrees.canCreate', {}),
        (can) => {
          setUncommitted(can.uncommitted ?? 0);
          if (!can.git && can.why) setError(can.why);
        },
        (err) => {
          setUncommitted(0);
          setError(errorMessage(err));
        },
      ),
    [api],
  );

  const create = async (): Promise<void> => {
    if (creating || uncommitted === null) return;
    setCreating(true);
    setError(null);
    try {
      const wanted = name.trim();
      const made = await api.call('worktrees.create', { ...(wanted !== '' ? { name: wanted } : {}), carry: carry && (uncommitted ?? 0) > 0 });
      const carried = made.carried > 0 ? ` with ${files(made.carried)} carried over` : '';
      push(`Made worktree ${made.name} on branch ${made.branch}${carried}; a new thread opens in it.`, 'info');
      // The folder gate makes this window's workspace anew on the worktree's folder: this dialog goes with the old one.
      await api.call('app.openFolder', { path: made.threadFolder });
    } catch (err) {
      setCreating(false);
      setError(errorMessage(err));
      nameField.current?.focus();
    }
  };

  const shownBranch = `deepdesk/${name.trim() === '' ? '…' : name.trim()}`;
  return (
    <Modal label="New thread in a worktree" title="New thread in a worktree" onEscape={creating ? undefined : onClose} className="new-worktree-dialog">
      <form onSubmit={submitted(create)}>
        <p className="muted worktree-intro">
          The agent works in a folder of its own (a git worktree on a new branch from this folder’s last commit), so this folder stays as it is until you apply the changes.
        </p>
        <div className="field">
          <label htmlFor={nameId}>Name (optional)</label>
          <input
            id={nameId}
            ref={nameField}
            className="mono"
            value={name}
            placeholder="made up when empty"
            spellCheck={false}
            autoComplete="off"
            maxLength={63}
            readOnly={creating}
            aria-invalid={error !== null}
            aria-describedby={`${hintId} ${messageId}`}
            data-autofocus
            onChange={(e) => {
              setName(e.target.value);
              setError(null);
            }}
          />
          <p id={hintId} className="muted small">
            Lowercase letters, digits, <span className="mono">.</span> <span className="mono">_</span> and <span className="mono">-</span>. Branch: <span className="mono">{shownBranch}</span>
          </p>
        </div>
        {uncommitted === null ? (
          <p className="muted small">
            <Spinner /> Looking for uncommitted changes…
          </p>
        ) : uncommitted > 0 ? (
          <label className="checkbox worktree-carry">
            <input type="checkbox" checked={carry} disabled={creating} onChange={(e) => setCarry(e.target.checked)} /> Carry over uncommitted changes ({files(uncommitted)})
          </label>
        ) : null}
        <FormMessage id={messageId} error={error} live>
          {creating ? (
            <>
              <Spinner /> Making the worktree…
            </>
          ) : null}
        </FormMessage>
        <FormActions submit="Create worktree" blocked={creating || uncommitted === null} working={creating} onCancel={onClose} />
      </form>
    </Modal>
  );
}
