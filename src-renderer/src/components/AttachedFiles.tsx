// Files attached to a message by @-mentions, as chips: in the message box (what sending
// will attach, each removable) and under a sent message (each opens to what the model got).

import { useState } from 'react';
import type { AttachedFile } from '../lib/mention';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { Icon } from './Icon';

function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1) || path;
}

export function PendingAttachments({ paths, onRemove }: { paths: readonly string[]; onRemove(path: string): void }): React.JSX.Element | null {
  if (paths.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label="Attached files">
      {paths.map((path) => (
        <li key={path} className="attachment-chip" title={`${path} is attached when you send`}>
          <Icon name="file" size={12} />
          <span>{fileName(path)}</span>
          <button type="button" className="icon-btn chip-remove" aria-label={`Remove attachment ${path}`} onClick={() => onRemove(path)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/**
 * `files` without `content` are the mentions of a message just sent (its echo in the window
 * holds what the person typed); their text is read from the folder when opened.
 */
export function SentAttachments({ files }: { files: ReadonlyArray<AttachedFile | { path: string; lines?: undefined; content?: undefined }> }): React.JSX.Element | null {
  const api = useApi();
  const [open, setOpen] = useState<string | null>(null);
  const [loaded, setLoaded] = useState<Record<string, string>>({});
  if (files.length === 0) return null;
  const shown = files.find((f) => f.path === open);
  const shownText = shown?.content ?? (shown ? loaded[shown.path] : undefined);
  const toggle = (path: string, content: string | undefined): void => {
    const opening = open !== path;
    setOpen(opening ? path : null);
    if (!opening || content !== undefined || loaded[path] !== undefined) return;
    api
      .call('files.read', { path })
      .then((file) => setLoaded((all) => ({ ...all, [path]: file.kind === 'text' ? file.text : `(${file.kind} file, not attached)` })))
      .catch((err: unknown) => setLoaded((all) => ({ ...all, [path]: `(not attached: ${errorMessage(err)})` })));
  };
  return (
    <div className="sent-attachments">
      <ul className="attachment-chips" aria-label="Attached files">
        {files.map((file) => (
          <li key={file.path} className="attachment-chip">
            <button
              type="button"
              className="chip-toggle"
              aria-expanded={open === file.path}
              aria-label={`${open === file.path ? 'Hide' : 'Show'} attached file ${file.path}`}
              title={file.lines ? `${file.path} (lines ${file.lines})` : file.path}
              onClick={() => toggle(file.path, file.content)}
            >
              <Icon name="file" size={12} />
              <span>{fileName(file.path)}</span>
              {file.lines ? <span className="muted small">lines {file.lines}</span> : null}
            </button>
          </li>
        ))}
      </ul>
      {shown ? <pre className="attachment-content" tabIndex={0}>{shownText ?? 'Loading…'}</pre> : null}
    </div>
  );
}
