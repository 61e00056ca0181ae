// `Open folder`: the folders opened before (latest first; remote ones by their ssh:// URL), a
// path field, in the desktop app the native dialog, and `Remote (SSH)…` for a folder on another
// machine (RemoteFolderDialog). The window's first screen when no folder is open, and a dialog
// from the header's `Open folder`. A path that cannot be opened says why and stays in the field.

import { useEffect, useId, useRef, useState } from 'react';
import type { AppInfo, RecentFolder } from '../../../src-main/app/contract';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { Icon } from './Icon';
import { RecentFolderList } from './RecentFolderLabel';
import { FormMessage } from './ErrorText';
import { submitted } from './Modal';
import { RemoteFolderDialog, useFolderOpening } from './RemoteFolderDialog';

interface OpenFolderProps {
  info: AppInfo;
  /** The folder is open (the window also hears `app.folderChanged`). */
  onOpened(info: AppInfo): void;
  /** Shown as a `Cancel` button when given (the dialog). */
  onCancel?(): void;
  /** Focus the path field at once (the first screen; a dialog focuses it by itself). */
  autoFocus?: boolean;
}

export function OpenFolder({ info, onOpened, onCancel, autoFocus = false }: OpenFolderProps): React.JSX.Element {
  const api = useApi();
  const pathId = useId();
  const messageId = useId();
  const [recent, setRecent] = useState<RecentFolder[] | null>(null);
  const [path, setPath] = useState('');
  const { error, setError, opening, open: openWith } = useFolderOpening(onOpened);
  const [remote, setRemote] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);

  useEffect(() => whileCurrent(api.call('app.recentFolders', {}), setRecent, () => setRecent([])), [api]);

  const open = (target: string): Promise<void> => openWith(target, () => api.call('app.openFolder', { path: target }));

  const browse = async (): Promise<void> => {
    setError(null);
    try {
      const picked = await api.call('app.pickFolder', {});
      if (picked.folder !== null) onOpened(await api.call('app.info', {}));
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  const typed = path.trim();
  return (
    <div className="open-folder">
      {recent !== null && recent.length > 0 ? (
        <RecentFolderList title="Recent folders" headingId={`${pathId}-recent`} folders={recent} openNow={info.folder} busy={opening} busyLabel="Opening" onOpen={(target) => void open(target)} onCancel={onCancel} />
      ) : null}
      <form className="open-folder-path" onSubmit={submitted(() => typed !== '' && open(typed))}>
        <label htmlFor={pathId}>Folder path</label>
        <div className="field-inline">
          <input
            ref={input}
            id={pathId}
            className="mono"
            value={path}
            placeholder="/home/you/project or ~/project"
            spellCheck={false}
            autoComplete="off"
            aria-invalid={error !== null}
            aria-describedby={messageId}
            // The first thing to do on the screen (the dialog focuses its first control itself).
            data-autofocus
            onChange={(e) => {
              setPath(e.target.value);
              setError(null);
            }}
          />
          <button type="submit" className="btn btn-primary" disabled={typed === '' || opening !== null}>
            Open
          </button>
        </div>
        <FormMessage id={messageId} error={error}>
          The folder’s full path; <span className="mono">~</span> is your home folder. Nothing is created in it.
        </FormMessage>
      </form>
      <div className="dialog-actions">
        {info.canPickFolder ? (
          <button type="button" className="btn" onClick={() => void browse()}>
            <Icon name="folderOpen" size={15} />
            Browse…
          </button>
        ) : null}
        <button type="button" className="btn" disabled={opening !== null} onClick={() => setRemote(true)}>
          <Icon name="terminal" size={15} />
          Remote (SSH)…
        </button>
        {onCancel ? (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      {remote ? (
        <RemoteFolderDialog
          info={info}
          recent={recent ?? []}
          onCancel={() => setRemote(false)}
          onOpened={(opened) => {
            setRemote(false);
            onOpened(opened);
          }}
        />
      ) : null}
    </div>
  );
}
