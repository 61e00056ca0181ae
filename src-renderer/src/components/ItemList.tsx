// Renders conversation items in order; a task call's nested items go inside its card; a run
// of reads and searches folds into one row (ReadGroup). The log's own list (given a
// RowWindow) puts each row in a box of its own and renders only the rows near the view.

import { Fragment, memo, startTransition, useLayoutEffect, useMemo, useState, type ReactNode } from 'react';
import { approvalKey } from '../lib/approval-key';
import { readGroupRows, type ConvRow } from '../lib/read-groups';
import type { ConvItem } from '../lib/thread-reducer';
import { AssistantMessage } from './AssistantMessage';
import { ReadGroup } from './ReadGroup';
import { ToolCallCard } from './ToolCallCard';
import { SummaryNotice } from './SummaryNotice';
import { UserMessage } from './UserMessage';
import { Icon } from './Icon';
import { MemoriesUsed } from './MemoriesUsed';
import { useConversation, useKeptOpen } from './conversation-context';
import type { RowWindow } from './row-window';

interface ItemListProps {
  items: readonly ConvItem[];
  /** Items nested under each task call, by call id (kept out of context: it changes every frame). */
  nestedByCall: ReadonlyMap<string, ConvItem[]>;
  depth?: number;
  /** The ordinal of the first top-level user message here (earlier ones are not loaded). */
  firstTurn?: number;
  /** The log's rows near the view (the top level only). */
  rowWindow?: RowWindow;
}

const rowKey = (row: ConvRow): string => (row.kind === 'reads' ? row.key : row.item.key);

export const ItemList = memo(function ItemList({ items, nestedByCall, depth = 0, firstTurn = 0, rowWindow }: ItemListProps): React.JSX.Element {
  const rows = useMemo(() => readGroupRows(items), [items]);
  // Top-level user messages are the person's turns; checkpoints name them by ordinal.
  const turns = useMemo(() => {
    let turn = firstTurn;
    return rows.map((row) => (depth === 0 && row.kind === 'item' && row.item.kind === 'user' && row.item.parent === undefined ? turn++ : -1));
  }, [rows, depth, firstTurn]);
  const last = turns.reduce((n, t) => Math.max(n, t + 1), firstTurn);
  const render = (row: ConvRow, i: number): ReactNode => <Row row={row} turn={turns[i]!} nestedByCall={nestedByCall} depth={depth} />;
  return (
    <>
      {rowWindow ? (
        <WindowedRows rows={rows} nestedByCall={nestedByCall} rowWindow={rowWindow} render={render} />
      ) : (
        rows.map((row, i) => <Fragment key={rowKey(row)}>{render(row, i)}</Fragment>)
      )}
      {depth === 0 && last > 0 ? <MemoriesUsed turn={last} /> : null}
    </>
  );
});

/** Does this row hold a call waiting for the person's approval (its own, or a subagent's inside it)? */
function asksApproval(items: readonly ConvItem[], nestedByCall: ReadonlyMap<string, ConvItem[]>, pending: ReadonlyMap<string, unknown>, depth = 0): boolean {
  return items.some((item) => item.kind === 'tool' && (pending.has(approvalKey(item.id, item.parent)) || (depth < 4 && asksApproval(nestedByCall.get(item.id) ?? [], nestedByCall, pending, depth + 1))));
}

/** The rows near the view, each in its box; every run of the others one spacer as tall. */
function WindowedRows({ rows, nestedByCall, rowWindow, render }: { rows: readonly ConvRow[]; nestedByCall: ReadonlyMap<string, ConvItem[]>; rowWindow: RowWindow; render(row: ConvRow, i: number): ReactNode }): React.JSX.Element {
  // A move of the window renders as a transition: rows coming in never hold a frame up (the overscan covers the wait).
  const [committed, setCommitted] = useState(() => ({ of: rowWindow, shown: rowWindow.snapshot() }));
  const shown = committed.of === rowWindow ? committed.shown : rowWindow.snapshot();
  useLayoutEffect(() => {
    const follow = (): void => startTransition(() => setCommitted({ of: rowWindow, shown: rowWindow.snapshot() }));
    if (rowWindow.snapshot() !== shown) follow();
    return rowWindow.subscribe(follow);
    // Subscribed once per window; `shown` is only checked for a move missed before it.
  }, [rowWindow]);
  const { near, focused } = shown;
  const { pendingApprovals } = useConversation();
  const keys = rows.map(rowKey);
  useLayoutEffect(() => {
    rowWindow.keys = keys;
  });
  useLayoutEffect(() => rowWindow.rendered(shown), [shown, rowWindow]);
  // Rows that came after the last near one (new output) are on the page; an earlier page's waits until it is near.
  let lastNear = -1;
  if (near !== null) keys.forEach((key, i) => (near.has(key) ? (lastNear = i) : undefined));
  const isShown = (row: ConvRow, i: number): boolean =>
    near === null ||
    near.has(keys[i]!) ||
    (i > lastNear && !rowWindow.measured(keys[i]!)) ||
    focused === keys[i] ||
    (pendingApprovals.size > 0 && asksApproval(row.kind === 'reads' ? row.items : [row.item], nestedByCall, pendingApprovals));
  const out: ReactNode[] = [];
  let hidden: string[] = [];
  const flush = (): void => {
    if (hidden.length === 0) return;
    out.push(<div key={`spacer-${hidden[0]}`} className="conversation-spacer" aria-hidden="true" data-rows={hidden.length} style={{ height: rowWindow.spacer(hidden) }} />);
    hidden = [];
  };
  rows.forEach((row, i) => {
    if (!isShown(row, i)) return void hidden.push(keys[i]!);
    flush();
    out.push(
      <div key={keys[i]} className="conversation-row" data-row={keys[i]}>
        {render(row, i)}
      </div>,
    );
  });
  flush();
  return <>{out}</>;
}

