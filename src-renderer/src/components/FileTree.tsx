// The project's files: a keyboard-navigable tree (flat treeitems with aria-level), folders
// listed lazily, kept current by 'files.changed'.

import { useId, useMemo, useRef, useState } from 'react';
import { changeMarks, folderCounts, visibleRows, type ChangeMark, type FileChange, type TreeRow } from '../lib/file-tree';
import { useCheckpoints } from '../state/checkpoints-context';
import { useFileTree } from '../state/use-file-tree';
import { Icon, IconButton, Spinner } from './Icon';

interface FileTreeProps {
  folderName: string;
  selectedPath: string | null;
  onOpenFile(path: string): void;
  onChanges?(changes: readonly FileChange[]): void;
  /** Files the agent wrote or edited in the current thread, by its calls: marked in the tree (checkpoints have the last word). */
  changedPaths?: ReadonlyMap<string, ChangeMark>;
}

export function FileTree({ folderName, selectedPath, onOpenFile, onChanges, changedPaths }: FileTreeProps): React.JSX.Element {
  const { listings, expanded, toggle, refreshAll } = useFileTree(onChanges);
  const rows = useMemo(() => visibleRows(listings, expanded), [listings, expanded]);
  const recorded = useCheckpoints()?.changes?.files;
  const marks = useMemo(() => changeMarks(changedPaths, recorded), [changedPaths, recorded]);
  // A folder holding changed files (deleted ones too) is marked like they are, with how many.
  const holding = useMemo(() => folderCounts(new Set([...marks.keys(), ...(recorded ?? []).filter((f) => f.status === 'deleted').map((f) => f.path)])), [marks, recorded]);
  const idPrefix = useId();
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const treeRef = useRef<HTMLDivElement>(null);
  const root = listings['/'];

  const focusedIndex = Math.max(0, rows.findIndex((r) => r.key === focusKey));

  const focusRow = (index: number): void => {
    const row = rows[index];
    if (!row) return;
    setFocusKey(row.key);
    treeRef.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(row.key)}"]`)?.focus();
  };

  const activate = (row: TreeRow): void => {
    setFocusKey(row.key);
    if (row.entry.isDir) toggle(row.key);
    else onOpenFile(row.key);
  };

  const onKeyDown = (event: React.KeyboardEvent): void => {
    const row = rows[focusedIndex];
    if (!row) return;
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        focusRow(Math.min(rows.length - 1, focusedIndex + 1));
        break;
      case 'ArrowUp':
        focusRow(Math.max(0, focusedIndex - 1));
        break;
      case 'Home':
        focusRow(0);
        break;
      case 'End':
        focusRow(rows.length - 1);
        break;
      case 'ArrowRight':
        if (row.entry.isDir && !row.expanded) toggle(row.key, true);
        else if (row.entry.isDir) focusRow(focusedIndex + 1);
        break;
      case 'ArrowLeft':
        if (row.entry.isDir && row.expanded) toggle(row.key, false);
        else if (row.level > 1) {
          for (let i = focusedIndex - 1; i >= 0; i--) {
            if ((rows[i]?.level ?? 0) < row.level) {
              focusRow(i);
              break;
            }
          }
        }
        break;
      case 'Enter':
      case ' ':
        activate(row);
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  };

  return (
    <section className="panel files-panel" aria-label="Files">
      <div className="panel-head">
        <h2 className="panel-title">Files</h2>
        <IconButton icon="refresh" aria-label="Refresh files" title="Refresh" onClick={refreshAll} />
      </div>
      {root?.error ? <p className="panel-empty error-text">{root.error}</p> : null}
      {root === undefined || (root.entries === undefined && root.loading) ? (
        <div className="panel-empty">
          <Spinner label="Loading files" />
        </div>
      ) : root.entries?.length === 0 && !root.error ? (
        <p className="panel-empty muted">This folder is empty.</p>
      ) : null}
      <div ref={treeRef} className="tree" role="tree" aria-label={`Files in ${folderName || 'the project'}`} onKeyDown={onKeyDown}>
        {rows.map((row, index) => {
          const selected = row.key === selectedPath;
          const error = row.entry.isDir && row.expanded ? listings[row.key]?.error : undefined;
          const mark = row.entry.isDir ? undefined : marks.get(row.key);
          const changed = mark !== undefined;
          const held = row.entry.isDir ? holding.get(row.key) : undefined;
          const heldWords = held === undefined ? undefined : `holds ${held} ${held === 1 ? 'file' : 'files'} changed by the agent`;
          const heldId = `${idPrefix}-held-${index}`;
          const ignored = row.entry.ignored === true;
          return (
            <div
              key={row.key}
              data-key={row.key}
              role="treeitem"
              aria-level={row.level}
              aria-posinset={row.posinset}
              aria-setsize={row.setsize}
              aria-expanded={row.entry.isDir ? row.expanded : undefined}
              aria-selected={selected}
              aria-busy={row.loading || undefined}
              aria-describedby={heldWords ? heldId : undefined}
              tabIndex={index === focusedIndex ? 0 : -1}
              className={`tree-row${selected ? ' selected' : ''}${row.entry.isDir ? ' dir' : ''}${ignored ? ' ignored' : ''}${changed || held ? ' agent-changed' : ''}`}
              style={{ paddingLeft: `${(row.level - 1) * 14 + 8}px` }}
              title={error ?? [row.key, ignored ? 'ignored by .gitignore' : null, changed ? `${mark === 'added' ? 'added' : 'changed'} by the agent in this thread` : null, heldWords ? `${heldWords} in this thread` : null].filter(Boolean).join(' · ')}
              onClick={() => activate(row)}
              onFocus={() => setFocusKey(row.key)}
            >
              <span className="tree-twisty" aria-hidden="true">
                {row.entry.isDir ? <Icon name={row.expanded ? 'chevronDown' : 'chevronRight'} size={12} /> : null}
              </span>
              <Icon name={row.entry.isDir ? (row.expanded ? 'folderOpen' : 'folder') : 'file'} size={14} className={row.entry.isDir ? 'icon-folder' : 'icon-file'} />
              <span className="tree-name">{row.name}</span>
              {changed ? (
                <span className={`tree-badge ${mark}`} aria-label={`changed by the agent: ${mark}`}>
                  {mark === 'added' ? 'A' : 'M'}
                </span>
              ) : heldWords ? (
                <span id={heldId} className="tree-badge holds" aria-label={heldWords}>
                  {held}
                </span>
              ) : null}
              {row.loading ? <Spinner /> : null}
            </div>
          );
        })}
      </div>
    </section>
  );
}
