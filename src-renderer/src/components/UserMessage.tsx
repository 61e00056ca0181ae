import { memo } from 'react';
import { splitAttachments } from '../lib/mention';
import type { UserItem } from '../lib/thread-reducer';
import { SentAttachments } from './AttachedFiles';

export const UserMessage = memo(function UserMessage({ item }: { item: UserItem }): React.JSX.Element {
  const { text, files } = splitAttachments(item.text);
  return (
    <div className="msg msg-user">
      <div className="msg-role">
        You
      </div>
      <div className="msg-user-text">{text}</div>
      <SentAttachments files={files} />
    </div>
  );
});