function Row({ row, turn, nestedByCall, depth }: { row: ConvRow; turn: number; nestedByCall: ReadonlyMap<string, ConvItem[]>; depth: number }): React.JSX.Element | null {
  if (row.kind === 'reads') return <ReadGroup items={row.items} />;
  const item = row.item;
  switch (item.kind) {
    case 'user':
      // The turn before ends here: the memories it used (turns count from 1).
      if (turn < 0) return <UserMessage item={item} />;
      return (
        <>
          {turn > 0 ? <MemoriesUsed turn={turn} /> : null}
          <UserMessage item={item} turn={turn} />
        </>
      );
    case 'assistant':
      return <AssistantMessage item={item} />;
    case 'tool': {
      const nested = depth < 4 ? nestedByCall.get(item.id) : undefined;
      return <ToolCallCard item={item} nested={nested && nested.length > 0 ? <ItemList items={nested} nestedByCall={nestedByCall} depth={depth + 1} /> : undefined} />;
    }
    case 'summary':
      return <SummaryNotice item={item} />;
    case 'error':
      return <ErrorNotice itemKey={item.key} message={item.message} settings={item.settings === true} budget={item.budget === true} {...(item.detail !== undefined ? { detail: item.detail } : {})} />;
    case 'notice':
      if (item.reviewer) return <ReviewerNotice text={item.text} />;
      // A note the agent was given about a restore of files: what changed back (Undo restore is on the message or in Changes).
      if (item.restore) {
        return (
          <div className="notice notice-summary notice-restore" role="note">
            <div className="notice-row">
              <Icon name="refresh" />
              <span>{item.text}</span>
            </div>
          </div>
        );
      }
      return <div className="notice notice-info">{item.text}</div>;
  }
}

/** The reviewer's breaker tripped (SPEC §23): the person answers again until review is turned back on, in Settings. */
function ReviewerNotice({ text }: { text: string }): React.JSX.Element {
  const { openSettings } = useConversation();
  return (
    <div className="notice notice-info notice-reviewer" role="note">
      <div className="notice-row">
        <Icon name="shield" />
        <span className="notice-text">{text}</span>
        {openSettings ? (
          <button type="button" className="btn btn-small" onClick={() => openSettings('Approvals')}>
            Review settings
          </button>
        ) : null}
      </div>
    </div>
  );
}

/**
 * A failed run or send, in plain words; when its fix is in Settings (no model or key, a
 * refused key, a server not reached) it offers them. The technical text, when there is one,
 * is kept behind `Technical detail`. A budget's stop says its own line (it is no failure)
 * and opens Settings at `Prices`, where the budget and the prices are.
 */
function ErrorNotice({ itemKey, message, settings, budget, detail }: { itemKey: string; message: string; settings: boolean; budget: boolean; detail?: string }): React.JSX.Element {
  const { openSettings } = useConversation();
  const [open, setOpen] = useKeptOpen(itemKey);
  return (
    <div className={`notice notice-error${budget ? ' notice-budget' : ''}`}>
      <div className="notice-row">
        <Icon name="alert" />
        <span className="notice-text">{budget ? message : `Error: ${message}`}</span>
        {settings && openSettings ? (
          <button type="button" className="btn btn-small" onClick={() => openSettings(budget ? 'Prices' : undefined)}>
            Open settings
          </button>
        ) : null}
      </div>
      {detail !== undefined ? (
        <details className="notice-detail" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary>Technical detail</summary>
          <code>{detail}</code>
        </details>
      ) : null}
    </div>
  );
}
