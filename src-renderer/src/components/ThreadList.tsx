// Threads: search (titles, and the messages through the server), grouped by date; new,
// switch, rename inline, delete with a confirmation; shows which are running and which wait
// for an approval.

import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ThreadSummaryDto } from '../../../src-main/app/contract';
import { formatRelativeTime, formatShortAge } from '../lib/format';
import { groupThreads, searchThreads, type MessageMatches } from '../lib/thread-groups';
import { useApi } from '../state/use-api';
import { ConfirmDialog } from './ConfirmDialog';
import { Icon } from './Icon';
import { NewThreadWithButton } from './NewThreadWithDialog';
import { NewWorktreeButton } from './NewWorktreeDialog';
import { SandboxThreadButton } from './SandboxThreadDialog';
import { ThreadListItem } from './ThreadListItem';
import { useRovingFocus } from './use-roving-focus';

interface ThreadListProps {
  threads: readonly ThreadSummaryDto[];
  currentId: string | null;
  /** The open thread's running state as the conversation knows it (fresher than the list). */
  currentRunning: boolean;
  onSelect(id: string | null): void;
  onNew(): void;
}

export function ThreadList({ threads, currentId, currentRunning, onSelect, onNew }: ThreadListProps): React.JSX.Element {
  const api = useApi();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<ThreadSummaryDto | null>(null);
  const [query, setQuery] = useState('');
  const searchId = useId();
  const [messageMatches, setMessageMatches] = useState<MessageMatches | null>(null);
  const found = useMemo(() => searchThreads(threads, query, messageMatches), [threads, query, messageMatches]);
  const groups = useMemo(() => groupThreads(found.threads), [found]);
  // One Tab stop for the whole list; arrows move between threads (F2 renames, Delete deletes).
  const items = useRef<HTMLDivElement>(null);
  const onItemsKeyDown = useRovingFocus(items, '.thread-select');

  // The messages are searched by the server (debounced; asked again when threads change).
  useEffect(() => {
    const q = query.trim();
    if (q === '') {
      setMessageMatches(null);
      return undefined;
    }
    let cancelled = false;
    const timer = setTimeout(() => {
      api
        .call('threads.search', { query: q })
        .then((list) => {
          if (!cancelled) setMessageMatches({ query: q, snippets: new Map(list.map((m) => [m.threadId, m.snippet])) });
        })
        .catch(() => undefined);
    }, 150);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [api, query, threads]);

  const rename = async (id: string, title: string): Promise<void> => {
    setRenaming(null);
    const trimmed = title.trim().slice(0, 200);
    const thread = threads.find((t) => t.id === id);
    if (!trimmed || trimmed === thread?.title) return;
    await api.safe('threads.rename', { threadId: id, title: trimmed });
  };

  const remove = async (thread: ThreadSummaryDto): Promise<void> => {
    setDeleting(null);
    const ok = await api.safe('threads.delete', { threadId: thread.id });
    if (ok && thread.id === currentId) {
      const next = threads.find((t) => t.id !== thread.id);
      onSelect(next?.id ?? null);
    }
  };

  return (
    <section className="panel thread-list" aria-label="Threads">
      <div className="panel-head">
        <h2 className="panel-title">Threads</h2>
        <button type="button" className="btn btn-small" onClick={onNew}>
          <Icon name="plus" size={14} />
          New thread
        </button>
        <NewWorktreeButton />
        <SandboxThreadButton kind="new" />
      </div>
      <NewThreadWithButton onCreated={(id) => onSelect(id)} />
      {threads.length > 0 ? (
        <div className="thread-search">
          <label htmlFor={searchId} className="visually-hidden">
            Search threads
          </label>
          <input
            id={searchId}
            type="search"
            placeholder="Search threads"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape' && query) {
                e.preventDefault();
                setQuery('');
              }
            }}
          />
        </div>
      ) : null}
      {threads.length === 0 ? (
        <p className="panel-empty muted">No threads yet. Send a message to start one.</p>
      ) : groups.length === 0 ? (
        <p className="panel-empty muted">No thread matches “{query}”.</p>
      ) : (
        <div className="thread-items" ref={items} onKeyDown={onItemsKeyDown}>
          {groups.map((group) => (
            <div key={group.label} role="group" aria-label={group.label} className="thread-group">
              <h3 className="thread-group-label">{group.label}</h3>
              <ul className="thread-group-list">
                {group.threads.map((thread) => (
                  <ThreadListItem
                    key={thread.id}
                    thread={thread}
                    current={thread.id === currentId}
                    running={thread.id === currentId ? currentRunning || thread.running : thread.running}
                    renaming={renaming === thread.id}
                    when={formatRelativeTime(thread.updatedAt)}
                    age={formatShortAge(thread.updatedAt)}
                    match={found.snippets.get(thread.id)}
                    onSelect={() => onSelect(thread.id)}
                    onStartRename={() => setRenaming(thread.id)}
                    onRename={(title) => void rename(thread.id, title)}
                    onCancelRename={() => setRenaming(null)}
                    onDelete={() => setDeleting(thread)}
                  />
                ))}
              </ul>
            </div>
          ))}
        </div>
      )}
      {deleting ? (
        <ConfirmDialog
          title="Delete thread?"
          message={`“${deleting.title || 'Untitled thread'}” and its history, including its checkpoints, will be deleted; the files in the folder stay as they are. This cannot be undone.`}
          confirmLabel="Delete"
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      ) : null}
    </section>
  );
}
