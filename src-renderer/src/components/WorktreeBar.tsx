// The bar above the conversation when the open folder is a worktree (SPEC §16): its branch,
// the folder it was made from (a button goes back there), its changes against its base
// (`Show diff`), and `Apply to folder`, `Commit…` and `Remove worktree`. Results are told as
// notices (read out by screen readers); conflicts (with their lines and the ways on: asking the
// thread's agent to resolve them, or Commit… to merge by hand) and work that would be lost
// open a dialog. Removing it keeps the thread: it opens in the folder the worktree was made
// from, in this window. One line at 1400×900; at narrower widths its parts give way in turn.

import { useState } from 'react';
import type { ConflictedFileDto, WorktreeInfoDto } from '../../../src-main/app/contract';
import { fileCount as files, resolveRequest } from '../lib/worktrees';
import { useAgents } from '../state/agents-context';
import { errorMessage, useToasts } from '../state/toasts';
import { useApi } from '../state/use-api';
import { useWorktree } from '../state/use-worktree';
import { CommitDialog } from './CommitDialog';
import { ConfirmDialog } from './ConfirmDialog';
import { Icon, Spinner } from './Icon';
import { WorktreeConflictDialog } from './WorktreeConflictDialog';
import { WorktreeDiffDialog } from './WorktreeDiffDialog';
import '../styles/worktrees.css';

type Work = 'apply' | 'remove' | 'open' | 'ask';
type Dialog = { kind: 'diff' } | { kind: 'commit' } | { kind: 'conflicts'; paths: string[]; details: ConflictedFileDto[] } | { kind: 'lost'; lost: string };

/** The thread open beside the bar: the agent asked to resolve conflicts, and the thread kept when the worktree goes. */
export interface WorktreeThread {
  id: string | null;
  running: boolean;
  send(text: string): Promise<boolean>;
}

export function WorktreeBar({ thread }: { thread: WorktreeThread }): React.JSX.Element | null {
  const { info, refresh } = useWorktree();
  if (!info) return null;
  return <Bar info={info} refresh={refresh} thread={thread} />;
}

function Bar({ info, refresh, thread }: { info: WorktreeInfoDto; refresh(): void; thread: WorktreeThread }): React.JSX.Element {
  const api = useApi();
  const agents = useAgents();
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
      if (result.conflicts.length > 0) setDialog({ kind: 'conflicts', paths: result.conflicts, details: result.details ?? [] });
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
      const kept = thread.id !== null && (result.keptThreads ?? []).includes(thread.id) ? thread.id : null;
      const conversation = (result.keptThreads ?? []).length > 0 ? ` Its conversation is kept in ${originName}’s threads.` : '';
      push(`Removed worktree ${name}${result.branchDeleted ? ` and its branch ${branch}` : `; its branch ${branch} was kept`}. Back in ${originName}.${conversation}`, 'info');
      // The folder gate makes the workspace anew on the folder it was made from, with the kept thread open.
      // The worktree's folder is gone: if the kept thread cannot be opened, the folder it came from is.
      if (kept === null || !(await agents.open(kept))) await api.call('app.openFolder', { path: result.originFolder });
    });

  /** `Ask the agent to resolve`: the folder's state into the worktree, then the thread's agent asked. */
  const askAgent = (): Promise<void> =>
    run('ask', async () => {
      const result = await api.call('worktrees.mergeFolderIn', {});
      refresh();
      setDialog(null);
      if (result.conflicts.length === 0) {
        push(`${originName}’s changes merge with the worktree’s now and are in it: apply again.`, 'info');
        return;
      }
      if (await thread.send(resolveRequest(result.conflicts, originName))) {
        push(`Asked the agent to resolve ${files(result.conflicts.length)} in the worktree. Apply again when it is done.`, 'info');
      }
    });
  const askBlocked = thread.id === null ? 'Open a thread of this worktree first.' : thread.running ? 'The thread is working: wait for it to finish or stop it first.' : null;

  const { counts } = info;
  const busy = working !== null;
  const pressed = (work: Work) => (working === work ? <Spinner /> : null);
  return (
    <div className="worktree-bar" role="group" aria-label="Worktree" aria-busy={busy}>
      <span className="worktree-where">
        <Icon name="branch" size={14} />
        <span className="mono worktree-branch" title={`Worktree ${name} in ${info.path}`}>
          <span className="visually-hidden">Branch </span>
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
              {files(info.filesTotal)}
              <span className="visually-hidden"> changed</span>
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
        {/* "Diff" on the bar (it keeps the bar one line at 1400×900); its name says what it does. */}
        <button type="button" className="btn btn-small" aria-label="Show diff" title="Show diff" onClick={() => setDialog({ kind: 'diff' })}>
          Diff
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

      {dialog?.kind === 'diff' ? <WorktreeDiffDialog name={name} baseCommit={info.baseCommit} sinceCommit={info.sinceCommit} onClose={() => setDialog(null)} /> : null}
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
        <WorktreeConflictDialog
          name={name}
          branch={branch}
          originName={originName}
          paths={dialog.paths}
          details={dialog.details}
          askBlocked={askBlocked}
          asking={working === 'ask'}
          onAsk={() => void askAgent()}
          onCommit={() => setDialog({ kind: 'commit' })}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog?.kind === 'lost' ? (
        <ConfirmDialog
          title="Remove worktree?"
          message={`Removing worktree ${name} loses work that is not in ${originName}: ${dialog.lost}. Its branch ${branch} is deleted too. The conversation is kept: it moves to ${originName}’s threads.`}
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
