// One thread in the list, one line (title, then when, or that it runs or waits its turn, and
// a mark when another thread works in its folder) and a second only when there is more to
// say (it waits for an approval, it came from a removed worktree, or what the search found in
// it); with its inline rename field.

import { sourceLabel } from '../lib/thread-source';
import { useEffect, useRef, useState } from 'react';
import type { ThreadSummaryDto } from '../../../src-main/app/contract';
import { Icon, IconButton, Spinner } from './Icon';
import { SharedFolderMark } from './SharedFolderMark';

interface ThreadListItemProps {
  thread: ThreadSummaryDto;
  current: boolean;
  running: boolean;
  renaming: boolean;
  /** How long ago it changed, in words (`5 min ago`) and in few characters for the row (`5m`). */
  when: string;
  age: string;
  /** What matched the search in its messages, when it was found by them. */
  match?: string | undefined;
  onSelect(): void;
  onStartRename(): void;
  onRename(title: string): void;
  onCancelRename(): void;
  onDelete(): void;
}

export function ThreadListItem(props: ThreadListItemProps): React.JSX.Element {
  const { thread, current, running, renaming, when, age, match } = props;
  const title = thread.title || 'Untitled thread';
  const [draft, setDraft] = useState(title);
  const input = useRef<HTMLInputElement>(null);
  /** Set once Enter or Escape finished the edit, so the blur that may follow does nothing. */
  const finished = useRef(false);

  // The rename field goes when it is done: the keyboard goes back to the thread, not the page.
  const select = useRef<HTMLButtonElement>(null);
  const wasRenaming = useRef(false);
  useEffect(() => {
    if (wasRenaming.current && !renaming && (document.activeElement === null || document.activeElement === document.body)) select.current?.focus();
    wasRenaming.current = renaming;
  }, [renaming]);

  useEffect(() => {
    if (!renaming) return;
    finished.current = false;
    setDraft(thread.title);
    requestAnimationFrame(() => input.current?.select());
  }, [renaming, thread.title]);

  if (renaming) {
    return (
      <li className="thread-item current renaming">
        <input
          ref={input}
          className="thread-rename"
          aria-label="Thread title"
          value={draft}
          maxLength={200}
          autoFocus
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter' && e.key !== 'Escape') return;
            e.preventDefault();
            finished.current = true;
            if (e.key === 'Enter') props.onRename(draft);
            else props.onCancelRename();
          }}
          onBlur={() => {
            if (!finished.current) props.onRename(draft);
          }}
        />
      </li>
    );
  }

  return (
    <li className={`thread-item${current ? ' current' : ''}`}>
      <button
        ref={select}
        type="button"
        className="thread-select"
        data-roving-key={thread.id}
        title={title}
        aria-current={current ? 'true' : undefined}
        aria-keyshortcuts="F2 Delete"
        onClick={props.onSelect}
        onDoubleClick={props.onStartRename}
        onKeyDown={(e) => {
          if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
          if (e.key === 'F2') props.onStartRename();
          else if (e.key === 'Delete') props.onDelete();
          else return;
          e.preventDefault();
        }}
      >
        {/* One line: the title, as wide as the row allows, then when (or that it runs). */}
        <span className="thread-line">
          <span className="thread-title">{title}</span>
          {thread.sharesFolder === true ? <SharedFolderMark /> : null}
          {thread.queued === true && thread.pendingApprovals === 0 ? (
            <span className="thread-queued muted" title="It waits for a free run slot (Settings › Runs at once)">
              Queued
            </span>
          ) : running && thread.pendingApprovals === 0 ? (
            <span className="thread-running">
              <Spinner /> running
            </span>
          ) : (
            <span className="thread-when muted">
              <span aria-hidden="true">{age}</span>
              <span className="visually-hidden">{when}</span>
            </span>
          )}
        </span>
        {thread.pendingApprovals > 0 ? (
          <span className="thread-meta">
            <span
              className="badge badge-warn thread-waiting"
              title={thread.pendingApprovals === 1 ? 'A call waits for your approval' : `${thread.pendingApprovals} calls wait for your approval`}
            >
              waiting for approval
            </span>
          </span>
        ) : null}
        {thread.source !== undefined || thread.agent !== undefined ? (
          <span className="thread-meta">
            {/* Whose thread it is when its agent is another one (SPEC §22). */}
            {thread.agent !== undefined ? (
              <span className="badge thread-agent" title={`This thread's agent is ${thread.agent}`}>
                {thread.agent}
              </span>
            ) : null}
            {thread.source !== undefined ? (
              <span className="badge thread-source" title="Started from another tool, not in this window">
                From {sourceLabel(thread.source)}
              </span>
            ) : null}
          </span>
        ) : null}
        {thread.removedWorktree !== undefined ? (
          <span className="thread-meta">
            <span className="thread-removed-worktree muted" title={`It worked in worktree ${thread.removedWorktree.name}, removed since; it goes on in this folder`}>
              <Icon name="branch" size={12} />
              {/* The branch first: in a narrow row it is what stays. */}
              <span className="thread-removed-worktree-text">
                <span className="mono">{thread.removedWorktree.branch}</span> (worktree removed)
              </span>
            </span>
          </span>
        ) : null}
        {match !== undefined ? (
          <span className="thread-match muted" title={match}>
            {match}
          </span>
        ) : null}
      </button>
      {/* Out of the Tab order (the thread is one stop): F2 and Delete on the thread do the same. */}
      <span className="thread-actions">
        <IconButton icon="pencil" tabIndex={-1} aria-label={`Rename thread ${title}`} title="Rename (F2)" onClick={props.onStartRename} />
        <IconButton icon="trash" tabIndex={-1} aria-label={`Delete thread ${title}`} title="Delete (Delete)" onClick={props.onDelete} />
      </span>
    </li>
  );
}
