// `New thread in a sandbox…` and, in a worktree thread, `Continue in a sandbox…` (SPEC §18):
// which provider (Settings' by default), the one line saying why the folder cannot (not a git
// repository, no key), then the folder is marked to run in the provider's sandbox and opened
// (anew): its session makes the sandbox and uploads the folder, and says what went up.

import { useEffect, useId, useState } from 'react';
import { SANDBOX_PROVIDER_LABELS, SANDBOX_PROVIDER_NAMES, type SandboxPlaceStatus, type SandboxProvider } from '../../../src-main/app/contract';
import { useSettings } from '../state/settings-context';
import { errorMessage, useToasts } from '../state/toasts';
import { useApi } from '../state/use-api';
import { whileCurrent } from '../lib/while-current';
import { useConnection, useEvent } from '../state/transport-context';
import { IconButton, Spinner } from './Icon';
import { FormActions, Modal, submitted } from './Modal';
import { Options, TextField } from './TextField';
import { FormMessage } from './ErrorText';
import { useCanMakeWorktree } from './NewWorktreeDialog';

type Kind = 'new' | 'continue';
const TITLES: Record<Kind, string> = { new: 'New thread in a sandbox…', continue: 'Continue in a sandbox…' };

/**
 * The button beside New thread (`new`, shown where a worktree can be made, as New thread in a
 * worktree is: a sandbox thread is a worktree thread), or in a worktree thread's header
 * (`continue`), and its dialog.
 */
