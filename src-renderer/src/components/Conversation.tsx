// The conversation log: messages, tool cards (subagents nested, approvals inline at the
// call), notices, the todo panel. Sticks to the bottom while new output arrives unless the
// person scrolled up; then a `Jump to latest` button appears. Sending scrolls to the sent
// message. A provider retry shows its countdown; a failed run offers `Retry`. A long
// thread comes in pages: scrolling to the top (or `Show earlier messages`) loads the one
// before, and what was on screen stays where it was.

import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ApprovalDecisionDto, PendingApproval, Result, ThreadSummaryDto } from '../../../src-main/app/contract';
import { groupItems, type RetryNotice, type ShownAttachment, type ThreadDisplayState } from '../lib/thread-reducer';
import { useMemoriesUsed } from '../state/use-memories-used';
import { useNow } from '../state/use-now';
import { ApprovalCard } from './ApprovalCard';
import { ConversationContext, type ConversationContextValue, type DecidedPreview } from './conversation-context';
import { Icon, Spinner } from './Icon';
import { ItemList } from './ItemList';
import { RowWindow } from './row-window';
import { QueuedMessages } from './QueuedMessages';
import { TodoPanel } from './TodoPanel';
import { useChangedSinceBudgetStop } from './use-budget-retry';
import { BudgetPausedNotice } from './BudgetPausedNotice';
import { useDecisionFocus } from './use-decision-focus';
import { useLogScroll } from './use-log-scroll';
import { TERMINAL_SHORTCUT_HINT } from './use-terminal-focus';
import { approvalKey } from '../lib/approval-key';
import { focusMessageBox, keyboardIsFree } from '../lib/focus';
import { useScrollFocusable } from '../lib/scroll-focusable';
import { warmMarkdown } from '../lib/markdown-render';

/** What the thread list says of the open thread's run: waiting for a run slot, and since when it goes. */
export type RunFacts = Pick<ThreadSummaryDto, 'queued' | 'runSlots' | 'runStartedAt'>;

interface ConversationProps {
  state: ThreadDisplayState;
  run?: RunFacts | undefined;
  approvals: readonly PendingApproval[];
  loading: boolean;
  noModel: boolean;
  decidedPreviews: ReadonlyMap<string, DecidedPreview>;
  onDecide(approval: PendingApproval, decision: ApprovalDecisionDto): Promise<boolean>;
  onRetry(): void;
  /** Stops the run (Esc in the conversation, as in the message box). */
  onStop(): void;
  /** Opens Settings, at the section of this label if given. */
  onOpenSettings(section?: string): void;
  openThreadFile(path: string, title: string): void;
  onSendQueuedNow(queuedId: string): Promise<void>;
  onCancelQueued(queuedId: string): Promise<void>;
  /** Loads the page before the loaded items (when state.page.cursor > 0). */
  onLoadEarlier(): Promise<void>;
  loadingEarlier: boolean;
  fullToolCall(index: number, toolCallId: string, parentToolCallId?: string): Promise<Result<'threads.toolCall'>>;
  attachment(index: number, name: string): Promise<Result<'threads.attachment'>>;
  openAttachment(file: ShownAttachment): void;
}

const keyOf = (approval: PendingApproval): string => approvalKey(approval.toolCallId, approval.parentToolCallId);

