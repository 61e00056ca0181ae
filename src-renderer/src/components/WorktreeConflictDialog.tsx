// `Apply to folder` found conflicts (SPEC §16): nothing was applied. Each file with its
// conflicting lines as git's conflict view shows them (the folder's side, the base's with
// diff3, the worktree's, a few lines around), or git's words for a conflict without lines;
// and the ways on: ask the thread's agent to resolve them (the folder's state is taken into
// the worktree first), `Commit…` on the worktree's branch to merge it by hand (the git command
// shown, to copy), or close. Repository text is shown with its invisible characters visible.

import { useId } from 'react';
import type { ConflictedFileDto, ConflictHunkDto } from '../../../src-main/app/contract';
import { CopyButton } from './CopyButton';
import { Spinner } from './Icon';
import { Modal } from './Modal';
import { PathName } from './PathName';
import { VisibleText } from './VisibleText';

interface WorktreeConflictDialogProps {
  name: string;
  branch: string;
  originName: string;
  /** The paths that conflict, and what is known of each. */
  paths: readonly string[];
  details: readonly ConflictedFileDto[];
  /** Why the agent cannot be asked now (no thread open, the thread is working), or null. */
  askBlocked: string | null;
  asking: boolean;
  onAsk(): void;
  onCommit(): void;
  onClose(): void;
}

export function WorktreeConflictDialog(props: WorktreeConflictDialogProps): React.JSX.Element {
  const { name, branch, originName, paths, details, askBlocked, asking } = props;
  const waysId = useId();
  const byPath = new Map(details.map((d) => [d.path, d]));
  const command = `git merge ${branch}`;
  return (
    <Modal label="Nothing was applied" role="alertdialog" title="Nothing was applied" onEscape={asking ? undefined : props.onClose} className="confirm-dialog worktree-conflicts">
      <p className="confirm-message">
        {paths.length === 1 ? 'This file was' : `These ${paths.length} files were`} changed both in worktree {name} and in {originName} in ways that do not merge, so {originName} was left as it was.
      </p>
      <div className="worktree-conflict-files">
        {paths.map((path) => {
          const detail = byPath.get(path);
          return (
            <section key={path} className="worktree-conflict-file" aria-label={`Conflict in ${path}`}>
              <h3 className="worktree-conflict-path">
                <PathName path={path} className="mono" />
              </h3>
              {detail?.notes.map((note) => (
                <p key={note} className="muted small">
                  <VisibleText text={note} />
                </p>
              ))}
              {detail?.hunks.map((hunk) => <Hunk key={hunk.line} hunk={hunk} originName={originName} name={name} />)}
              {detail?.truncated ? <p className="muted small">More is not shown.</p> : null}
            </section>
          );
        })}
      </div>
      <h3 className="worktree-ways-title" id={waysId}>
        Ways on
      </h3>
      <ul className="worktree-ways" aria-labelledby={waysId}>
        <li>
          <strong>Ask the agent to resolve:</strong> {originName}’s current state is brought into the worktree, with git’s conflict markers in these files, and the thread’s agent is asked to
          resolve them. Apply again when it is done.
          {askBlocked !== null ? <span className="muted"> {askBlocked}</span> : null}
        </li>
        <li>
          <strong>Merge by hand:</strong> commit the worktree’s work on its branch, then in {originName} (your own changes committed or stashed first) run{' '}
          <code className="mono worktree-merge-command">{command}</code>
          <CopyButton text={command} label="Copy the merge command" />
        </li>
      </ul>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose} disabled={asking}>
          Close
        </button>
        <button type="button" className="btn" onClick={props.onCommit} disabled={asking}>
          Commit…
        </button>
        <button type="button" className="btn btn-primary" aria-disabled={askBlocked !== null || asking} onClick={() => askBlocked === null && !asking && props.onAsk()} data-autofocus>
          Ask the agent to resolve
          {asking ? <Spinner /> : null}
        </button>
      </div>
    </Modal>
  );
}

/** One conflict as git's conflict view shows it, the sides named. */
function Hunk({ hunk, originName, name }: { hunk: ConflictHunkDto; originName: string; name: string }): React.JSX.Element {
  const lines = (texts: readonly string[], kind: string) =>
    texts.map((text, i) => (
      <span key={`${kind}-${i}`} className={`conflict-line conflict-${kind}`}>
        <VisibleText text={text} />
      </span>
    ));
  const marker = (text: string, kind: string) => (
    <span className={`conflict-line conflict-marker conflict-marker-${kind}`}>
      {text}
    </span>
  );
  return (
    <figure className="worktree-conflict-hunk" aria-label={`Line ${hunk.line}`}>
      <pre className="mono">
        {lines(hunk.before, 'context')}
        {marker(`<<<<<<< ${originName} (your folder)`, 'folder')}
        {lines(hunk.folder, 'folder')}
        {hunk.base !== undefined ? (
          <>
            {marker('||||||| base', 'base')}
            {lines(hunk.base, 'base')}
          </>
        ) : null}
        {marker('=======', 'split')}
        {lines(hunk.worktree, 'worktree')}
        {marker(`>>>>>>> worktree ${name}`, 'worktree')}
        {lines(hunk.after, 'context')}
      </pre>
    </figure>
  );
}
