// What a recent folder's button shows, local or remote: its kind, name and path (cut at the
// start when long, as the end names the folder), a note (not found, open now) and, while it
// opens, a spinner.

import React from 'react';
import { Icon, Spinner } from './Icon';

export function RecentFolderLabel({ remote, name, path, note, busy }: { remote: boolean; name: string; path: string; note?: string | undefined; busy?: string | undefined }): React.JSX.Element {
  return (
    <>
      <Icon name={remote ? 'terminal' : 'folder'} size={15} />
      <span className="recent-folder-name">{name}</span>
      <span className="recent-folder-path mono">
        <span dir="ltr">{path}</span>
      </span>
      {note !== undefined ? <span className="recent-folder-note">{note}</span> : null}
      {busy !== undefined ? <Spinner label={busy} /> : null}
    </>
  );
}
