// The recent folders, and what each one's button shows, local or remote: its kind, name and path (cut at the
// start when long, as the end names the folder), a note (not found, open now) and, while it
// opens, a spinner.

import React from 'react';
import type { RecentFolder } from '../../../src-main/app/contract';
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

/** The recent folders, a button each: the one open now cancels (where there is a way to), another opens; `busy` is the one opening. */
export function RecentFolderList({ title, headingId, folders, openNow, busy, busyLabel, onOpen, onCancel }: { title: string; headingId: string; folders: readonly RecentFolder[]; openNow: string | null; busy: string | null; busyLabel: string; onOpen(path: string): void; onCancel?: (() => void) | undefined }): React.JSX.Element {
  return (
    <section className="recent-folders" aria-labelledby={headingId}>
      <h2 id={headingId} className="open-folder-subtitle">
        {title}
      </h2>
      <ul aria-label={title}>
        {folders.map((folder) => {
          const current = folder.path === openNow;
          return (
            <li key={folder.path}>
              <button
                type="button"
                className={`recent-folder${current ? ' current' : ''}`}
                disabled={folder.missing || busy !== null}
                title={folder.missing ? `${folder.path} is no longer there` : folder.path}
                onClick={() => (current && onCancel ? onCancel() : onOpen(folder.path))}
              >
                <RecentFolderLabel remote={folder.host !== undefined} name={folder.name} path={folder.path} note={folder.missing ? 'not found' : current ? 'open now' : undefined} busy={busy === folder.path ? busyLabel : undefined} />
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
