// `Open folder` → `Remote (SSH)…` (SPEC §13): a folder on another machine, reached with the
// person's own ssh. The host is picked from the Host aliases of their ~/.ssh/config or typed
// (`[user@]host[:port]`), the path is absolute there; the remote folders opened before are
// listed to open again. What the main process says about a host or path (malformed, not
// there, unreachable, a host key that does not match) is shown under the form, and what was
// typed stays to be corrected.

import { useEffect, useId, useState } from 'react';
import type { AppInfo, RecentFolder } from '../../../src-main/app/contract';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { Spinner } from './Icon';
import { RecentFolderList } from './RecentFolderLabel';
import { Modal, submitted } from './Modal';
import { FormMessage } from './ErrorText';
import { ModelPicker } from './ModelPicker';
import { capitalized } from '../lib/format';

/** Opening a folder, one at a time: what is being opened (a path, a URL, `form`), and why the last try failed (what was typed stays, to be corrected). */
export function useFolderOpening(onOpened: (info: AppInfo) => void) {
  const [error, setError] = useState<string | null>(null);
  const [opening, setOpening] = useState<string | null>(null);
  const open = async (key: string, request: () => Promise<AppInfo>): Promise<void> => {
    if (opening !== null) return;
    setError(null);
    setOpening(key);
    try {
      onOpened(await request());
    } catch (err) {
      setError(capitalized(errorMessage(err)));
    } finally {
      setOpening(null);
    }
  };
  return { error, setError, opening, open };
}

interface RemoteFolderDialogProps {
  info: AppInfo;
  /** The remote folder is open. */
  onOpened(info: AppInfo): void;
  onCancel(): void;
  /** The folders opened before (the Open folder list's); the remote ones are offered here. */
  recent: readonly RecentFolder[];
}

export function RemoteFolderDialog({ info, onOpened, onCancel, recent }: RemoteFolderDialogProps): React.JSX.Element {
  const api = useApi();
  const hostId = useId();
  const pathId = useId();
  const messageId = useId();
  const [hosts, setHosts] = useState<string[]>([]);
  const [host, setHost] = useState('');
  const [path, setPath] = useState('');
  /** `connecting`: a recent folder's URL, or `form`. */
  const { error, setError, opening: connecting, open: connect } = useFolderOpening(onOpened);

  useEffect(() => whileCurrent(api.call('app.sshHosts', {}), (list) => setHosts(list.hosts), () => setHosts([])), [api]);

  const remotes = recent.filter((folder) => folder.host !== undefined);
  return (
    <Modal label="Open remote folder" title="Open remote folder" onEscape={onCancel} className="open-folder-dialog">
      <div className="open-folder">
        {remotes.length > 0 ? (
          <RecentFolderList title="Recent remote folders" headingId={`${pathId}-recent`} folders={remotes} openNow={info.folder} busy={connecting} busyLabel="Connecting" onOpen={(path) => void connect(path, () => api.call('app.openFolder', { path }))} onCancel={onCancel} />
        ) : null}
        <form className="open-folder-path" onSubmit={submitted(() => connect('form', () => api.call('app.openRemoteFolder', { host, path })))}>
          <label htmlFor={hostId}>Host</label>
          <ModelPicker
            id={hostId}
            value={host}
            models={hosts}
            listLabel="Hosts"
            noMatchText="Not in your ~/.ssh/config: used as typed ([user@]host[:port])."
            placeholder={hosts[0] ?? 'devbox or you@host:22'}
            disabled={connecting !== null}
            describedBy={messageId}
            onChange={(value) => {
              setHost(value);
              setError(null);
            }}
          />
          <label htmlFor={pathId}>Path</label>
          <input
            id={pathId}
            className="mono"
            value={path}
            placeholder="/home/you/project"
            spellCheck={false}
            autoComplete="off"
            disabled={connecting !== null}
            aria-invalid={error !== null}
            aria-describedby={messageId}
            onChange={(e) => {
              setPath(e.target.value);
              setError(null);
            }}
          />
          <FormMessage id={messageId} error={error}>
            {connecting === 'form' ? (
              <>
                <Spinner /> Connecting to {host.trim()}…
              </>
            ) : (
              <>
                Connects with your own <span className="mono">ssh</span> (your ~/.ssh/config, agent and keys); the path is the folder’s full path on that machine.
              </>
            )}
          </FormMessage>
          <div className="dialog-actions">
            <button type="submit" className="btn btn-primary" disabled={connecting !== null}>
              Connect
            </button>
            <button type="button" className="btn" onClick={onCancel}>
              Cancel
            </button>
          </div>
        </form>
      </div>
    </Modal>
  );
}
