// `Commit…` of a worktree: a message, then everything in the worktree committed on its branch
// (the person's own branch does not move). A refusal (nothing to commit, git not knowing who
// the person is) is said in the dialog, which stays open.

import { useId, useState } from 'react';
import type { Result } from '../../../src-main/app/contract';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { Spinner } from './Icon';
import { FormActions, Modal, submitted } from './Modal';
import { FormMessage } from './ErrorText';

interface CommitDialogProps {
  branch: string;
  onCommitted(result: Result<'worktrees.commit'>): void;
  onCancel(): void;
}

export function CommitDialog({ branch, onCommitted, onCancel }: CommitDialogProps): React.JSX.Element {
  const api = useApi();
  const messageFieldId = useId();
  const noteId = useId();
  const [message, setMessage] = useState('');
  const [committing, setCommitting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const commit = async (): Promise<void> => {
    if (committing) return;
    if (message.trim() === '') {
      setError('Write a commit message first.');
      return;
    }
    setCommitting(true);
    setError(null);
    try {
      onCommitted(await api.call('worktrees.commit', { message: message.trim() }));
    } catch (err) {
      setCommitting(false);
      setError(errorMessage(err));
    }
  };

  return (
    <Modal label="Commit" title="Commit" onEscape={committing ? undefined : onCancel} className="commit-dialog">
      <form onSubmit={submitted(commit)}>
        <div className="field">
          <label htmlFor={messageFieldId}>Commit message</label>
          <textarea
            id={messageFieldId}
            rows={4}
            value={message}
            readOnly={committing}
            aria-invalid={error !== null}
            aria-describedby={noteId}
            data-autofocus
            onChange={(e) => {
              setMessage(e.target.value);
              setError(null);
            }}
            onKeyDown={(e) => {
              // Ctrl/Cmd+Enter commits; Enter alone makes a new line.
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void commit();
              }
            }}
          />
        </div>
        <FormMessage id={noteId} error={error} live>
          {committing ? (
            <>
              <Spinner /> Committing…
            </>
          ) : (
            <>
              Every change in the worktree is committed on <span className="mono">{branch}</span>. Ctrl+Enter commits.
            </>
          )}
        </FormMessage>
        <FormActions submit="Commit" blocked={committing} working={committing} onCancel={onCancel} />
      </form>
    </Modal>
  );
}
