// Where a thread that runs in a provider's sandbox works (SPEC §18): a worktree of the
// person's folder carrying its uncommitted changes (the folder as git sees it), marked to run in
// the provider's sandbox. `run --sandbox`, `acp --sandbox`, the window's New thread in a
// sandbox… and Continue in a sandbox… all come here; the folder's sessions then open it as a
// sandbox place (session-place.ts).

import { realpathSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { PROVIDER_LABELS, SandboxProviderError, type SandboxProvider, type SandboxProviderName } from '../../core/sandbox-providers/provider';
import { openSandboxProvider } from '../../core/sandbox-providers/registry';
import { ContractError } from '../contract';
import { WorktreeError, WorktreeService } from '../worktrees/worktree-service';
import { SandboxStore } from './sandbox-store';

export interface SandboxFolderRequest {
  dataDir: string;
  db: Database.Database;
  /** The person's folder (local), or a worktree's thread folder to continue in a sandbox. */
  folder: string;
  provider: SandboxProviderName;
  /** Reattach this sandbox (`--sandbox-id`). */
  sandboxId?: string;
  env: NodeJS.ProcessEnv;
  savedKeys: () => Promise<Record<string, string | undefined>>;
  /** Words for the worktree's name (the prompt). */
  nameHint?: string;
  /** The new worktree's name, as the person gave it (checked as worktrees.create checks it). */
  name?: string;
  signal?: AbortSignal;
}

export interface SandboxFolder {
  /** The folder the thread works in: a worktree's thread folder. */
  threadFolder: string;
  worktree: string;
  branch: string;
  /** It is the worktree of a sandbox found again by its id. */
  reattached: boolean;
  /** The worktree was made for this request (a start that fails removes it: abandonSandboxFolder). */
  made: boolean;
}

/** The provider, opened; no key: one line naming the variable and Settings (ContractError `bad_request`), before anything is made. */
export async function checkSandboxCredentials(request: Pick<SandboxFolderRequest, 'provider' | 'env' | 'savedKeys'>): Promise<SandboxProvider> {
  return openSandboxProvider(request.provider, { env: request.env, saved: await request.savedKeys() }).catch((err: unknown) => {
    if (err instanceof SandboxProviderError && err.reason === 'credentials') throw new ContractError(err.message, 'bad_request');
    throw err;
  });
}

/**
 * What can be checked before anything is made: the key is there and the service takes it (a
 * listing), and a sandbox to reattach is there and Deepdesk's (a foreign one is refused, a gone
 * one said) — so a refused key, a service down or another tool's sandbox leave no worktree,
 * branch or record behind.
 */
async function preflight(request: SandboxFolderRequest): Promise<void> {
  const provider = await checkSandboxCredentials(request);
  if (request.sandboxId !== undefined) {
    const found = await provider.attach(request.sandboxId, request.signal);
    await found.close().catch(() => undefined);
  } else {
    await provider.list(request.signal);
  }
}

/** A start that failed: the worktree made for it (with its branch) and its record go; a worktree that was there before only loses the record. */
export async function abandonSandboxFolder(request: Pick<SandboxFolderRequest, 'dataDir' | 'db' | 'env'>, made: SandboxFolder): Promise<void> {
  const store = new SandboxStore(request.db);
  const record = store.get(made.threadFolder);
  // A sandbox was made and works (the failure was elsewhere): the thread keeps it.
  if (record !== undefined && record.sandboxId !== null && !made.made) return;
  store.delete(made.threadFolder);
  if (!made.made) return;
  const worktrees = new WorktreeService({ dataDir: request.dataDir, db: request.db, env: request.env });
  try {
    await worktrees.remove(made.worktree, { force: true }).catch(() => undefined);
  } finally {
    worktrees.close();
  }
}

export async function sandboxFolderFor(request: SandboxFolderRequest): Promise<SandboxFolder> {
  await checkSandboxCredentials(request);
  const store = new SandboxStore(request.db);
  const worktrees = new WorktreeService({ dataDir: request.dataDir, db: request.db, env: request.env });
  try {
    if (request.sandboxId !== undefined) {
      const known = store.byId(request.sandboxId);
      if (known !== undefined) {
        if (known.provider !== request.provider) throw new ContractError(`sandbox ${request.sandboxId} is a ${PROVIDER_LABELS[known.provider]} sandbox, not ${PROVIDER_LABELS[request.provider]}'s`, 'bad_request');
        const record = worktrees.get(known.worktree);
        if (record !== undefined) return { threadFolder: known.folder, worktree: known.worktree, branch: record.branch, reattached: true, made: false };
      }
    }
    await preflight(request);
    const folder = realpathSync(request.folder);
    // A worktree's thread folder continues in a sandbox as it is.
    const existing = worktrees.byFolder(folder);
    if (existing !== undefined && existing.threadFolder === folder) {
      store.put({ folder, worktree: existing.name, provider: request.provider, ...(request.sandboxId !== undefined ? { sandboxId: request.sandboxId } : {}) });
      return { threadFolder: folder, worktree: existing.name, branch: existing.branch, reattached: request.sandboxId !== undefined, made: false };
    }
    let made;
    try {
      made = await worktrees.create({ folder, carry: true, ...(request.name !== undefined ? { name: request.name } : {}), ...(request.nameHint !== undefined ? { nameHint: request.nameHint } : {}), ...(request.signal ? { signal: request.signal } : {}) });
    } catch (err) {
      if (err instanceof WorktreeError && err.code !== 'failed') {
        throw new ContractError(`a sandbox thread needs a folder in a git repository with a commit (what the agent changes comes back as a worktree branch): ${err.message}`, 'bad_request');
      }
      throw err;
    }
    const threadFolder = realpathSync(made.threadFolder);
    store.put({ folder: threadFolder, worktree: made.name, provider: request.provider, ...(request.sandboxId !== undefined ? { sandboxId: request.sandboxId } : {}) });
    return { threadFolder, worktree: made.name, branch: made.branch, reattached: request.sandboxId !== undefined, made: true };
  } finally {
    worktrees.close();
  }
}