export function Conversation(props: ConversationProps): React.JSX.Element {
  const { state, run, approvals, loading, noModel, decidedPreviews, onDecide, onRetry, onStop, onOpenSettings, openThreadFile, onSendQueuedNow, onCancelQueued } = props;
  const { onLoadEarlier, loadingEarlier, fullToolCall, attachment, openAttachment } = props;
  const ref = useRef<HTMLDivElement>(null);
  useScrollFocusable(ref);
  // One thread's rows near the view, and what the person opened in its rows.
  const rowWindow = useMemo(() => new RowWindow(), [state.threadId]);
  const opened = useMemo(() => new Map<string, boolean>(), [state.threadId]);
  const { behind, onScroll, loadEarlier, jump } = useLogScroll(ref, { state, approvals, loadingEarlier, onLoadEarlier, rowWindow });
  // What rendering an answer costs the first time (grammars, the parser) is paid while the page is idle.
  useEffect(() => warmMarkdown(), []);
  const grouped = useMemo(() => groupItems(state.items), [state.items]);
  const pending = useMemo(() => new Map(approvals.map((a) => [keyOf(a), a])), [approvals]);
  const shownIds = useMemo(() => state.items.flatMap((i) => (i.kind === 'tool' ? [approvalKey(i.id, i.parent)] : [])), [state.items]);
  const orphans = useMemo(() => approvals.filter((a) => !shownIds.includes(keyOf(a))), [approvals, shownIds]);
  // Waiting approvals in the order the person reads them: as their calls stand in the
  // conversation (parallel calls reach the broker in any order), then those without a card.
  // A new list only when that changes, not with every item: the context, and so every card, follows it.
  const orderJson = useMemo(() => JSON.stringify([...shownIds.filter((key) => pending.has(key)), ...orphans.map(keyOf)]), [shownIds, pending, orphans]);
  const order = useMemo(() => JSON.parse(orderJson) as string[], [orderJson]);

  // The oldest waiting approval takes the keyboard when it appears, unless the person is
  // typing a draft or working elsewhere (the empty message box gives it up: the approval's
  // keys then work right after Send). When the last one is decided, the message box has it again.
  const [focusApproval, setFocusApproval] = useState<string | null>(null);
  const first = order[0] ?? null;
  const hadFirst = useRef(false);
  useEffect(() => {
    const free = keyboardIsFree(ref.current);
    setFocusApproval(first !== null && free ? first : null);
    if (first === null && hadFirst.current && (document.activeElement === null || document.activeElement === document.body)) focusMessageBox();
    hadFirst.current = first !== null;
  }, [first]);

  const decide = useDecisionFocus(ref, onDecide, approvals);
  const memoriesUsed = useMemoriesUsed(state.threadId, state.running);

  const context = useMemo<ConversationContextValue>(
    () => ({
      running: state.running,
      subTodos: state.subTodos,
      pendingApprovals: pending,
      approvalOrder: order,
      focusApproval,
      decide,
      decidedPreviews,
      openThreadFile,
      openSettings: onOpenSettings,
      fullToolCall,
      attachment,
      openAttachment,
      memoriesUsed,
      opened,
    }),
    [opened, state.running, state.subTodos, pending, order, focusApproval, decide, decidedPreviews, openThreadFile, onOpenSettings, fullToolCall, attachment, openAttachment, memoriesUsed],
  );

  // When the run started: as the host says (through approvals and waits for a slot), until it
  // has said so, when it started here.
  const startedHere = useRef<number | null>(null);
  if (state.running && startedHere.current === null) startedHere.current = Date.now();
  else if (!state.running) startedHere.current = null;
  const hostStart = run?.runStartedAt !== undefined ? Date.parse(run.runStartedAt) : NaN;
  const since = Number.isFinite(hostStart) ? hostStart : (startedHere.current ?? Date.now());

  // Esc stops the run from anywhere in the conversation (an approval's own Esc comes first).
  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>): void => {
    if (e.key !== 'Escape' || e.defaultPrevented || !state.running) return;
    e.preventDefault();
    onStop();
  };

  // While an answer streams the log is busy: a screen reader reads it once, whole, not in fragments.
  const streaming = state.items.some((i) => i.kind === 'assistant' && i.streaming);
  const empty = state.items.length === 0;
  const todosId = useId();
  const last = grouped.top.at(-1);
  // A budget's stop offers Retry only once the budget or the prices changed (it would stop again at once).
  const budgetChanged = useChangedSinceBudgetStop(last?.kind === 'error' && last.budget === true ? `${state.threadId ?? ''}/${last.key}` : null);
  const canRetry = !state.running && last?.kind === 'error' && last.retryable === true && (last.budget !== true || budgetChanged);
  return (
    <div className="conversation-wrap">
      {/* Above the scrolling log, not pinned over it (nothing scrolls under it), and still the log's own. */}
      <TodoPanel todos={state.todos} id={todosId} running={state.running} />
      <div
        ref={ref}
        className="conversation"
        role="log"
        aria-label="Conversation"
        aria-live="polite"
        aria-busy={streaming || undefined}
        aria-owns={state.todos.length > 0 ? todosId : undefined}
        tabIndex={-1}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
      >
        {noModel ? (
          <div className="no-model">
            <Icon name="gear" size={22} />
            <div>
              <p className="no-model-title">No model is configured yet.</p>
              <p className="muted">Choose a provider and a model (for example a local Ollama server) to start chatting.</p>
            </div>
            <button type="button" className="btn btn-primary" onClick={() => onOpenSettings()}>
              Open settings
            </button>
          </div>
        ) : null}
        {empty && loading ? (
          <div className="conversation-empty">
            <Spinner label="Loading the thread" />
          </div>
        ) : empty && !noModel ? (
          <div className="conversation-empty">
            <Icon name="chat" size={28} />
            <p>Ask the agent to read, search, change or run something in this folder.</p>
            <p className="muted">Type @ to mention a file. Enter sends, Shift+Enter adds a line.</p>
            <p className="muted small">{TERMINAL_SHORTCUT_HINT}.</p>
          </div>
        ) : null}
        {state.page.cursor > 0 ? (
          <div className="earlier-row">
            <button type="button" className="btn btn-small" disabled={loadingEarlier} onClick={loadEarlier}>
              {loadingEarlier ? <Spinner /> : <Icon name="arrowUp" size={14} />}
              {loadingEarlier ? 'Loading earlier messages…' : 'Show earlier messages'}
            </button>
          </div>
        ) : null}
        <ConversationContext.Provider value={context}>
          <ItemList items={grouped.top} nestedByCall={grouped.children} firstTurn={state.page.turnsBefore} rowWindow={rowWindow} />
          {orphans.map((approval) => (
            <ApprovalCard
              key={keyOf(approval)}
              approval={approval}
              position={order.indexOf(keyOf(approval)) + 1}
              total={order.length}
              onDecide={(decision) => decide(approval, decision)}
              autoFocus={focusApproval === keyOf(approval)}
            />
          ))}
        </ConversationContext.Provider>
        {canRetry ? (
          <div className="retry-row">
            <button type="button" className="btn" onClick={onRetry}>
              <Icon name="refresh" size={14} />
              Retry
            </button>
            <span className="muted small">Runs the agent again from here.</span>
          </div>
        ) : null}
        {state.running && state.paused ? <BudgetPausedNotice paused={state.paused} onOpenSettings={() => onOpenSettings()} /> : null}
        {state.running && run?.queued === true ? (
          <Queued slots={run.runSlots} />
        ) : state.running && !pending.size && !state.paused ? (
          <Working retry={state.retry} since={since} />
        ) : null}
        <QueuedMessages queued={state.queued} running={state.running} onSendNow={onSendQueuedNow} onCancel={onCancelQueued} />
      </div>
      {behind ? (
        <button type="button" className="btn jump-latest" onClick={jump}>
          <Icon name="arrowDown" size={14} />
          Jump to latest
        </button>
      ) : null}
    </div>
  );
}

