import { memo } from 'react';
import type { AssistantItem } from '../lib/thread-reducer';
import { CopyButton } from './CopyButton';
import { Markdown } from './Markdown';

export const AssistantMessage = memo(function AssistantMessage({ item }: { item: AssistantItem }): React.JSX.Element {
  return (
    <div className={`msg msg-assistant${item.streaming ? ' streaming' : ''}`}>
      <Markdown text={item.text} streaming={item.streaming === true} />
      {!item.streaming ? (
        <div className="msg-tools">
          <CopyButton text={item.text} label="Copy message" />
        </div>
      ) : null}
    </div>
  );
});
