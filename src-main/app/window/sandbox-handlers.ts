// The window's side of sandbox providers (SPEC §18): whether the open folder's thread can run in
// a provider's sandbox, and `New thread in a sandbox…` / `Continue in a sandbox…`, both through
// sandboxFolderFor (app/sandboxes/). The window then opens the thread folder; its session makes
// the sandbox and uploads the folder (session-place.ts).

import { realpathSync } from 'node:fs';
import { PROVIDER_LABELS, SandboxProviderError } from '../../core/sandbox-providers/provider';
import { openSandboxProvider } from '../../core/sandbox-providers/registry';
import { ContractError } from '../contract';
import { removeSandbox } from '../sandboxes/sandbox-admin';
import { sandboxFolderFor } from '../sandboxes/sandbox-folder';
import type { SandboxPlaceStatus } from '../contract/sandboxes';
import { SandboxStore, type SandboxRecord } from '../sandboxes/sandbox-store';
import type { WorktreeMethodsOptions } from '../worktrees/worktree-methods';
import { WorktreeService } from '../worktrees/worktree-service';
import type { HandlersFor } from './handlers';

/** Where the open folder is and what its worktrees are told (as worktreeMethods takes them), and its sandbox's keys and state. */
export interface SandboxHandlersOptions extends WorktreeMethodsOptions {
  savedKeys: () => Promise<Record<string, string | undefined>>;
  /** Whether a worktree can be made of the folder (worktrees.canCreate without counting). */
  canMakeWorktree: () => Promise<{ git: boolean; why?: string }>;
  /** The open folder's sandbox as its session found it (undefined: its threads do not run in one). */
  status: () => SandboxPlaceStatus | undefined;
}

const TEST_KEY_TIMEOUT_MS = 20_000;

export function sandboxHandlers(options: SandboxHandlersOptions): HandlersFor<'sandboxes.'> {
  /** The sandbox the open folder's threads run in already, if any (a gone one does not count: a new one is offered). */
  const already = (): SandboxRecord | undefined => {
    const record = recorded();
    return record === undefined || record.state === 'gone' || options.status()?.state === 'gone' ? undefined : record;
  };
  const recorded = (): SandboxRecord | undefined => (options.remote ? undefined : new SandboxStore(options.db).get(realpathSync(options.folder)));
  /** The open folder is a worktree's thread folder: it continues in a sandbox as it is. */
  const continues = (): boolean => {
    if (options.remote) return false;
    const worktrees = new WorktreeService({ dataDir: options.dataDir, db: options.db, env: options.env });
    try {
      const folder = realpathSync(options.folder);
      return worktrees.byFolder(folder)?.threadFolder === folder;
    } finally {
      worktrees.close();
    }
  };
  return {
    'sandboxes.status': async () => {
      if (options.remote) return null;
      const status = options.status();
      if (status !== undefined) return status;
      // Opened on this computer while a record says otherwise (`--sandbox` from elsewhere): as the record says.
      return null;
    },
    'sandboxes.leave': async () => {
      const record = recorded();
      const threadFolder = realpathSync(options.folder);
      if (record === undefined || record.sandboxId === null) {
        if (record !== undefined) new SandboxStore(options.db).delete(record.folder);
        return { threadFolder, broughtBack: 0, wasGone: options.status()?.state !== 'running' };
      }
      const removed = await removeSandbox({ db: options.db, dataDir: options.dataDir, env: options.env, savedKeys: options.savedKeys }, record.sandboxId, record.provider);
      options.changed();
      return { threadFolder, broughtBack: removed.broughtBack, wasGone: removed.wasGone };
    },
    'sandboxes.canRun': async ({ provider }) => {
      if (options.remote) return { ok: false, why: 'A sandbox thread needs a local git repository; this folder is remote.', continues: false };
      const record = already();
      if (record !== undefined) return { ok: false, why: `This folder’s threads run in a ${PROVIDER_LABELS[record.provider]} sandbox already.`, continues: true };
      const again = continues();
      if (!again) {
        const can = await options.canMakeWorktree();
        if (!can.git) return { ok: false, why: can.why ?? 'A sandbox thread needs a folder in a git repository with a commit.', continues: false };
      }
      try {
        await openSandboxProvider(provider, { env: options.env, saved: await options.savedKeys() });
      } catch (err) {
        if (err instanceof SandboxProviderError && err.reason === 'credentials') return { ok: false, why: err.message, continues: again };
        throw err;
      }
      return { ok: true, continues: again };
    },
    'sandboxes.testKey': async ({ provider }) => {
      const label = PROVIDER_LABELS[provider];
      const signal = AbortSignal.timeout(TEST_KEY_TIMEOUT_MS);
      try {
        const opened = await openSandboxProvider(provider, { env: options.env, saved: await options.savedKeys() });
        const found = await opened.list(signal);
        return { ok: true, message: `${label} accepted the key (${found.length === 0 ? 'no sandboxes of Deepdesk’s there now' : `${found.length} sandbox${found.length === 1 ? '' : 'es'} of Deepdesk’s there now`}).` };
      } catch (err) {
        if (err instanceof SandboxProviderError) {
          if (err.reason === 'auth') return { ok: false, message: `${label} refused the key: ${err.message}` };
          return { ok: false, message: err.message };
        }
        if (signal.aborted) return { ok: false, message: `${label} did not answer within ${TEST_KEY_TIMEOUT_MS / 1000} s.` };
        return { ok: false, message: `${label} could not be asked: ${err instanceof Error ? err.message : String(err)}` };
      }
    },
    'sandboxes.runIn': async ({ provider, name }) => {
      if (options.remote) throw new ContractError('A sandbox thread needs a local git repository; this folder is remote.', 'bad_request');
      const record = already();
      if (record !== undefined) throw new ContractError(`This folder’s threads run in a ${PROVIDER_LABELS[record.provider]} sandbox already.`, 'bad_request');
      // A gone sandbox's thread goes on in a new one, made from its worktree (its record starts anew).
      const made = await sandboxFolderFor({ dataDir: options.dataDir, db: options.db, folder: options.folder, provider, env: options.env, savedKeys: options.savedKeys, ...(name !== undefined ? { name } : {}) });
      options.changed();
      return { threadFolder: made.threadFolder, worktree: made.worktree, branch: made.branch };
    },
  };
}
