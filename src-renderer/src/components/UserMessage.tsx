import { memo } from 'react';
import { mentionsIn, splitAttachments } from '../lib/mention';
import type { UserItem } from '../lib/thread-reducer';
import { SentAttachments } from './AttachedFiles';
import { useCheckpoints } from '../state/checkpoints-context';

/** `turn`: the message's ordinal among the thread's user messages (top level only), for checkpoints. */
export const UserMessage = memo(function UserMessage({ item, turn }: { item: UserItem; turn?: number }): React.JSX.Element {
  const checkpoints = useCheckpoints();
  const undo = checkpoints?.changes?.undo;
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
      {checkpoints && turn !== undefined ? (
        <div className="msg-actions">
          <button type="button" className="btn btn-small btn-quiet" disabled={checkpoints.busy} onClick={() => checkpoints.restoreToMessage(turn)}>
            Restore files to before this message
          </button>
          {undo && undo.turn === turn ? (
            <button type="button" className="btn btn-small" disabled={checkpoints.busy} onClick={() => checkpoints.undoRestore()}>
              Undo restore
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
});
