// `Show diff` of a worktree: its changes against the commit it was made from, or the folder's
// state it took in last (its commits and its working state together), file by file, in a
// dialog as wide as the window allows. Esc or Close closes it; the keyboard goes back to what
// opened it (Modal).

import { useEffect, useMemo, useState } from 'react';
import { parseUnifiedDiff } from '../lib/unified-diff';
import { fileCount } from '../lib/worktrees';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { DiffView } from './DiffView';
import { Spinner } from './Icon';
import { CloseActions, Modal } from './Modal';
import { PathName } from './PathName';

/** Beyond this many files the rest are counted, not drawn. */
const MAX_FILES = 200;

export function WorktreeDiffDialog({ name, baseCommit, sinceCommit, onClose }: { name: string; baseCommit: string; sinceCommit: string | null; onClose(): void }): React.JSX.Element {
  const api = useApi();
  const [diff, setDiff] = useState<{ diff: string; truncated: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => whileCurrent(api.call('worktrees.diff', {}), setDiff, (err) => setError(errorMessage(err))), [api]);
  const files = useMemo(() => (diff === null ? [] : parseUnifiedDiff(diff.diff)), [diff]);
  // After Ask the agent to resolve, its changes are counted from the folder's state it took in.
  const base = (sinceCommit ?? baseCommit).slice(0, 8);
  const from = sinceCommit !== null ? 'your folder’s state it took in' : 'the commit it was made from';

  return (
    <Modal label={`Changes in worktree ${name}`} onEscape={onClose} className="diff-dialog worktree-diff-dialog" title={`Changes in worktree ${name}`}>
      {error !== null ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : diff === null ? (
        <p className="muted">
          <Spinner label="Loading the diff" /> Loading the diff…
        </p>
      ) : files.length === 0 ? (
        <p className="muted">
          No changes since {from} ({base}).
        </p>
      ) : (
        <>
          <p className="muted worktree-diff-summary">
            {fileCount(files.length)} changed since {from} (<span className="mono">{base}</span>)
            {diff.truncated ? '. The diff is too large to show in full: only its first part is shown.' : '.'}
          </p>
          <div className="worktree-diff-files">
            {files.slice(0, MAX_FILES).map((file) =>
              file.binary ? (
                <figure key={file.path} className="diff" aria-label={`Changes to ${file.path}`}>
                  <figcaption className="diff-head">
                    <PathName path={file.path} className="mono diff-path" />
                    <span className="diff-stats muted">{file.created ? 'new binary file' : file.deleted ? 'binary file deleted' : 'binary file changed'}</span>
                  </figcaption>
                </figure>
              ) : (
                <DiffView key={file.path} path={file.path} change={{ path: file.path, created: file.created, hunks: file.hunks, added: file.added, removed: file.removed }} />
              ),
            )}
            {files.length > MAX_FILES ? <p className="muted">{files.length - MAX_FILES} more files not shown.</p> : null}
          </div>
        </>
      )}
      <CloseActions onClose={onClose} />
    </Modal>
  );
}
