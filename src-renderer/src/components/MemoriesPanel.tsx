// /memories/: the agent's long-term notes, the project's and the global ones (SPEC §25). List
// with search and filters (scope, status), view with who wrote each and when it was used, edit,
// delete, history with restore, moves between scopes, and the Proposed list the person answers.
// The list is fetched a page at a time and only the rows in view are in the DOM, so a hundred
// thousand memories cost what a screenful does.

import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { MemoryEntry } from '../../../src-main/app/contract';
import { formatBytes, formatRelativeTime } from '../lib/format';
import { rowWindow } from '../lib/row-window';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { useMemoriesNav } from '../state/memories-nav';
import { useEvent } from '../state/transport-context';
import { useMemoryPages, type MemoryFilter } from '../state/use-memory-pages';
import { ConfirmDialog } from './ConfirmDialog';
import { Icon, IconButton } from './Icon';
import { MemoryEditor } from './MemoryEditor';
import { MemoryFacts, writtenBy } from './MemoryFacts';
import { MemoryHistory } from './MemoryHistory';
import { PathName } from './PathName';
import { ProposedMemories } from './ProposedMemories';

type Selection = { mode: 'view' | 'edit'; path: string; text?: string } | { mode: 'history'; path: string } | { mode: 'new' } | null;

/** Row heights (px) of the list without and with a third line (a search snippet, a stale mark); every row has the same. */
const ROW_HEIGHT = 46;
const THIRD_LINE_ROW_HEIGHT = 64;
/** Rows rendered beyond the view on each side. */
const OVERSCAN = 6;

const SCOPES = [
  ['project', 'This project'],
  ['global', 'Global'],
] as const;
const STATUSES = [
  ['active', 'Active'],
  ['proposed', 'Proposed'],
  ['stale', 'Stale'],
] as const;

