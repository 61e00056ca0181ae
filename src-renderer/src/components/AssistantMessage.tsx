import { memo } from 'react';
import type { AssistantItem } from '../lib/thread-reducer';
import { Markdown } from './Markdown';

export const AssistantMessage = memo(function AssistantMessage({ item }: { item: AssistantItem }): React.JSX.Element {
  return (
    <div className={`msg msg-assistant${item.streaming ? ' streaming' : ''}`}>
      <Markdown text={item.text} streaming={item.streaming === true} />
    </div>
  );
});
