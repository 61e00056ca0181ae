// Which folder the window works on. With none open (`deepdesk serve` or `npm start` without a
// folder) it shows the `Open folder` screen; with one, the workspace of that folder, made anew
// when another folder is opened (here, from another window, or by the native dialog), so no
// thread, file or terminal of the previous folder stays on screen. A thread opened from the
// Agents view opens its folder the same way (its workspace then selects it).

import { Fragment, useEffect, useState, type ReactNode } from 'react';
import type { AppInfo } from '../../../src-main/app/contract';
import { needYouCount } from '../lib/agents';
import { openFolderTitle } from '../lib/page-title';
import { useAgents } from '../state/agents-context';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { lastThemeSetting, useTheme } from '../state/use-theme';
import { useConnection, useEvent } from '../state/transport-context';
import { AgentsPanel } from './AgentsPanel';
import { Spinner } from './Icon';
import { Modal } from './Modal';
import { OpenFolder } from './OpenFolder';
import { Toasts } from './Toasts';

export type OpenAppInfo = AppInfo & { folder: string };

interface FolderGateProps {
  /** The workspace of the open folder; `openFolder` offers another one. */
  children(info: OpenAppInfo, openFolder: () => void): ReactNode;
}

export function FolderGate({ children }: FolderGateProps): React.JSX.Element {
  const api = useApi();
  const { status, reconnects } = useConnection();
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [choosing, setChoosing] = useState(false);

  // At start and after a reconnect (another window may have opened another folder meanwhile).
  useEffect(
    () =>
      whileCurrent(
        api.call('app.info', {}),
        (next) => {
          setInfo(next);
          setFailed(null);
        },
        (err) => setFailed(errorMessage(err)),
      ),
    [api, reconnects],
  );

  const opened = (next: AppInfo): void => {
    setInfo(next);
    setChoosing(false);
  };
  useEvent('app.folderChanged', opened);

  // A thread opened from the Agents view: the folder host opened its folder (maybe this one).
  const { request, agents } = useAgents();
  useEffect(() => {
    if (request === null || request.info.folder === null) return;
    setInfo(request.info);
    setChoosing(false);
  }, [request]);

  const needYou = needYouCount({ agents });
  useEffect(() => {
    if (info !== null && info.folder === null) document.title = openFolderTitle(needYou);
  }, [info, needYou]);

  if (info === null) {
    return (
      <>
        <div className="app-starting" role="status">
          {/* Gone: the notice says which of two it is (not signed in, or no server), and only that. */}
          {status === 'gone' ? null : failed !== null ? `Deepdesk is not answering (${failed}); ${status === 'open' ? 'reload the page' : 'reconnecting…'}` : <Spinner label="Starting Deepdesk" />}
        </div>
        <Toasts />
      </>
    );
  }
  if (info.folder === null) return <OpenFolderScreen info={info} onOpened={opened} />;
  const folder = info.folder;
  return (
    <>
      <Fragment key={folder}>{children({ ...info, folder }, () => setChoosing(true))}</Fragment>
      {choosing ? (
        <Modal label="Open folder" title="Open folder" onEscape={() => setChoosing(false)} className="open-folder-dialog">
          <OpenFolder info={info} onOpened={opened} onCancel={() => setChoosing(false)} />
        </Modal>
      ) : null}
    </>
  );
}

/** The first screen while no folder is open, in the theme the window last had. */
function OpenFolderScreen({ info, onOpened }: { info: AppInfo; onOpened(info: AppInfo): void }): React.JSX.Element {
  useTheme(lastThemeSetting());
  return (
    <main className="open-folder-screen" aria-labelledby="open-folder-title">
      <div className="open-folder-column">
        <div className="open-folder-card">
          <div className="brand">
            <span className="brand-mark" aria-hidden="true" />
            <span className="brand-name">Deepdesk</span>
          </div>
          <h1 id="open-folder-title">Open a folder</h1>
          <p className="muted">The agent reads, changes and runs things in the folder you open, and asks first where it matters.</p>
          <OpenFolder info={info} onOpened={onOpened} autoFocus />
        </div>
        {/* The threads of every folder that work, wait for the person or finished: one opens its folder. */}
        <AgentsPanel />
      </div>
      {/* The workspace shows its own; here, notices about the person's files. */}
      <Toasts />
    </main>
  );
}
