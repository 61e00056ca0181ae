import { memo } from 'react';
import { mentionsIn, splitAttachments } from '../lib/mention';
import type { UserItem } from '../lib/thread-reducer';
import { SentAttachments } from './AttachedFiles';

export const UserMessage = memo(function UserMessage({ item }: { item: UserItem }): React.JSX.Element {
  const split = splitAttachments(item.text);
  // The window's own echo of a message just sent carries the mentions, not yet the files.
  const { text, files } = split.files.length > 0 ? split : { text: item.text, files: mentionsIn(item.text).map((path) => ({ path })) };
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
