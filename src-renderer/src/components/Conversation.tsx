// The conversation log: messages, tool cards (subagents nested), notices, the todo panel.
// Sticks to the bottom while new output arrives unless the person scrolled up.

import { useLayoutEffect, useMemo, useRef } from 'react';
import type { PendingApproval } from '../../../src-main/app/contract';
import { groupItems, type ThreadDisplayState } from '../lib/thread-reducer';
import { ConversationContext, type ConversationContextValue } from './conversation-context';
import { Icon, Spinner } from './Icon';
import { ItemList } from './ItemList';
import { QueuedMessages } from './QueuedMessages';
import { TodoPanel } from './TodoPanel';

interface ConversationProps {
  state: ThreadDisplayState;
  approvals: readonly PendingApproval[];
  loading: boolean;
  noModel: boolean;
  onOpenSettings(): void;
  openThreadFile(path: string, title: string): void;
  onSendQueuedNow?(queuedId: string): Promise<void>;
  onCancelQueued?(queuedId: string): Promise<void>;
}

const STICK_DISTANCE = 80;

const noop = async (): Promise<void> => undefined;

export function Conversation({ state, approvals, loading, noModel, onOpenSettings, openThreadFile, onSendQueuedNow = noop, onCancelQueued = noop }: ConversationProps): React.JSX.Element {
  const ref = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const grouped = useMemo(() => groupItems(state.items), [state.items]);
  const pending = useMemo(() => new Set(approvals.map((a) => a.toolCallId)), [approvals]);
  const context = useMemo<ConversationContextValue>(
    () => ({ running: state.running, subTodos: state.subTodos, pendingApprovals: pending, openThreadFile }),
    [state.running, state.subTodos, pending, openThreadFile],
  );

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [state.items, state.todos, state.queued]);

  useLayoutEffect(() => {
    stick.current = true;
  }, [state.threadId]);

  const onScroll = (): void => {
    const el = ref.current;
    if (el) stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_DISTANCE;
  };

  const empty = state.items.length === 0;
  return (
    <div ref={ref} className="conversation" role="log" aria-label="Conversation" aria-live="polite" onScroll={onScroll}>
      <TodoPanel todos={state.todos} />
      {noModel ? (
        <div className="no-model">
          <Icon name="gear" size={22} />
          <div>
            <p className="no-model-title">No model is configured yet.</p>
            <p className="muted">Choose a provider and a model (for example a local Ollama server) to start chatting.</p>
          </div>
          <button type="button" className="btn btn-primary" onClick={onOpenSettings}>
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
        </div>
      ) : null}
      <ConversationContext.Provider value={context}>
        <ItemList items={grouped.top} nestedByCall={grouped.children} />
      </ConversationContext.Provider>
      {state.running && !pending.size ? (
        <div className="working">
          <Spinner /> Working…
        </div>
      ) : null}
      <QueuedMessages queued={state.queued} running={state.running} onSendNow={onSendQueuedNow} onCancel={onCancelQueued} />
    </div>
  );
}