export function MemoriesPanel(): React.JSX.Element {
  const api = useApi();
  const searchId = useId();
  const nav = useMemoriesNav();
  const [query, setQuery] = useState('');
  const [filter, setFilter] = useState<MemoryFilter>({});
  const [selection, setSelection] = useState<Selection>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [threadTitles, setThreadTitles] = useState<ReadonlyMap<string, string>>(new Map());
  const [reviewing, setReviewing] = useState<string | null>(null);
  const { entries, more, loadMore, sharedStore, proposed: proposedCount, notice, dismissNotice } = useMemoryPages(query, filter, version);
  const changed = useCallback(() => setVersion((v) => v + 1), []);
  const proposedShown = filter.status === 'proposed';

  // `Review` on a proposed memory's card: the Proposed list, at that memory.
  const handled = useRef(0);
  const { request } = nav;
  useEffect(() => {
    if (request === null || request.seq === handled.current) return;
    handled.current = request.seq;
    setFilter({ status: 'proposed' });
    setQuery('');
    setReviewing(request.path);
  }, [request]);

  const count = proposedShown ? 0 : (entries?.length ?? 0);
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
  const rowHeight = useMemo(() => (entries?.some((e) => e.snippet || e.stale) ? THIRD_LINE_ROW_HEIGHT : ROW_HEIGHT), [entries]);
  const rows = rowWindow(view.top, view.height, rowHeight, count, OVERSCAN);
  // Scrolled near the end of what is loaded: fetch the next page.
  useEffect(() => {
    if (more && rows.end + OVERSCAN >= count) loadMore();
  }, [more, rows.end, count, loadMore]);
  // A new search or filter starts at its top.
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [query, filter]);

  // Thread titles, to say which thread wrote a memory (and link to it).
  const byThreads = useMemo(() => entries?.some((e) => e.thread !== undefined || (e.modifiedBy && e.modifiedBy !== 'user')) ?? false, [entries]);
  useEffect(() => {
    if (!byThreads && selection?.mode !== 'history') return;
    return whileCurrent(api.safe('threads.list', {}), (threads) => threads && setThreadTitles(new Map(threads.map((t) => [t.id, t.title]))));
  }, [api, byThreads, selection?.mode, version]);

  const openMemory = useCallback(
    async (path: string, mode: 'view' | 'edit' = 'view') => {
      setSelection({ mode, path });
      const memory = await api.safe('memories.read', { path });
      setSelection((current) => (current && current.mode !== 'new' && current.path === path ? { ...current, text: memory?.text ?? '' } : current));
    },
    [api],
  );

  useEvent('memories.changed', () => {
    changed();
    if (selection && selection.mode === 'view') void openMemory(selection.path, 'view');
  });
  // A run's model calls noted which memories they used: when each was last used changed.
  useEvent('thread.event', ({ event }) => {
    if (event.type === 'done') changed();
  });

  const save = async (path: string, text: string): Promise<boolean> => {
    const ok = await api.safe('memories.write', { path, text });
    if (!ok) return false;
    changed();
    setSelection({ mode: 'view', path: normalizeMemoryPath(path), text });
    return true;
  };

  const remove = async (path: string): Promise<void> => {
    setDeleting(null);
    const ok = await api.safe('memories.delete', { path });
    if (!ok) return;
    changed();
    setSelection(null);
  };

  const move = async (entry: MemoryEntry): Promise<void> => {
    const moved = await api.safe('memories.move', { path: entry.path, to: entry.scope === 'global' ? 'project' : 'global' });
    if (!moved) return;
    changed();
    if (selection !== null && selection.mode !== 'new' && selection.path === entry.path) void openMemory(moved.path);
  };

  const toggle = (key: keyof MemoryFilter, value: string): void => setFilter((f) => ({ ...f, [key]: f[key] === value ? undefined : value }));
  const selected = selection !== null && selection.mode !== 'new' ? entries?.find((e) => e.path === selection.path) : undefined;

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
          <>
            This project&apos;s memories, and global ones (<code>/memories/global/</code>) shared by every project.{' '}
          </>
        ) : (
          <>
            Kept in <code>{sharedStore}</code>, shared by every thread of this project and everyone who uses that store; global ones by every project.{' '}
          </>
        )}
        <code>/memories/AGENTS.md</code> and <code>/memories/global/AGENTS.md</code> are always part of the agent&apos;s instructions; the agent reads the others when
        it needs them.
      </p>
      {notice !== undefined ? (
        <div className="memories-notice small" role="status">
          <Icon name="info" size={14} />
          <span>{notice}</span>
          <IconButton icon="x" aria-label="Dismiss" title="Dismiss" onClick={dismissNotice} />
        </div>
      ) : null}
      <div className="memories-filters">
        <FilterGroup label="Scope" choices={SCOPES} value={filter.scope} onToggle={(v) => toggle('scope', v)} />
        <FilterGroup label="Status" choices={STATUSES} value={filter.status} onToggle={(v) => toggle('status', v)} />
      </div>
      {!proposedShown && proposedCount > 0 ? (
        <p className="memories-waiting small">
          <Icon name="alert" size={14} />
          <span>
            {proposedCount === 1 ? '1 memory waits' : `${proposedCount} memories wait`} for your review.
          </span>
          <button type="button" className="btn btn-small btn-quiet" onClick={() => setFilter({ status: 'proposed' })}>
            Show
          </button>
        </p>
      ) : null}
      {proposedShown || filter.status === 'stale' ? null : (
        <div className="memories-search">
          <label htmlFor={searchId} className="visually-hidden">
            Search memories
          </label>
          <input id={searchId} type="search" placeholder="Search memories" value={query} onChange={(e) => setQuery(e.target.value)} />
        </div>
      )}
      <div className="memories-body" tabIndex={0}>
        {entries === null ? null : proposedShown ? (
          <ProposedMemories entries={entries} titles={threadTitles} focus={reviewing} onAnswered={changed} />
        ) : entries.length === 0 ? (
          <p className="panel-empty muted">{emptyText(more, query, filter)}</p>
        ) : (
          <div ref={scroller} className="memory-list-scroll" onScroll={measure}>
            <ul className="memory-list" aria-label="Memory files" style={{ paddingTop: rows.first * rowHeight, paddingBottom: (count - rows.end) * rowHeight }}>
              {entries.slice(rows.first, rows.end).map((entry, i) => {
                const current = selection !== null && selection.mode !== 'new' && selection.path === entry.path;
                const third = entry.stale !== undefined ? `⚠ ${entry.stale}` : entry.snippet;
                return (
                  <li key={entry.path} className="memory-row" style={{ height: rowHeight }} aria-posinset={rows.first + i + 1} aria-setsize={more ? -1 : count}>
                    <button type="button" className={`memory-item${current ? ' current' : ''}`} aria-current={current ? 'true' : undefined} onClick={() => void openMemory(entry.path)}>
                      <PathName path={entry.path.replace(/^\/memories\//, '')} className="memory-path" />
                      <span className="memory-meta muted">
                        {[formatBytes(entry.size), entry.modifiedAt ? `changed ${formatRelativeTime(entry.modifiedAt)}` : null, writtenBy(entry, threadTitles), usedText(entry)].filter(Boolean).join(' · ')}
                      </span>
                      {third ? <span className={`memory-snippet${entry.stale !== undefined ? ' memory-stale' : ' muted'}`}>{third}</span> : null}
                    </button>
                    <IconButton icon="archive" className="memory-row-action" aria-label="History" title={`History of ${entry.path}`} onClick={() => setSelection({ mode: 'history', path: entry.path })} />
                    {entry.scope !== undefined ? (
                      <IconButton
                        icon={entry.scope === 'global' ? 'folder' : 'external'}
                        className="memory-row-action"
                        aria-label={entry.scope === 'global' ? 'Move to project' : 'Move to global'}
                        title={entry.scope === 'global' ? `Move ${entry.path} to this project` : `Move ${entry.path} to /memories/global/, for every project`}
                        onClick={() => void move(entry)}
                      />
                    ) : null}
                  </li>
                );
              })}
            </ul>
          </div>
        )}
        {selection?.mode === 'history' ? (
          <MemoryHistory
            key={selection.path}
            path={selection.path}
            current={selected?.version}
            titles={threadTitles}
            version={version}
            onClose={() => void openMemory(selection.path)}
            onRestored={changed}
          />
        ) : selection ? (
          <MemoryEditor
            key={selection.mode === 'new' ? 'new' : `${selection.path}:${selection.mode}`}
            mode={selection.mode}
            path={selection.mode === 'new' ? '/memories/' : selection.path}
            text={selection.mode === 'new' ? '' : selection.text}
            facts={selected !== undefined ? <MemoryFacts entry={selected} titles={threadTitles} /> : undefined}
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
          message={`${deleting} will be deleted. The agent will no longer see it; its history stays.`}
          confirmLabel="Delete"
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      ) : null}
    </section>
  );
}

