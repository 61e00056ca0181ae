// A unified diff of a file before and after a write or edit. The path is shown with its
// invisible characters escaped (a path is something the person trusts).

import { useMemo } from 'react';
import { diffRows } from '../lib/diff-rows';
import { VisibleText } from './VisibleText';

const MAX_ROWS = 2000;

export function DiffView({ path, before, after }: { path: string; before: string; after: string }): React.JSX.Element {
  const { rows, added, removed } = useMemo(() => diffRows(before, after), [before, after]);
  const shown = rows.slice(0, MAX_ROWS);
  return (
    <figure className="diff" aria-label={`Changes to ${path}`}>
      <figcaption className="diff-head">
        <span className="mono">
          <VisibleText text={path} />
        </span>
        <span className="diff-stats">
          <span className="diff-added">+{added}</span> <span className="diff-removed">−{removed}</span>
          {before === '' ? <span className="muted"> (new file)</span> : null}
        </span>
      </figcaption>
      {rows.length === 0 ? (
        <p className="muted diff-none">No changes.</p>
      ) : (
        <div className="diff-body" tabIndex={0}>
          <table className="diff-table">
            <tbody>
              {shown.map((row, i) =>
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
          {rows.length > MAX_ROWS ? <p className="muted">{rows.length - MAX_ROWS} more lines not shown.</p> : null}
        </div>
      )}
    </figure>
  );
}
