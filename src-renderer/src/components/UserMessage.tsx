import { memo } from 'react';
import type { UserItem } from '../lib/thread-reducer';

export const UserMessage = memo(function UserMessage({ item }: { item: UserItem }): React.JSX.Element {
  return (
    <div className="msg msg-user">
      <div className="msg-role">
        You
      </div>
      <div className="msg-user-text">{item.text}</div>
    </div>
  );
});
