// Renders conversation items in order; a task call's nested items go inside its card; a run
// of reads and searches folds into one row (ReadGroup).

import { Fragment, memo, useMemo } from 'react';
import { readGroupRows } from '../lib/read-groups';
import type { ConvItem, ToolItem } from '../lib/thread-reducer';
import { AssistantMessage } from './AssistantMessage';
import { ReadGroup } from './ReadGroup';
import { ToolCallCard } from './ToolCallCard';
import { SummaryNotice } from './SummaryNotice';
import { UserMessage } from './UserMessage';
import { Icon } from './Icon';
import { MemoriesUsed } from './MemoriesUsed';
import { useConversation } from './conversation-context';

interface ItemListProps {
  items: readonly ConvItem[];
  /** Items nested under each task call, by call id (kept out of context: it changes every frame). */
  nestedByCall: ReadonlyMap<string, ConvItem[]>;
  depth?: number;
  /** The ordinal of the first top-level user message here (earlier ones are not loaded). */
  firstTurn?: number;
}

export const ItemList = memo(function ItemList({ items, nestedByCall, depth = 0, firstTurn = 0 }: ItemListProps): React.JSX.Element {
  let turn = firstTurn;
  const rows = useMemo(() => readGroupRows(items), [items]);
  const card = (item: ToolItem): React.JSX.Element => {
    const nested = depth < 4 ? nestedByCall.get(item.id) : undefined;
    return (
      <ToolCallCard key={item.key} item={item} nested={nested && nested.length > 0 ? <ItemList items={nested} nestedByCall={nestedByCall} depth={depth + 1} /> : undefined} />
    );
  };
  return (
    <>
      {rows.map((row) => {
        if (row.kind === 'reads') return <ReadGroup key={row.key} items={row.items} />;
        const item = row.item;
        switch (item.kind) {
          case 'user': {
            // Top-level user messages are the person's turns; checkpoints name them by ordinal.
            if (depth > 0 || item.parent !== undefined) return <UserMessage key={item.key} item={item} />;
            const ordinal = turn++;
            // The turn before ends here: the memories it used (turns count from 1).
            return (
              <Fragment key={item.key}>
                {ordinal > 0 ? <MemoriesUsed turn={ordinal} /> : null}
                <UserMessage item={item} turn={ordinal} />
              </Fragment>
            );
          }
          case 'assistant':
            return <AssistantMessage key={item.key} item={item} />;
          case 'tool':
            return card(item);
          case 'summary':
            return <SummaryNotice key={item.key} item={item} />;
          case 'error':
            return (
              <ErrorNotice
                key={item.key}
                message={item.message}
                settings={item.settings === true}
                budget={item.budget === true}
                {...(item.detail !== undefined ? { detail: item.detail } : {})}
              />
            );
          case 'notice':
            if (item.reviewer) return <ReviewerNotice key={item.key} text={item.text} />;
            // A note the agent was given about a restore of files: what changed back (Undo restore is on the message or in Changes).
            if (item.restore) {
              return (
                <div key={item.key} className="notice notice-summary notice-restore" role="note">
                  <div className="notice-row">
                    <Icon name="refresh" />
                    <span>{item.text}</span>
                  </div>
                </div>
              );
            }
            return (
              <div key={item.key} className="notice notice-info">
                {item.text}
              </div>
            );
        }
      })}
      {depth === 0 && turn > 0 ? <MemoriesUsed turn={turn} /> : null}
    </>
  );
});

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
function ErrorNotice({ message, settings, budget, detail }: { message: string; settings: boolean; budget: boolean; detail?: string }): React.JSX.Element {
  const { openSettings } = useConversation();
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
        <details className="notice-detail">
          <summary>Technical detail</summary>
          <code>{detail}</code>
        </details>
      ) : null}
    </div>
  );
}
