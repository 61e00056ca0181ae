import { memo } from 'react';
import type { UserItem } from '../lib/thread-reducer';
import { useCheckpoints } from '../state/checkpoints-context';

/** `turn`: the message's ordinal among the thread's user messages (top level only), for checkpoints. */
export const UserMessage = memo(function UserMessage({ item, turn }: { item: UserItem; turn?: number }): React.JSX.Element {
  const checkpoints = useCheckpoints();
  const undo = checkpoints?.changes?.undo;
  return (
    <div className="msg msg-user">
      <div className="msg-role">
        You
      </div>
      <div className="msg-user-text">{item.text}</div>
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
