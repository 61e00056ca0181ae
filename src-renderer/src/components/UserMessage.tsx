// A message the person sent; paths in it (`@src/a.ts`, `docs/x.md`) open the file. A slash
// command it starts with (`/release-kit:changelog v2`) is shown as one name, never as a path.

import { authorLabel, useThreadSource } from '../lib/thread-source';
import { memo, type ReactNode } from 'react';
import { parseSlash } from '../../../src-main/app/contract';
import { pathInText } from '../lib/markdown';
import { mentionsIn, splitAttachments } from '../lib/mention';
import type { UserItem } from '../lib/thread-reducer';
import { useCheckpoints } from '../state/checkpoints-context';
import { SentAttachments } from './AttachedFiles';
import { CopyButton } from './CopyButton';
import { PathLink } from './PathLink';

const TOKEN = /(@?(?:\.{0,2}\/)?[\w@.+-]+(?:\/[\w@.+-]+)*)/g;

function withPathLinks(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    const bare = token.startsWith('@') ? token.slice(1) : token;
    const shown = bare.replace(/[.,;:]+$/, '');
    // Prose like "and/or" is not a path: without an @, ask for a file extension or a leading / or ./.
    const likely = token.startsWith('@') || /^\.{0,2}\//.test(shown) || (shown.includes('/') && /\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(shown));
    const path = likely ? pathInText(shown) : null;
    if (path === null) continue;
    const start = match.index + (token.length - bare.length);
    out.push(text.slice(last, match.index), token.startsWith('@') ? '@' : '', <PathLink key={start} path={path} label={shown} />);
    last = start + shown.length;
  }
  out.push(text.slice(last));
  return out;
}

/** The text with its slash command, if it starts with one, as one name, and its paths as links. */
function withCommand(text: string): ReactNode[] {
  const command = parseSlash(text);
  if (command === null) return withPathLinks(text);
  const at = text.indexOf(`/${command.name}`);
  const end = at + command.name.length + 1;
  return [
    text.slice(0, at),
    <span key="command" className="mono msg-command">
      {text.slice(at, end)}
    </span>,
    ...withPathLinks(text.slice(end)),
  ];
}

/** `turn`: the message's ordinal among the thread's user messages (top level only), for checkpoints. */
export const UserMessage = memo(function UserMessage({ item, turn }: { item: UserItem; turn?: number }): React.JSX.Element {
  const checkpoints = useCheckpoints();
  const author = authorLabel(useThreadSource());
  const undo = checkpoints?.changes?.undo;
  const split = splitAttachments(item.text);
  // The window's own echo of a message just sent carries the mentions, not yet the files.
  const { text, files } = split.files.length > 0 ? split : { text: item.text, files: mentionsIn(item.text).map((path) => ({ path })) };
  return (
    <div className="msg msg-user">
      <div className="msg-role">
        {author}
        <CopyButton text={item.text} label="Copy message" className="msg-copy" />
      </div>
      <div className="msg-user-text">{withCommand(text)}</div>
      <SentAttachments files={files} uploads={item.attachments ?? []} />
      {checkpoints && turn !== undefined ? (
        <div className="msg-actions">
          <button type="button" className="btn btn-small btn-quiet" disabled={checkpoints.busy} onClick={() => checkpoints.restoreToMessage(turn)}>
            Restore files to before this message
          </button>
          <button
            type="button"
            className="btn btn-small btn-quiet"
            disabled={checkpoints.busy}
            title="Also removes this message and everything after it from the conversation, and puts the message back in the message box"
            onClick={() => checkpoints.rewindToMessage(turn)}
          >
            Restore files and conversation to before this message
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
