// One tool call: what it does, its truthful status (with the elapsed time while it runs),
// its result (the last lines of a command, where errors are; everything on demand), the
// approval asked inline at the call, the diff of a write or edit (kept after approval),
// offloaded results, and for `task` the subagent's activity nested inside. Reads, greps,
// globs and listings are one line, expandable.

import { memo, type ReactNode } from 'react';
import { formatBytes, formatElapsed } from '../lib/format';
import type { ToolItem } from '../lib/thread-reducer';
import { toolStatus, type ToolStatus } from '../lib/tool-status';
import { record, toolTitleText } from '../lib/tool-title';
import { approvalReasonText } from '../lib/approval-reason';
import { decidedText } from '../lib/review-words';
import { ONE_LINE_TOOLS, commandOf, oneLine, safeJson, summarizeArgs, tailLines, toolCardName, type ShownResult } from '../lib/tool-summary';
import { useMemoriesNav } from '../state/memories-nav';
import { useNow } from '../state/use-now';
import { ApprovalCard, GoalCheckBadge } from './ApprovalCard';
import { useConversation, useKeptOpen, type DecidedPreview } from './conversation-context';
import { CopyButton } from './CopyButton';
import { DiffView } from './DiffView';
import { Icon, Spinner } from './Icon';
import { PathLink } from './PathLink';
import { TodoList } from './TodoList';
import { ToolTitle } from './ToolTitle';
import { VisibleText } from './VisibleText';
import { approvalKey } from '../lib/approval-key';
import { useFullToolCall } from './use-full-tool-call';

const TAIL_LINES = 6;
const FULL_CHARS = 200_000;
const PATH_TOOLS = new Set(['read_file', 'write_file', 'edit_file', 'ls']);

function StatusIcon({ status }: { status: ToolStatus }): React.JSX.Element | null {
  if (status === 'running' || status === 'reviewing') return <Spinner />;
  if (status === 'done') return <Icon name="check" size={14} />;
  if (status === 'awaiting') return <Icon name="alert" size={14} />;
  if (status === 'answered') return <Icon name="chat" size={14} />;
  return <Icon name="x" size={14} />;
}

type Diff = DecidedPreview | { path: string; change: NonNullable<ToolItem['change']> };

/**
 * The diff of a write or edit: what it did to the file (recorded with its result: the real
 * hunks, after an edited approval and after a reload too), else while it runs what the
 * approval showed, else what the arguments say.
 */
function diffOf(item: ToolItem, decided: DecidedPreview | undefined): Diff | null {
  if (item.change) return { path: item.change.path, change: item.change };
  if (decided) return decided;
  const a = record(item.args);
  const path = typeof a.file_path === 'string' ? a.file_path : '';
  if (item.name === 'edit_file' && typeof a.old_string === 'string' && typeof a.new_string === 'string') return { path, before: a.old_string, after: a.new_string };
  return null;
}

/** A finished call's result as its one line reads it: the facts its tool counted. */
function shownResult(item: ToolItem): ShownResult | undefined {
  if (item.output === undefined) return undefined;
  return { output: item.output, ...(item.isError === true ? { isError: true } : {}), ...(item.gist !== undefined ? { gist: item.gist } : {}) };
}