const stopHint = (
  <span className="muted working-hint">
    · <kbd>Esc</kbd> to stop
  </span>
);

/** The run waits for one of the run slots (Settings › Runs at once) before it starts or goes on; Esc (or Stop) ends the wait. */
function Queued({ slots }: { slots: RunFacts['runSlots'] }): React.JSX.Element {
  return (
    <div className="working working-queued">
      <Icon name="circle" size={14} />
      <span className="working-text" title="Settings › Runs at once sets how many runs go at the same time">
        Queued: waiting for a free run slot{slots !== undefined ? ` (${slots.inUse} of ${slots.limit} in use)` : ''}
      </span>
      {stopHint}
    </div>
  );
}

function Working({ retry, since }: { retry: RetryNotice | null; since: number }): React.JSX.Element {
  const now = useNow(true, retry !== null ? 250 : 1000);
  if (retry === null) {
    // The seconds tick without being read out (the log is a live region).
    const elapsed = Math.max(0, Math.floor((now - since) / 1000));
    return (
      <div className="working" aria-live="off">
        <Spinner />
        <span className="working-text">
          Working… <span className="working-elapsed">{elapsed} s</span>
        </span>
        {stopHint}
      </div>
    );
  }
  const seconds = Math.max(0, Math.ceil((retry.at - now) / 1000));
  const of = retry.maxAttempts > 0 ? ` of ${retry.maxAttempts}` : '';
  return (
    <div className="working working-retry" title={retry.message}>
      <Spinner />
      <span>{seconds > 0 ? `Retrying in ${seconds} s, attempt ${retry.attempt}${of}` : `Retrying now, attempt ${retry.attempt}${of}`}</span>
      {retry.message ? <span className="muted small retry-reason">{retry.message}</span> : null}
    </div>
  );
}
