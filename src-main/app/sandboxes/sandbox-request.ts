// `--sandbox PROVIDER [--sandbox-id ID]` as every command takes it (SPEC §18): `run`, `serve`
// and `acp` all come here for the folder their thread (window, editor session) works in — the
// sandbox worktree of the person's folder — and for the one line that says so.

import type Database from 'better-sqlite3';
import { PROVIDER_LABELS, type SandboxProviderName } from '../../core/sandbox-providers/provider';
import { ContractError } from '../contract';
import type { SandboxRequest } from '../base/session-flags';
import { parseFolderLocation } from '../places/folder-location';
import type { SecretStore } from '../base/secret-store';
import { SettingsService } from '../settings/settings-service';
import { WorktreeStore } from '../worktrees/worktree-store';
import { abandonSandboxFolder, checkSandboxCredentials, sandboxFolderFor } from './sandbox-folder';
import { SandboxStore } from './sandbox-store';
import { realOrSelf } from '../../core/config/entry-files';

export type { SandboxRequest };

export interface SandboxRequestContext {
  dataDir: string;
  db: Database.Database;
  /** Settings' sandbox keys. */
  secrets: SecretStore;
}

/** The provider the flags mean: the one named, else the one of the sandbox they reattach. Rejects with ContractError `bad_request`. */
export function requestedProvider(db: Database.Database, sandbox: SandboxRequest): SandboxProviderName {
  const provider = sandbox.provider ?? (sandbox.id !== undefined ? new SandboxStore(db).byId(sandbox.id)?.provider : undefined);
  if (provider === undefined) throw new ContractError(`--sandbox-id: Deepdesk did not make sandbox ${sandbox.id}; name its provider with --sandbox`, 'bad_request');
  return provider;
}

/** The flags checked before a command starts anything (`acp --sandbox`): the provider they mean, with its key. */
export async function checkedSandboxRequest(sandbox: SandboxRequest, env: NodeJS.ProcessEnv, context: SandboxRequestContext): Promise<SandboxRequest & { provider: SandboxProviderName }> {
  const provider = requestedProvider(context.db, sandbox);
  const settings = new SettingsService(context.dataDir, context.secrets, { readOnly: true });
  try {
    await checkSandboxCredentials({ provider, env, savedKeys: () => settings.sandboxKeys() });
  } finally {
    settings.close();
  }
  return { ...sandbox, provider };
}

/**
 * The folder a thread of these flags works in: the worktree of `folder` (a local path, or an
 * ssh:// URL, which is refused) that runs in the provider's sandbox, made, or found again by
 * the sandbox's id. What was made or found is told in one line to `say`.
 */
export async function sandboxWorkFolder(
  request: { folder: string; cwd: string; sandbox: SandboxRequest; env: NodeJS.ProcessEnv; nameHint?: string },
  context: SandboxRequestContext,
  say: (line: string) => void,
): Promise<{ folder: string; abandon(): Promise<void> }> {
  const location = parseFolderLocation(request.folder, request.cwd);
  if (location.kind !== 'local') throw new ContractError(`--sandbox: a sandbox thread starts from a local folder, not ${request.folder}`, 'bad_request');
  const provider = requestedProvider(context.db, request.sandbox);
  const { id } = request.sandbox;
  const settings = new SettingsService(context.dataDir, context.secrets, { readOnly: true });
  try {
    const made = await sandboxFolderFor({
      dataDir: context.dataDir,
      db: context.db,
      folder: location.path,
      provider,
      ...(id !== undefined ? { sandboxId: id } : {}),
      env: request.env,
      savedKeys: () => settings.sandboxKeys(),
      ...(request.nameHint !== undefined ? { nameHint: request.nameHint } : {}),
    });
    say(
      made.reattached
        ? `Reattaching the ${PROVIDER_LABELS[provider]} sandbox ${id} of worktree ${made.worktree} at ${made.threadFolder} (branch ${made.branch}).`
        : `The thread works in worktree ${made.worktree} at ${made.threadFolder} (branch ${made.branch}), in a ${PROVIDER_LABELS[provider]} sandbox; what it changes comes back there (deepdesk worktrees apply ${made.worktree} applies it to your folder).`,
    );
    return { folder: made.threadFolder, abandon: () => abandonSandboxFolder({ dataDir: context.dataDir, db: context.db, env: request.env }, made) };
  } finally {
    settings.close();
  }
}

/** The folders of the sandbox worktrees made from `folder` (real paths): an editor in `folder` may open their threads. */
export function sandboxFoldersFrom(db: Database.Database, folder: string): Set<string> {
  const worktrees = new WorktreeStore(db);
  const origin = realOrSelf(folder);
  return new Set(
    new SandboxStore(db)
      .list()
      .filter((record) => {
        const made = worktrees.get(record.worktree);
        return made !== undefined && realOrSelf(made.originFolder) === origin;
      })
      .map((record) => record.folder),
  );
}

