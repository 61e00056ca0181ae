// A message the person sent; paths in it (`@src/a.ts`, `docs/x.md`) open the file.

import { memo, type ReactNode } from 'react';
import { pathInText } from '../lib/markdown';
import type { UserItem } from '../lib/thread-reducer';
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

export const UserMessage = memo(function UserMessage({ item }: { item: UserItem }): React.JSX.Element {
  return (
    <div className="msg msg-user">
      <div className="msg-role">
        You
        <CopyButton text={item.text} label="Copy message" className="msg-copy" />
      </div>
      <div className="msg-user-text">{withPathLinks(item.text)}</div>
    </div>
  );
});