/** A group of toggle buttons, at most one pressed (none: every memory). */
function FilterGroup<V extends string>({ label, choices, value, onToggle }: { label: string; choices: ReadonlyArray<readonly [V, string]>; value: V | undefined; onToggle(value: V): void }): React.JSX.Element {
  return (
    <div className="memories-filter" role="group" aria-label={label}>
      {choices.map(([key, name]) => (
        <button key={key} type="button" className={`chip-toggle${value === key ? ' on' : ''}`} aria-pressed={value === key} onClick={() => onToggle(key)}>
          {name}
        </button>
      ))}
    </div>
  );
}

function usedText(entry: MemoryEntry): string | null {
  if (entry.lastUsedAt === undefined) return null;
  return `used ${formatRelativeTime(entry.lastUsedAt)} in ${entry.usedTurns ?? 0} turn${entry.usedTurns === 1 ? '' : 's'}`;
}

function emptyText(more: boolean, query: string, filter: MemoryFilter): string {
  if (more) return 'Searching…';
  if (query.trim()) return 'No memory matches.';
  if (filter.status === 'stale') return 'No memory names something the project no longer has.';
  if (filter.scope !== undefined || filter.status !== undefined) return 'No memories here.';
  return 'No memories yet. The agent keeps notes in /memories/.';
}

function normalizeMemoryPath(path: string): string {
  const trimmed = path.trim().replace(/^\/+/, '');
  return trimmed.startsWith('memories/') ? `/${trimmed}` : `/memories/${trimmed}`;
}
