// A unified diff of a file before and after a write or edit, or the hunks a write recorded
// (with the file's real line numbers). The path is shown with its invisible characters
// escaped (a path is something the person trusts).

import { useMemo } from 'react';
import type { FileChangeDto } from '../../../src-main/app/contract';
import { diffRows, rowsFromHunks, type DiffRow } from '../lib/diff-rows';
import { PathName } from './PathName';

const MAX_ROWS = 2000;

type DiffViewProps = { path: string } & ({ before: string; after: string; change?: undefined } | { change: FileChangeDto; before?: undefined; after?: undefined });

export function DiffView({ path, before, after, change }: DiffViewProps): React.JSX.Element {
  const { rows, added, removed } = useMemo(() => (change ? { ...rowsFromHunks(change.hunks), added: change.added, removed: change.removed } : diffRows(before!, after!)), [before, after, change]);
  const created = change ? change.created : before === '';
  const shown = rows.slice(0, MAX_ROWS);
  return (
    <figure className="diff" aria-label={`Changes to ${path}`}>
      <figcaption className="diff-head">
        <PathName path={path} className="mono diff-path" />
        <span className="diff-stats">
          <span className="diff-added">+{added}</span> <span className="diff-removed">−{removed}</span>
          {created ? <span className="muted"> (new file)</span> : null}
        </span>
      </figcaption>
      {change?.truncated && rows.length === 0 ? (
        <p className="muted diff-none">Too large to show here.</p>
      ) : rows.length === 0 ? (
        <p className="muted diff-none">{created ? 'An empty file.' : 'No changes.'}</p>
      ) : (
        <div className="diff-body" tabIndex={0}>
          <DiffTable rows={shown} />
          {rows.length > MAX_ROWS ? <p className="muted">{rows.length - MAX_ROWS} more lines not shown.</p> : null}
          {change?.truncated ? <p className="muted">Only part of this change is shown.</p> : null}
        </div>
      )}
    </figure>
  );
}

/** Diff rows as a table: line numbers, what each line is (said to a screen reader), its text. */
export function DiffTable({ rows }: { rows: readonly DiffRow[] }): React.JSX.Element {
  return (
    <table className="diff-table">
      <tbody>
        {rows.map((row, i) =>
          row.type === 'hunk' ? (
            <tr key={i} className="diff-hunk">
              <td colSpan={4}>{row.text}</td>
            </tr>
          ) : (
            <tr key={i} className={`diff-${row.type}`}>
              <td className="diff-no" aria-hidden="true">{row.oldNo ?? ''}</td>
              <td className="diff-no" aria-hidden="true">{row.newNo ?? ''}</td>
              <td className="diff-mark">
                <span className="visually-hidden">{row.type === 'add' ? 'added: ' : row.type === 'del' ? 'removed: ' : ''}</span>
                <span aria-hidden="true">{row.type === 'add' ? '+' : row.type === 'del' ? '−' : ' '}</span>
              </td>
              <td className="diff-text">{row.text}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}
