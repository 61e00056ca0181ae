// Where older history was summarized: how much, the summary, and the archived original.

import { memo } from 'react';
import type { SummaryItem } from '../lib/thread-reducer';
import { useConversation, useKeptOpen } from './conversation-context';
import { Icon } from './Icon';
import { Markdown } from './Markdown';

export const SummaryNotice = memo(function SummaryNotice({ item }: { item: SummaryItem }): React.JSX.Element {
  const { openThreadFile } = useConversation();
  const [open, setOpen] = useKeptOpen(item.key);
  const count = item.summarizedMessages;
  return (
    <div className="notice notice-summary">
      <div className="notice-row">
        <Icon name="archive" />
        <span>
          History summarized: {count} earlier message{count === 1 ? ' was' : 's were'} condensed to keep the context small.
        </span>
      </div>
      <div className="notice-actions">
        {item.text ? (
          <button type="button" className="btn btn-small" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide summary' : 'Show summary'}
          </button>
        ) : null}
        {item.archivePath ? (
          <button type="button" className="btn btn-small" onClick={() => openThreadFile(item.archivePath, 'Archived history')}>
            Open archived history
          </button>
        ) : null}
      </div>
      {open ? <Markdown className="summary-text" text={item.text} /> : null}
    </div>
  );
});
