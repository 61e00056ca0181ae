// /memories/: the agent's long-term notes. List with search, view, edit, delete, new.
// The list is fetched a page at a time and only the rows in view are in the DOM, so a
// hundred thousand memories cost what a screenful does.

import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { formatBytes, formatRelativeTime } from '../lib/format';
import { rowWindow } from '../lib/row-window';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { useEvent } from '../state/transport-context';
import { useMemoryPages } from '../state/use-memory-pages';
import { ConfirmDialog } from './ConfirmDialog';
import { Icon } from './Icon';
import { MemoryEditor } from './MemoryEditor';
import { PathName } from './PathName';

type Selection = { mode: 'view' | 'edit'; path: string; text?: string } | { mode: 'new' } | null;

/** Row heights (px) of the list without and with search snippets; every row has the same. */
const ROW_HEIGHT = 46;
const SNIPPET_ROW_HEIGHT = 64;
/** Rows rendered beyond the view on each side. */
const OVERSCAN = 6;

export function MemoriesPanel(): React.JSX.Element {
  const api = useApi();
  const searchId = useId();
  const [query, setQuery] = useState('');
  const [selection, setSelection] = useState<Selection>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [threadTitles, setThreadTitles] = useState<ReadonlyMap<string, string>>(new Map());
  const { entries, more, loadMore, sharedStore } = useMemoryPages(query, version);

  const count = entries?.length ?? 0;
  // The rows in view of the list's own scroller (mounted while there are rows).
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 0 });
  const measure = useCallback(() => {
    const el = scroller.current;
    if (el) setView((v) => (v.top === el.scrollTop && v.height === el.clientHeight ? v : { top: el.scrollTop, height: el.clientHeight }));
  }, []);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return undefined;
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [measure, count > 0]);
  const rowHeight = useMemo(() => (entries?.some((e) => e.snippet) ? SNIPPET_ROW_HEIGHT : ROW_HEIGHT), [entries]);
  const rows = rowWindow(view.top, view.height, rowHeight, count, OVERSCAN);
  // Scrolled near the end of what is loaded: fetch the next page.
  useEffect(() => {
    if (more && rows.end + OVERSCAN >= count) loadMore();
  }, [more, rows.end, count, loadMore]);
  // A new search starts at its top.
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [query]);

  // Thread titles, to say which thread wrote a memory.
  const byThreads = useMemo(() => entries?.some((e) => e.modifiedBy && e.modifiedBy !== 'user') ?? false, [entries]);
  useEffect(() => {
    if (!byThreads) return;
    return whileCurrent(api.safe('threads.list', {}), (threads) => threads && setThreadTitles(new Map(threads.map((t) => [t.id, t.title]))));
  }, [api, byThreads, version]);

  const writer = (by: string | undefined): string | null => {
    if (by === undefined) return null;
    if (by === 'user') return 'by you';
    const title = threadTitles.get(by);
    return title ? `by thread “${title}”` : 'by a thread of another folder or a deleted thread';
  };

  const openMemory = useCallback(
    async (path: string, mode: 'view' | 'edit' = 'view') => {
      setSelection({ mode, path });
      const memory = await api.safe('memories.read', { path });
      setSelection((current) => (current && current.mode !== 'new' && current.path === path ? { ...current, text: memory?.text ?? '' } : current));
    },
    [api],
  );

  useEvent('memories.changed', () => {
    setVersion((v) => v + 1);
    if (selection && selection.mode === 'view') void openMemory(selection.path, 'view');
  });

  const save = async (path: string, text: string): Promise<boolean> => {
    const ok = await api.safe('memories.write', { path, text });
    if (!ok) return false;
    setVersion((v) => v + 1);
    setSelection({ mode: 'view', path: normalizeMemoryPath(path), text });
    return true;
  };

  const remove = async (path: string): Promise<void> => {
    setDeleting(null);
    const ok = await api.safe('memories.delete', { path });
    if (!ok) return;
    setVersion((v) => v + 1);
    setSelection(null);
  };

  return (
    <section className="panel memories-panel" aria-label="Memories">
      <div className="panel-head">
        <h2 className="panel-title">
          <Icon name="brain" size={14} />
          Memories
        </h2>
        <button type="button" className="btn btn-small" onClick={() => setSelection({ mode: 'new' })}>
          <Icon name="plus" size={14} />
          New memory
        </button>
      </div>
      <p className="memories-about muted">
        {sharedStore === undefined ? (
          'Shared by every thread and every folder. '
        ) : (
          <>
            Kept in <code>{sharedStore}</code>, shared by every thread, every folder and everyone who uses that store.{' '}
          </>
        )}
        <code>/memories/AGENTS.md</code> is always part of the agent&apos;s instructions; the agent reads the
        others when it needs them.
      </p>
      <div className="memories-search">
        <label htmlFor={searchId} className="visually-hidden">
          Search memories
        </label>
        <input id={searchId} type="search" placeholder="Search memories" value={query} onChange={(e) => setQuery(e.target.value)} />
      </div>
      <div className="memories-body">
        {entries === null ? null : entries.length === 0 ? (
          <p className="panel-empty muted">{more ? 'Searching…' : query.trim() ? 'No memory matches.' : 'No memories yet. The agent keeps notes in /memories/.'}</p>
        ) : (
          <div ref={scroller} className="memory-list-scroll" onScroll={measure}>
            <ul className="memory-list" aria-label="Memory files" style={{ paddingTop: rows.first * rowHeight, paddingBottom: (count - rows.end) * rowHeight }}>
              {entries.slice(rows.first, rows.end).map((entry, i) => {
                const current = selection !== null && selection.mode !== 'new' && selection.path === entry.path;
                return (
                  <li key={entry.path} style={{ height: rowHeight }} aria-posinset={rows.first + i + 1} aria-setsize={more ? -1 : count}>
                    <button type="button" className={`memory-item${current ? ' current' : ''}`} aria-current={current ? 'true' : undefined} onClick={() => void openMemory(entry.path)}>
                      <PathName path={entry.path.replace(/^\/memories\//, '')} className="memory-path" />
                      <span className="memory-meta muted">
                        {[formatBytes(entry.size), entry.modifiedAt ? `changed ${formatRelativeTime(entry.modifiedAt)}` : null, writer(entry.modifiedBy)].filter(Boolean).join(' · ')}
                      </span>
                      {entry.snippet ? <span className="memory-snippet muted">{entry.snippet}</span> : null}
                    </button>
                  </li>
                );
              })}
            </ul>
          </div>
        )}
        {selection ? (
          <MemoryEditor
            key={selection.mode === 'new' ? 'new' : `${selection.path}:${selection.mode}`}
            mode={selection.mode}
            path={selection.mode === 'new' ? '/memories/' : selection.path}
            text={selection.mode === 'new' ? '' : selection.text}
            onEdit={() => selection.mode !== 'new' && setSelection({ ...selection, mode: 'edit' })}
            onCancel={() => setSelection(selection.mode === 'edit' ? { ...selection, mode: 'view' } : null)}
            onSave={save}
            onDelete={() => selection.mode !== 'new' && setDeleting(selection.path)}
          />
        ) : null}
      </div>
      {deleting ? (
        <ConfirmDialog
          title="Delete memory?"
          message={`${deleting} will be deleted. The agent will no longer see it.`}
          confirmLabel="Delete"
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      ) : null}
    </section>
  );
}

function normalizeMemoryPath(path: string): string {
  const trimmed = path.trim().replace(/^\/+/, '');
  return trimmed.startsWith('memories/') ? `/${trimmed}` : `/memories/${trimmed}`;
}