export function SandboxThreadButton({ kind }: { kind: Kind }): React.JSX.Element | null {
  const [open, setOpen] = useState(false);
  const gitFolder = useCanMakeWorktree();
  const title = TITLES[kind];
  if (kind === 'new' && !gitFolder) return null;
  return (
    <>
      {kind === 'new' ? (
        <IconButton icon="cloud" size={15} className="new-sandbox-thread" aria-label={title} title={title} onClick={() => setOpen(true)} />
      ) : (
        <button type="button" className="btn btn-small btn-quiet" onClick={() => setOpen(true)}>
          {title}
        </button>
      )}
      {open ? <SandboxThreadDialog kind={kind} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function SandboxThreadDialog({ kind, onClose }: { kind: Kind; onClose(): void }): React.JSX.Element {
  const api = useApi();
  const { settings } = useSettings();
  const { push } = useToasts();
  const id = useId();
  const [provider, setProvider] = useState<SandboxProvider>(settings?.sandboxes?.provider ?? SANDBOX_PROVIDER_NAMES[0]);
  /** Why it cannot run there (null: it can, or not known yet). */
  const [why, setWhy] = useState<string | null>(null);
  const [checked, setChecked] = useState(false);
  const [working, setWorking] = useState(false);
  const [name, setName] = useState('');
  /** The folder that goes up (this one: a worktree of it is made, or it is the worktree). */
  const [folder, setFolder] = useState('');
  useEffect(() => whileCurrent(api.safe('app.info', {}), (info) => info && setFolder(info.folder ?? '')), [api]);

  useEffect(() => {
    setChecked(false);
    const checkedWith = (reason: string | null): void => {
      setWhy(reason);
      setChecked(true);
    };
    return whileCurrent(api.call('sandboxes.canRun', { provider }), (can) => checkedWith(can.ok ? null : (can.why ?? null)), (err) => checkedWith(errorMessage(err)));
  }, [api, provider]);

  const start = async (): Promise<void> => {
    if (working || !checked || why !== null) return;
    setWorking(true);
    try {
      const made = await api.call('sandboxes.runIn', { provider, ...(kind === 'new' && name.trim() !== '' ? { name: name.trim() } : {}) });
      push(`${kind === 'new' ? `Made worktree ${made.worktree} on branch ${made.branch}` : `Worktree ${made.worktree}`}: its thread runs in a ${SANDBOX_PROVIDER_LABELS[provider]} sandbox; the folder is uploading.`, 'info');
      // The folder gate makes the workspace anew on the thread folder: this dialog goes with the old one.
      await api.call('app.openFolder', { path: made.threadFolder, reopen: true });
    } catch (err) {
      setWorking(false);
      setWhy(errorMessage(err));
    }
  };

  const blocked = working || !checked || why !== null;
  return (
    <Modal label={TITLES[kind]} title={TITLES[kind]} onEscape={working ? undefined : onClose} className="new-worktree-dialog">
      <form onSubmit={submitted(start)}>
        <p className="muted worktree-intro">
          {kind === 'new'
            ? 'The agent works in a provider’s sandbox on a copy of this folder as git sees it (uncommitted changes included; secrets left out). What it changes comes back as a worktree branch.'
            : 'This worktree’s thread goes on in a provider’s sandbox: the worktree is uploaded, and what the agent changes there comes back to it.'}
        </p>
        <div className="field">
          <label htmlFor={`${id}-provider`}>Sandbox service</label>
          <select id={`${id}-provider`} value={provider} disabled={working} data-autofocus onChange={(e) => setProvider(e.target.value as SandboxProvider)}>
            <Options options={SANDBOX_PROVIDER_NAMES.map((p) => ({ value: p, label: SANDBOX_PROVIDER_LABELS[p] }))} />
          </select>
        </div>
        {kind === 'new' ? (
          <TextField id={`${id}-name`} label="Name (optional)" className="mono" value={name} placeholder="made up when empty" spellCheck={false} autoComplete="off" maxLength={63} readOnly={working} onValue={setName} />
        ) : null}
        <SandboxTerms provider={provider} folder={folder} />
        <FormMessage error={why} live>
          {working ? (
            <>
              <Spinner /> Making the sandbox thread…
            </>
          ) : !checked ? (
            <>
              <Spinner /> Checking…
            </>
          ) : null}
        </FormMessage>
        <FormActions submit={kind === 'new' ? 'Start in sandbox' : 'Continue in sandbox'} blocked={blocked} working={working} onCancel={onClose} />
      </form>
    </Modal>
  );
}

/** What the person agrees to: the folder that goes up, the price per hour and the idle timeout, as Settings › Sandboxes has them. */
function SandboxTerms({ provider, folder }: { provider: SandboxProvider; folder: string }): React.JSX.Element {
  const { settings } = useSettings();
  const sandboxes = settings?.sandboxes;
  const price = sandboxes?.pricesPerHourUsd?.[provider];
  const idle = sandboxes?.idleTimeoutMin;
  return (
    <ul className="sandbox-terms small" aria-label="What this sandbox costs and holds">
      <li>
        Folder: <span className="mono">{folder || '…'}</span> (as git sees it)
      </li>
      <li>Price: {price !== undefined ? `$${price} an hour while it runs` : `not priced (set ${SANDBOX_PROVIDER_LABELS[provider]}’s price in Settings › Sandboxes to see its cost in Usage)`}</li>
      <li>Stops when idle after: {idle !== undefined ? `${idle} minute${idle === 1 ? '' : 's'}` : `${SANDBOX_PROVIDER_LABELS[provider]}’s default`} (Settings › Sandboxes › Idle timeout)</li>
    </ul>
  );
}

/**
 * Where the open folder's sandbox stands (sandboxes.status, kept by `sandboxes.changed`):
 * undefined while asked, null when its threads do not run in one.
 */
export function useSandboxStatus(sandboxId: string | undefined): SandboxPlaceStatus | null | undefined {
  const api = useApi();
  const { reconnects } = useConnection();
  const [status, setStatus] = useState<SandboxPlaceStatus | null | undefined>(undefined);
  // Asked again for another sandbox (the folder opened anew on a new one).
  useEffect(() => whileCurrent(api.call('sandboxes.status', {}), setStatus, () => setStatus(null)), [api, reconnects, sandboxId]);
  useEvent('sandboxes.changed', (next) => setStatus(next));
  return status;
}

/**
 * A thread whose sandbox is gone (or was removed) is never a dead end (SPEC §18): what
 * happened, and its two ways forward — a new sandbox from its worktree, or this computer.
 */
export function SandboxLost({ status }: { status: SandboxPlaceStatus }): React.JSX.Element {
  const api = useApi();
  const { push } = useToasts();
  const [working, setWorking] = useState(false);
  const [why, setWhy] = useState<string | null>(null);
  const here = async (): Promise<void> => {
    if (working) return;
    setWorking(true);
    try {
      const left = await api.call('sandboxes.leave', {});
      push(left.broughtBack > 0 ? `Brought back ${left.broughtBack} file${left.broughtBack === 1 ? '' : 's'} from the sandbox; this thread carries on on this computer, in its worktree.` : 'This thread carries on on this computer, in its worktree.', 'info');
      await api.call('app.openFolder', { path: left.threadFolder, reopen: true });
    } catch (err) {
      setWorking(false);
      setWhy(errorMessage(err));
    }
  };
  return (
    <div className="sandbox-lost" role="group" aria-label={status.state === 'gone' ? 'Sandbox gone' : 'Sandbox removed'}>
      <p role="alert">{status.message ?? (status.state === 'gone' ? 'The sandbox is gone.' : 'The sandbox was removed.')}</p>
      {why !== null ? <p className="error-text">{why}</p> : null}
      <div className="sandbox-lost-actions">
        {status.state === 'gone' ? <SandboxThreadButton kind="continue" /> : null}
        <button type="button" className="btn btn-small" disabled={working} onClick={() => void here()}>
          {working ? <Spinner /> : null} Continue on this computer
        </button>
      </div>
    </div>
  );
}
