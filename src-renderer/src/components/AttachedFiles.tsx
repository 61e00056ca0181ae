// Files attached to a message, as chips: @-mentioned files and files pasted, dropped or
// picked (a thumbnail for images). In the message box: what sending will attach, each
// removable. Under a sent message: mentions open to what the model got; images show.

import { useContext, useEffect, useState } from 'react';
import type { AttachedFile } from '../lib/mention';
import { formatBytes } from '../lib/format';
import { isImageFile, type PendingFile } from '../lib/pending-files';
import type { ShownAttachment } from '../lib/thread-reducer';
import { ConversationContext } from './conversation-context';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { Icon } from './Icon';

function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1) || path;
}

function Thumbnail({ mimeType, data }: { mimeType: string; data: string }): React.JSX.Element {
  return <img className="attachment-thumb" src={`data:${mimeType};base64,${data}`} alt="" />;
}

interface PendingAttachmentsProps {
  paths: readonly string[];
  onRemove(path: string): void;
  files?: readonly PendingFile[];
  onRemoveFile?(id: string): void;
}

export function PendingAttachments({ paths, onRemove, files = [], onRemoveFile }: PendingAttachmentsProps): React.JSX.Element | null {
  if (paths.length === 0 && files.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label="Attached files">
      {files.map((file) => (
        <li key={file.id} className="attachment-chip" title={`${file.name} (${formatBytes(file.bytes)}) is attached when you send`}>
          {isImageFile(file) ? <Thumbnail mimeType={file.mimeType} data={file.data} /> : <Icon name="file" size={12} />}
          <span>{file.name}</span>
          <span className="muted small">{formatBytes(file.bytes)}</span>
          <button type="button" className="icon-btn chip-remove" aria-label={`Remove attachment ${file.name}`} onClick={() => onRemoveFile?.(file.id)}>
            ×
          </button>
        </li>
      ))}
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
export function SentAttachments({
  files,
  uploads = [],
}: {
  files: ReadonlyArray<AttachedFile | { path: string; lines?: undefined; content?: undefined }>;
  uploads?: readonly ShownAttachment[];
}): React.JSX.Element | null {
  const api = useApi();
  const [open, setOpen] = useState<string | null>(null);
  const [loaded, setLoaded] = useState<Record<string, string>>({});
  if (files.length === 0 && uploads.length === 0) return null;
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
        {uploads.map((file) => (
          <UploadChip key={`upload:${file.name}`} file={file} />
        ))}
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

/** The thumbnail of a sent image: the bytes the window kept, else fetched from the thread. */
function SentThumbnail({ file }: { file: ShownAttachment }): React.JSX.Element {
  const { attachment } = useContext(ConversationContext);
  const [data, setData] = useState(file.data ?? null);
  useEffect(() => {
    if (file.data !== undefined || file.index === undefined || attachment === undefined) return undefined;
    return whileCurrent(attachment(file.index, file.name), (got) => setData(got.data));
  }, [attachment, file.data, file.index, file.name]);
  return data === null ? <Icon name="file" size={12} /> : <Thumbnail mimeType={file.mimeType} data={data} />;
}

/** A file pasted, dropped or picked into a sent message: as content the model got, or saved to the thread's /attachments/. */
function UploadChip({ file }: { file: ShownAttachment }): React.JSX.Element {
  const { openAttachment } = useContext(ConversationContext);
  return (
    <li className="attachment-chip">
      <button
        type="button"
        className="chip-toggle"
        aria-label={`Open attachment ${file.name}`}
        title={file.path ? `${file.name} (${file.mimeType}, ${file.size}), saved as ${file.path}` : `${file.name} (${file.mimeType}, ${file.size})`}
        onClick={() => openAttachment?.(file)}
      >
        {isImageFile(file) ? <SentThumbnail file={file} /> : <Icon name="file" size={12} />}
        <span>{file.name}</span>
        <span className="muted small">{file.size}</span>
      </button>
    </li>
  );
}