export const ToolCallCard = memo(function ToolCallCard({ item: given, nested }: { item: ToolItem; nested?: ReactNode }): React.JSX.Element {
  const { running, pendingApprovals, approvalOrder, focusApproval, decide, decidedPreviews, subTodos, openThreadFile } = useConversation();
  const key = approvalKey(given.id, given.parent);
  const pending = pendingApprovals.get(key);
  const [open, setOpen] = useKeptOpen(given.key);
  // A card loaded cut (a long thread's page) shows the whole call once opened.
  const { item, status: fullStatus } = useFullToolCall(given, open);
  const [nestedOpen, setNestedOpen] = useKeptOpen(`${given.key} nested`, true);
  const { status, label, detail } = toolStatus(item, running, pending !== undefined);
  const now = useNow(status === 'running' && item.startedAt !== undefined);
  const oneLiner = ONE_LINE_TOOLS.has(item.name);
  const summary = oneLiner ? oneLine(item.name, item.args, shownResult(item)) : summarizeArgs(item.name, item.args);
  const offloaded = item.evictedTo ?? null;
  const command = item.name === 'execute' ? commandOf(item.args) : null;
  const a = record(item.args);
  const path = PATH_TOOLS.has(item.name) ? (typeof a.file_path === 'string' ? a.file_path : typeof a.path === 'string' ? a.path : null) : null;
  const todos = subTodos[item.id];
  const output = item.output ?? '';
  const tail = tailLines(output, TAIL_LINES);
  const diff = (item.name === 'write_file' || item.name === 'edit_file') && !pending ? diffOf(item, decidedPreviews.get(key)) : null;
  const what = oneLiner ? summary : `${item.name}${summary ? ` ${summary}` : ''}`;
  const elapsed = status === 'running' && item.startedAt !== undefined ? formatElapsed(now - item.startedAt) : null;
  const live = status === 'running' && item.liveOutput ? tailLines(item.liveOutput, TAIL_LINES).text : null;
  // Who decided, on the card (SPEC §23); a read's one line stays one line: the mode or rule that let it run is its status's tooltip.
  const who = decidedText(item);
  const decided = oneLiner && item.decidedBy !== 'person' && item.decidedBy !== 'reviewer' ? null : who;

  return (
    <article className={`tool-card tool-${status}${oneLiner ? ' tool-oneline' : ''}`} aria-label={toolCardName(item.name, item.args, label)}>
      <header className="tool-head">
        <button
          type="button"
          className="tool-toggle"
          aria-expanded={open}
          aria-label={`${open ? 'Hide' : 'Show'} details of ${what.length > 100 ? `${what.slice(0, 99)}…` : what}`}
          onClick={() => setOpen(!open)}
        >
          <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        </button>
        {oneLiner ? (
          <span className="tool-summary tool-line" title={summary}>
            <OneLineSummary item={item} summary={summary} path={path} />
          </span>
        ) : (
          <span className="tool-summary tool-line" title={toolTitleText(item.name, item.args)}>
            <ToolTitle name={item.name} args={item.args} />
          </span>
        )}
        <GoalCheckBadge toolCallId={item.id} />
        {item.change?.created ? (
          <span className="badge tool-created" title="The file did not exist before this call">
            Created
          </span>
        ) : null}
        {item.edited ? (
          <span className="badge tool-edited" title={item.editedByHook ? "A hook changed this call's arguments before it ran; it shows what ran" : 'The person edited this call before it ran; it shows what ran'}>
            {item.editedByHook ? 'Edited by hook' : 'Edited'}
          </span>
        ) : null}
        {item.answeredInTerminal && (item.approval === 'approved' || item.approval === 'rejected') ? (
          <span className="badge tool-answered-elsewhere" title="The person answered this call's approval in a terminal (deepdesk run or deepdesk attach)">
            {item.approval === 'approved' ? 'Approved in a terminal' : 'Rejected in a terminal'}
          </span>
        ) : null}
        {item.answeredOverProtocol !== undefined && (item.approval === 'approved' || item.approval === 'rejected' || item.approval === 'edited') ? (
          <span className="badge tool-answered-elsewhere" title="Answered by a client of the Agent Protocol (an SDK script, a useStream page, a Deep Agents parent), not in this window">
            {`${item.approval === 'approved' ? 'Approved' : item.approval === 'rejected' ? 'Rejected' : 'Edited'}${item.answeredOverProtocol !== '' ? ` by ${item.answeredOverProtocol}` : ''} over the Agent Protocol`}
          </span>
        ) : null}
        <span className={`tool-status status-${status}`} title={detail ?? (decided === null ? who : null) ?? undefined}>
          <StatusIcon status={status} />
          <span className="tool-status-label">{label}</span>
          {elapsed ? <span className="tool-elapsed"> · {elapsed}</span> : null}
        </span>
      </header>

      {/* The reviewer answers before the person (SPEC §23): no buttons while it looks. */}
      {status === 'reviewing' ? <p className="tool-reason tool-reviewing">The reviewer is looking at this call. You are asked only if it cannot answer.</p> : null}
      {decided !== null ? (
        <p className={`tool-reason tool-decided${status === 'rejected' ? ' tool-decided-deny' : ''}`}>
          <VisibleText text={decided} />
        </p>
      ) : null}
      {status === 'rejected' && item.decidedBy !== 'reviewer' ? <RefusalReason item={item} /> : null}
      {item.parseError ? <p className="tool-error-text">Arguments could not be parsed: {item.parseError}</p> : null}

      {pending ? (
        <ApprovalCard
          key={pending.toolCallId}
          approval={pending}
          position={approvalOrder.indexOf(key) + 1}
          total={approvalOrder.length}
          onDecide={(decision) => decide(pending, decision)}
          autoFocus={focusApproval === key}
          {...(item.reviewFailed !== undefined ? { reviewFailed: item.reviewFailed } : {})}
          inCard
        />
      ) : null}

      {!pending && command !== null && !oneLiner ? (
        <div className="tool-command">
          <pre className="mono">
            <span className="prompt" aria-hidden="true">$ </span>
            <VisibleText text={command} />
          </pre>
          <CopyButton text={command} label="Copy command" />
        </div>
      ) : null}

      {diff && !open ? <DiffOf diff={diff} /> : null}

      {live !== null ? (
        <pre className="tool-preview tool-live" aria-live="off">
          {live}
        </pre>
      ) : null}

      {open ? (
        <div className="tool-body">
          {diff ? <DiffOf diff={diff} /> : null}
          {item.edited ? (
            <>
              <div className="tool-section-label">{command !== null ? 'The agent proposed' : 'Arguments the agent proposed'}</div>
              <pre className="tool-pre tool-pre-proposed" tabIndex={0}>
                <VisibleText text={item.name === 'execute' ? (commandOf(item.originalArgs) ?? safeJson(item.originalArgs, 2)) : safeJson(item.originalArgs, 2)} />
              </pre>
            </>
          ) : null}
          {command === null ? (
            <>
              <div className="tool-section-label">Arguments</div>
              <pre className="tool-pre" tabIndex={0}>
                <VisibleText text={safeJson(item.args, 2)} />
              </pre>
            </>
          ) : null}
          {fullStatus === 'loading' ? <p className="muted">Loading the full call…</p> : null}
          {fullStatus !== null && fullStatus !== 'loading' ? <p className="tool-error-text">Could not load the full call: {fullStatus.error}</p> : null}
          {item.output !== undefined ? (
            <>
              <div className="tool-section-label">
                Result <CopyButton text={output} label="Copy output" />
              </div>
              <pre className={`tool-pre${item.isError ? ' tool-pre-error' : ''}`} tabIndex={0}>{output.length > FULL_CHARS ? output.slice(-FULL_CHARS) : output}</pre>
              {output.length > FULL_CHARS ? <p className="muted">Showing the last {formatBytes(FULL_CHARS)} of the result.</p> : null}
            </>
          ) : null}
        </div>
      ) : output !== '' && !offloaded && !oneLiner && !diff && status !== 'rejected' ? (
        <div className="tool-output">
          {tail.hidden > 0 ? (
            <button type="button" className="tool-more" aria-label={`Show all ${tail.hidden + TAIL_LINES} lines of output of ${what.slice(0, 80)}`} onClick={() => setOpen(true)}>
              … {tail.hidden} earlier line{tail.hidden === 1 ? '' : 's'}
            </button>
          ) : null}
          <pre className={`tool-preview${item.isError || status === 'failed' || status === 'timeout' ? ' tool-pre-error' : ''}`}>{tail.text}</pre>
          <CopyButton text={output} label="Copy output" className="tool-output-copy" />
        </div>
      ) : null}

      {item.image ? <p className="muted tool-note">Returned an image ({item.image.mimeType}).</p> : null}

      {item.proposedMemory !== undefined ? <MemoryProposed path={item.proposedMemory} /> : null}

      {item.subagentModel !== undefined ? (
        <p className="muted tool-note">
          Ran on <code className="mono">{item.subagentModel}</code>
        </p>
      ) : null}

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
          <button type="button" className="subagent-head" aria-expanded={nestedOpen} aria-label={`${nestedOpen ? 'Hide' : 'Show'} subagent activity`} onClick={() => setNestedOpen(!nestedOpen)}>
            <Icon name={nestedOpen ? 'chevronDown' : 'chevronRight'} size={12} />
            Subagent activity
          </button>
          {nestedOpen ? (
            <div className="subagent-body">
              {todos && todos.length > 0 ? <TodoList todos={todos} live={status === 'running'} /> : null}
              {nested}
            </div>
          ) : null}
        </div>
      ) : null}
    </article>
  );
});

