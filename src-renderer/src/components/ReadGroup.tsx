// A run of reads, searches and listings as one summary row (lib/read-groups.ts), expandable
// to each call's own card. Folded, the calls that failed or are still going stay in view
// under the row, and the row says how many failed.

import { memo } from 'react';
import { approvalKey } from '../lib/approval-key';
import { readGroupSummary } from '../lib/read-groups';
import type { ToolItem } from '../lib/thread-reducer';
import { toolStatus, type ToolStatus } from '../lib/tool-status';
import { useConversation, useKeptOpen } from './conversation-context';
import { Icon, Spinner } from './Icon';
import { ToolCallCard } from './ToolCallCard';

const FAILED: ReadonlySet<ToolStatus> = new Set(['error', 'failed', 'timeout', 'stopped', 'rejected']);
const GOING: ReadonlySet<ToolStatus> = new Set(['running', 'awaiting']);

/** Rendered again only when one of its calls changed (a page of earlier rows coming in leaves a group alone, though its list is new). */
export const ReadGroup = memo(function ReadGroup({ items }: { items: readonly ToolItem[] }): React.JSX.Element {
  const { running, pendingApprovals } = useConversation();
  const [open, setOpen] = useKeptOpen(`reads-${items[0]!.key}`);
  const statuses = items.map((item) => toolStatus(item, running, pendingApprovals.has(approvalKey(item.id, item.parent))).status);
  const failed = statuses.filter((s) => FAILED.has(s)).length;
  const going = statuses.some((s) => GOING.has(s));
  const summary = readGroupSummary(items);
  const shown = open ? items : items.filter((_, i) => FAILED.has(statuses[i]!) || GOING.has(statuses[i]!));
  return (
    <div className={`read-group${failed > 0 ? ' read-group-failed' : ''}`}>
      <button type="button" className="read-group-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        <Icon name="search" size={14} />
        <span className="read-group-summary">{summary}</span>
        {failed > 0 ? (
          <span className="read-group-status status-error">
            <Icon name="x" size={14} />
            {failed} failed
          </span>
        ) : going ? (
          <span className="read-group-status status-running">
            <Spinner />
            Running
          </span>
        ) : (
          <span className="read-group-status status-done">
            <Icon name="check" size={14} />
            Done
          </span>
        )}
      </button>
      {shown.length > 0 ? (
        <div className="read-group-body">
          {shown.map((item) => (
            <ToolCallCard key={item.key} item={item} />
          ))}
        </div>
      ) : null}
    </div>
  );
}, (before, after) => before.items.length === after.items.length && before.items.every((item, i) => item === after.items[i]));
