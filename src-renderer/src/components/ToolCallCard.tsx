// One tool call: name and arguments, its result (a preview, the whole on demand), errors,
// offloaded results, approval state, and for `task` the subagent's activity nested inside.

import { memo, useState, type ReactNode } from 'react';
import { formatBytes } from '../lib/format';
import type { ToolItem } from '../lib/thread-reducer';
import { toolStatus } from '../lib/tool-status';
import { commandOf, offloadedPath, previewLines, safeJson, summarizeArgs } from '../lib/tool-summary';
import { useConversation } from './conversation-context';
import { Icon, Spinner } from './Icon';
import { TodoList } from './TodoList';

const PREVIEW_LINES = 4;
const PREVIEW_CHARS = 600;
const FULL_CHARS = 200_000;

export const ToolCallCard = memo(function ToolCallCard({ item, nested }: { item: ToolItem; nested?: ReactNode }): React.JSX.Element {
  const { running, pendingApprovals, subTodos, openThreadFile } = useConversation();
  const [open, setOpen] = useState(false);
  const [nestedOpen, setNestedOpen] = useState(true);
  const { status, label } = toolStatus(item, running, pendingApprovals.has(item.id));
  const summary = summarizeArgs(item.name, item.args);
  const offloaded = offloadedPath(item.output, item.evictedTo);
  const command = item.name === 'execute' ? commandOf(item.args) : null;
  const todos = subTodos[item.id];
  const output = item.output ?? '';
  const preview = previewLines(output.length > PREVIEW_CHARS ? output.slice(0, PREVIEW_CHARS) : output, PREVIEW_LINES);
  const previewCut = preview.hidden > 0 || output.length > PREVIEW_CHARS;

  return (
    <article className={`tool-card tool-${status}`} aria-label={`Tool call ${item.name}`}>
      <header className="tool-head">
        <button type="button" className="tool-toggle" aria-expanded={open} aria-label={open ? 'Hide details' : 'Show details'} onClick={() => setOpen((v) => !v)}>
          <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        </button>
        <span className="tool-name">{item.name}</span>
        {summary ? <span className="tool-summary" title={summary}>{summary}</span> : null}
        {item.edited ? (
          <span className="badge tool-edited" title="The person edited this call before it ran; it shows what ran">
            Edited
          </span>
        ) : null}
        <span className={`tool-status status-${status}`}>
          {status === 'running' ? <Spinner /> : status === 'done' ? <Icon name="check" size={14} /> : status === 'error' || status === 'rejected' ? <Icon name="x" size={14} /> : status === 'awaiting' ? <Icon name="alert" size={14} /> : null}
          {label}
        </span>
      </header>

      {item.approvalReason && (status === 'awaiting' || status === 'rejected') ? <p className="tool-reason">{item.approvalReason}</p> : null}
      {item.parseError ? <p className="tool-error-text">Arguments could not be parsed: {item.parseError}</p> : null}

      {open ? (
        <div className="tool-body">
          <div className="tool-section-label">{command !== null ? 'Command' : 'Arguments'}</div>
          <pre className="tool-pre">{command ?? safeJson(item.args, 2)}</pre>
          {item.edited ? (
            <>
              <div className="tool-section-label">{command !== null ? 'The agent proposed' : 'Arguments the agent proposed'}</div>
              <pre className="tool-pre tool-pre-proposed">{item.name === 'execute' ? (commandOf(item.originalArgs) ?? safeJson(item.originalArgs, 2)) : safeJson(item.originalArgs, 2)}</pre>
            </>
          ) : null}
          {item.output !== undefined ? (
            <>
              <div className="tool-section-label">Result</div>
              <pre className={`tool-pre${item.isError ? ' tool-pre-error' : ''}`}>
                {output.length > FULL_CHARS ? output.slice(0, FULL_CHARS) : output}
              </pre>
              {output.length > FULL_CHARS ? <p className="muted">Showing the first {formatBytes(FULL_CHARS)} of the result.</p> : null}
            </>
          ) : null}
        </div>
      ) : output !== '' && !offloaded ? (
        <pre className={`tool-preview${item.isError ? ' tool-pre-error' : ''}`}>
          {preview.text}
          {previewCut ? <span className="muted">{'\n'}…</span> : null}
        </pre>
      ) : null}

      {item.image ? <p className="muted tool-note">Returned an image ({item.image.mimeType}).</p> : null}

      {offloaded ? (
        <div className="tool-offloaded">
          <Icon name="archive" size={14} />
          <span>
            Large result offloaded to <code>{offloaded}</code>
          </span>
          <button type="button" className="btn btn-small" onClick={() => openThreadFile(offloaded, 'Offloaded tool result')}>
            Open offloaded result
          </button>
        </div>
      ) : null}

      {nested || todos ? (
        <div className="subagent">
          <button type="button" className="subagent-head" aria-expanded={nestedOpen} onClick={() => setNestedOpen((v) => !v)}>
            <Icon name={nestedOpen ? 'chevronDown' : 'chevronRight'} size={12} />
            Subagent activity
          </button>
          {nestedOpen ? (
            <div className="subagent-body">
              {todos && todos.length > 0 ? <TodoList todos={todos} /> : null}
              {nested}
            </div>
          ) : null}
        </div>
      ) : null}
    </article>
  );
});
