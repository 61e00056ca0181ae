// The Changes region (SPEC §6, §8, §24): every file the agent changed in this thread, with
// added/removed line counts, a Revert button each and its diff by hunks (who wrote each,
// Reviewed, Keep, Revert; `Open diff` shows them large, where a hunk is readable). The file's name has the row's whole width: its folders give way first, and a
// name longer than the row wraps rather than being cut.

import { useState } from 'react';
import type { ChangedFile } from '../../../src-main/app/contract/checkpoints';
import { useCheckpoints } from '../state/checkpoints-context';
import { DiffDialog } from './DiffDialog';
import { DiffView } from './DiffView';
import { HunkReview } from './HunkReview';
import { Icon } from './Icon';
import { PathName } from './PathName';

/** Diffs open by default up to this many files; the rest open on demand. */
const OPEN_BY_DEFAULT = 8;

export function ChangesPanel(): React.JSX.Element {
  const checkpoints = useCheckpoints();
  const files = checkpoints?.changes?.files ?? [];
  const undo = checkpoints?.changes?.undo ?? null;
  return (
    <section className="panel changes-panel" aria-label="Changes">
      <div className="panel-head">
        <h2 className="panel-title">
          <Icon name="file" size={14} />
          Changes
          {files.length > 0 ? <span className="badge">{files.length}</span> : null}
        </h2>
        {/* A restore that no user message shows (one file reverted, or from the CLI) is undone here. */}
        {undo && undo.turn === null ? (
          <button type="button" className="btn btn-small" disabled={checkpoints?.busy} onClick={() => checkpoints?.undoRestore()}>
            Undo restore
          </button>
        ) : null}
      </div>
      <div className="changes-body">
        {files.length === 0 ? (
          <p className="panel-empty muted">{checkpoints?.threadId ? 'The agent has not changed any files in this thread.' : 'No thread is open.'}</p>
        ) : (
          <ul className="changes-list" aria-label="Changed files">
            {files.map((file, i) => (
              <ChangedFileItem key={file.path} file={file} defaultOpen={i < OPEN_BY_DEFAULT} busy={checkpoints?.busy ?? true} onRevert={() => checkpoints?.revertFile(file.path)} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function ChangedFileItem({ file, defaultOpen, busy, onRevert }: { file: ChangedFile; defaultOpen: boolean; busy: boolean; onRevert(): void }): React.JSX.Element {
  const [open, setOpen] = useState(defaultOpen);
  const [large, setLarge] = useState(false);
  const ignored = file.type === 'i';
  const texts = !ignored && !file.binary && file.before !== undefined && file.after !== undefined ? { before: file.before, after: file.after } : null;
  const hunks = texts && file.hunks && file.hunks.length > 0 ? file.hunks : null;
  // A file of one hunk shown is reverted by that hunk's own Revert: one Revert a file.
  const ownRevert = !ignored && !(open && hunks?.length === 1);
  return (
    <li className="changes-item" aria-label={file.path}>
      <div className="changes-item-head">
        <button type="button" className="changes-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          <Icon name={open ? 'chevronDown' : 'chevronRight'} size={12} />
          <PathName path={file.path} className="mono changes-path" />
        </button>
        <div className="changes-item-bar">
          <span className="changes-meta">
            <span className="changes-status muted">{ignored ? 'changed inside ignored folder' : file.status}</span>
            {file.sensitive ? (
              <span className="badge badge-warn" title={`${file.sensitive.what}: it later runs or steers a program outside the sandbox`}>
                sensitive
              </span>
            ) : null}
            {!file.binary && !ignored ? (
              <span className="diff-stats">
                <span className="diff-added">+{file.added}</span> <span className="diff-removed">−{file.removed}</span>
              </span>
            ) : null}
          </span>
          <span className="changes-actions">
            {texts ? (
              <button type="button" className="btn btn-small" onClick={() => setLarge(true)} title={`Open the diff of ${file.path} large`}>
                Open diff
              </button>
            ) : null}
            {ownRevert ? (
              <button type="button" className="btn btn-small" disabled={busy} onClick={onRevert} title={`Undo the agent's changes to ${file.path}`}>
                Revert
              </button>
            ) : null}
          </span>
        </div>
      </div>
      {open ? (
        ignored ? (
          <p className="muted changes-note">Something changed inside this ignored folder; its contents are not kept, so it cannot be reverted.</p>
        ) : file.binary ? (
          <p className="muted changes-note">{file.type === 'l' ? 'Symbolic link changed.' : `Binary file ${file.status}.`}</p>
        ) : texts === null ? (
          <p className="muted changes-note">Too much changed text to show here; `deepdesk checkpoints diff` prints it.</p>
        ) : hunks ? (
          <HunkReview path={file.path} hunks={hunks} />
        ) : (
          <DiffView path={file.path} before={texts.before} after={texts.after} />
        )
      ) : null}
      {large && texts ? <DiffDialog path={file.path} before={texts.before} after={texts.after} {...(hunks ? { hunks } : {})} onClose={() => setLarge(false)} /> : null}
    </li>
  );
}