/** A memory the agent wrote beside untrusted content waits for the person (SPEC §25): `Review` opens the Memories panel's Proposed list at it. */
function MemoryProposed({ path }: { path: string }): React.JSX.Element {
  const { review } = useMemoriesNav();
  return (
    <div className="tool-memory-proposed" role="group" aria-label="Memory proposed">
      <Icon name="brain" size={14} />
      <span>
        <strong>Memory proposed</strong> <code className="mono">{<VisibleText text={path} />}</code>: written while untrusted content was in context, it is not used
        elsewhere until you approve it.
      </span>
      <button type="button" className="btn btn-small" onClick={() => review(path)}>
        Review
      </button>
    </div>
  );
}

/**
 * Why a call did not run, said once: the hook that blocked it and its words, the rule that
 * refused it, or the person's own message (the result, which restates it for the agent,
 * stays under the card's details).
 */
function RefusalReason({ item }: { item: ToolItem }): React.JSX.Element | null {
  const reason = refusalOf(item);
  return reason ? <p className="tool-reason">{reason}</p> : null;
}

function refusalOf(item: ToolItem): ReactNode {
  if (item.blockedByHook !== undefined) {
    // The hook's own words, from the reason's data (a reason without it is shown as written).
    const said = item.approvalWhy?.kind === 'hook' ? item.approvalWhy.message : item.approvalReason;
    return (
      <>
        Blocked by hook <code className="mono">{<VisibleText text={item.blockedByHook} />}</code>
        {said ? (
          <>
            : <VisibleText text={said} />
          </>
        ) : null}
      </>
    );
  }
  if (item.approval === 'denied' && item.approvalReason) return <VisibleText text={approvalReasonText(item.name, record(item.args), item.approvalReason, item.approvalWhy)} />;
  // A call refused by the mode, a rule or a hook: its result says why, as the agent was told.
  if (item.rejected !== undefined && item.rejected.by !== 'person' && (item.output ?? '').trim() !== '') return <VisibleText text={(item.output ?? '').trim().replace(/^Error: /, '')} />;
  const message = item.rejected?.by === 'person' && item.rejected.answered !== true ? item.rejected.message?.trim() : undefined;
  return message ? (
    <>
      You said: <VisibleText text={message} />
    </>
  ) : null;
}

function DiffOf({ diff }: { diff: Diff }): React.JSX.Element {
  return 'change' in diff ? <DiffView path={diff.path} change={diff.change} /> : <DiffView path={diff.path} before={diff.before} after={diff.after} />;
}

/** `Read README.md · 120 lines` with the path as a link; short of room, what follows it truncates and its folders give way. */
function OneLineSummary({ item, summary, path }: { item: ToolItem; summary: string; path: string | null }): React.JSX.Element {
  if (path === null || item.name !== 'read_file') return <VisibleText text={summary} />;
  const shown = path.replace(/^\//, '');
  const at = summary.indexOf(shown);
  if (at < 0) return <VisibleText text={summary} />;
  const before = summary.slice(0, at);
  const after = summary.slice(at + shown.length);
  return (
    <>
      <VisibleText text={before} />
      <PathLink path={path} label={shown} fit />
      <VisibleText text={after} />
    </>
  );
}
