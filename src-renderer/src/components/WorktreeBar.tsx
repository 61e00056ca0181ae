// The bar above the conversation when the open folder is a worktree (SPEC §16): its branch,
// the folder it was made from (a button goes back there), its changes against its base
// (`Show diff`), and `Apply to folder`, `Commit…` and `Remove worktree`. Results are told as
// notices (read out by screen readers); conflicts and work that would be lost open a dialog.
// Removing it opens the folder it was made from in this window.

import { useState } from 'react';
import type { WorktreeInfoDto } from '../../../src-main/app/contract';
import { fileCount as files } from '../lib/worktrees';
import { errorMessage, useToasts } from '../state/toasts';
import { useApi } from '../state/use-api';
import { useWorktree } from '../state/use-worktree';
import { CommitDialog } from './CommitDialog';
import { ConfirmDialog } from './ConfirmDialog';
import { Icon, Spinner } from './Icon';
import { Modal } from './Modal';
import { PathName } from './PathName';
import { WorktreeDiffDialog } from './WorktreeDiffDialog';
import '../styles/worktrees.css';

type Work = 'apply' | 'remove' | 'open';
type Dialog = { kind: 'diff' } | { kind: 'commit' } | { kind: 'conflicts'; paths: string[] } | { kind: 'lost'; lost: string };

export function WorktreeBar(): React.JSX.Element | null {
  const { info, refresh } = useWorktree();
  if (!info) return null;
  return <Bar info={info} refresh={refresh} />;
}

function Bar({ info, refresh }: { info: WorktreeInfoDto; refresh(): void }): React.JSX.Element {
  const api = useApi();
  const { push } = useToasts();
  const [working, setWorking] = useState<Work | null>(null);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const { name, branch, originName, originFolder } = info;

  /** One operation at a time; a second press while one runs does nothing. */
  const run = async (work: Work, task: () => Promise<void>): Promise<void> => {
    if (working !== null) return;
    setWorking(work);
    try {
      await task();
    } catch (err) {
      push(errorMessage(err));
    } finally {
      setWorking(null);
    }
  };

  const openOrigin = (): Promise<void> => run('open', async () => void (await api.call('app.openFolder', { path: originFolder })));

  const apply = (): Promise<void> =>
    run('apply', async () => {
      const result = await api.call('worktrees.apply', {});
      refresh();
      if (result.conflicts.length > 0) setDialog({ kind: 'conflicts', paths: result.conflicts });
      else if (result.applied.length === 0) push(`Nothing to apply: ${originName} has these changes already.`, 'info');
      else push(`Applied ${files(result.applied.length)} to ${originName}. Its previous state is saved as ${result.savedRef ?? 'a ref'}.`, 'info');
    });

  const remove = (force: boolean): Promise<void> =>
    run('remove', async () => {
      const result = await api.call('worktrees.remove', { force });
      if (!result.removed) {
        setDialog({ kind: 'lost', lost: result.lost ?? 'changes not applied to the folder' });
        return;
      }
      push(`Removed worktree ${name}${result.branchDeleted ? ` and its branch ${branch}` : `; its branch ${branch} was kept`}. Back in ${originName}.`, 'info');
      // The folder gate makes the workspace anew on the folder it was made from.
      await api.call('app.openFolder', { path: result.originFolder });
    });

  const { counts } = info;
  const busy = working !== null;
  const pressed = (work: Work) => (working === work ? <Spinner /> : null);
  return (
    <div className="worktree-bar" role="group" aria-label="Worktree" aria-busy={busy}>
      <span className="worktree-where">
        <Icon name="branch" size={14} />
        <span className="visually-hidden">Branch </span>
        <span className="mono worktree-branch" title={`Worktree ${name} in ${info.path}`}>
          {branch}
        </span>
        <span className="muted">from</span>
        <button type="button" className="btn btn-small btn-quiet worktree-origin" aria-label={`Open ${originName}`} title={`Open ${originFolder}`} aria-disabled={busy} onClick={() => void openOrigin()}>
          <Icon name="folder" size={13} />
          <span className="worktree-origin-name">{originName}</span>
          {pressed('open')}
        </button>
      </span>
      <span className="worktree-changes">
        {info.filesTotal === 0 ? (
          <span className="muted">No changes yet</span>
        ) : (
          <>
            <span>
              {files(info.filesTotal)} changed
            </span>
            <span className="worktree-counts">
              {counts.added > 0 ? <span className="diff-added">+{counts.added}<span className="visually-hidden"> added</span></span> : null}
              {counts.modified > 0 ? <span className="worktree-modified">~{counts.modified}<span className="visually-hidden"> modified</span></span> : null}
              {counts.deleted > 0 ? <span className="diff-removed">−{counts.deleted}<span className="visually-hidden"> deleted</span></span> : null}
            </span>
            {info.ahead > 0 ? <span className="muted">· {info.ahead} commit{info.ahead === 1 ? '' : 's'}</span> : null}
            {info.applied ? <span className="muted">· applied</span> : null}
          </>
        )}
      </span>
      <span className="worktree-actions">
        <button type="button" className="btn btn-small" onClick={() => setDialog({ kind: 'diff' })}>
          Show diff
        </button>
        <button type="button" className="btn btn-small" aria-disabled={busy} onClick={() => void apply()}>
          Apply to folder
          {pressed('apply')}
        </button>
        <button type="button" className="btn btn-small" aria-disabled={busy} onClick={() => !busy && setDialog({ kind: 'commit' })}>
          Commit…
        </button>
        <button type="button" className="btn btn-small btn-danger-quiet" aria-disabled={busy} onClick={() => void remove(false)}>
          Remove worktree
          {pressed('remove')}
        </button>
      </span>

      {dialog?.kind === 'diff' ? <WorktreeDiffDialog name={name} baseCommit={info.baseCommit} onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === 'commit' ? (
        <CommitDialog
          branch={branch}
          onCancel={() => setDialog(null)}
          onCommitted={(result) => {
            setDialog(null);
            refresh();
            push(`Committed ${files(result.files)} on ${branch} (${result.commit.slice(0, 8)}).`, 'info');
          }}
        />
      ) : null}
      {dialog?.kind === 'conflicts' ? (
        <Modal label="Nothing was applied" role="alertdialog" title="Nothing was applied" onEscape={() => setDialog(null)} className="confirm-dialog worktree-conflicts">
          <p className="confirm-message">
            {dialog.paths.length === 1 ? 'This file was' : 'These files were'} changed both in the worktree and in {originName} in ways that do not merge, so {originName} was left as it was. Make the two agree, then apply again.
          </p>
          <ul className="worktree-conflict-list" aria-label="Conflicting files">
            {dialog.paths.map((path) => (
              <li key={path}>
                <PathName path={path} className="mono" />
              </li>
            ))}
          </ul>
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={() => setDialog(null)} data-autofocus>
              Close
            </button>
          </div>
        </Modal>
      ) : null}
      {dialog?.kind === 'lost' ? (
        <ConfirmDialog
          title="Remove worktree?"
          message={`Removing worktree ${name} loses work that is not in ${originName}: ${dialog.lost}. Its branch ${branch} is deleted too.`}
          confirmLabel="Remove anyway"
          onCancel={() => setDialog(null)}
          onConfirm={() => {
            setDialog(null);
            void remove(true);
          }}
        />
      ) : null}
    </div>
  );
}
