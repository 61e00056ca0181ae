// What the agent host runs for one `deepdesk acp` (SPEC §14, §16): the editor's agent over the
// stream the host carries (acp-tunnels.ts), with the command's flags. Each session's folder
// opens through the one composition (app/session/folder-session.ts); the `acp` command itself
// only relays the editor's bytes (clients/host-client/acp-relay.ts).

import { ndJsonStream } from '@agentclientprotocol/sdk';
import { openDatabase } from '../../../core/backends/store/store';
import { databasePath } from '../../base/data-dir';
import { openWithSystem } from '../../base/open-external';
import { packageVersion } from '../../base/package-version';
import type { SecretStore } from '../../base/secret-store';
import { checkedMemoriesStore, checkedMountFlags } from '../../base/flag-checks';
import { sessionModels } from '../../session/session-models';
import { overSettingsFlags } from '../../base/session-flags';
import { SettingsService } from '../../settings/settings-service';
import { checkedSandboxRequest, sandboxWorkFolder, type SandboxRequest, type SandboxRequestContext } from '../../sandboxes/sandbox-request';
import type { AcpOpenParams, AcpStreams } from './acp-tunnels';
import { startAcpAgent, type RunningAcpAgent } from './acp-agent';
import { acpTrustScope } from './trust-scope';

/** Opens an editor's agent in the host; bad flags reject with ContractError `bad_request`. */
export async function openAcpSession(streams: AcpStreams, params: AcpOpenParams, host: { dataDir: string; secrets: SecretStore; reviewer?: string }): Promise<RunningAcpAgent> {
  const { dataDir } = host;
  const mounts = checkedMountFlags(params.mounts ?? [], params.cwd);
  const memoriesStore = checkedMemoriesStore(params.memoriesStore);
  // `--trust` trusts one folder, for this editor only: the one given with --folder, else the
  // first session's. Every other folder an editor opens asks as usual (SPEC §9).
  await checkModel(params, host);
  const trusts = acpTrustScope(params.trust === true, params.folderGiven ? params.folder : undefined);
  const db = openDatabase(databasePath(dataDir));
  try {
    const sandboxFolder = params.sandbox === undefined ? undefined : await sandboxFolders(params.sandbox, params.env, { dataDir, db, secrets: host.secrets }, streams.say);
    return startAcpAgent(ndJsonStream(streams.output, streams.input), {
      version: packageVersion(),
      db,
      context: { dataDir, db, env: params.env, version: packageVersion(), secrets: host.secrets, openBrowser: openWithSystem },
      flags: {
        ...(host.reviewer !== undefined ? { reviewerChoice: host.reviewer } : {}),
        ...overSettingsFlags({ ...params, memoriesStore }),
        mounts,
        mcpConfig: params.mcpConfig ?? [],
      },
      trusts,
      defaultFolder: params.folder,
      ...(sandboxFolder !== undefined ? { sandboxFolder } : {}),
      log: streams.say,
      release: () => {
        if (db.open) db.close();
      },
    });
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * `--sandbox`: each new session's folder becomes its sandbox worktree, made as `run --sandbox`
 * makes it; `--sandbox-id` reattaches that sandbox for the first session. A provider or key
 * that is missing is told before the editor's first session.
 */
async function sandboxFolders(flags: SandboxRequest, env: NodeJS.ProcessEnv, context: SandboxRequestContext, say: (line: string) => void): Promise<(folder: string) => Promise<string>> {
  const { provider, id } = await checkedSandboxRequest(flags, env, context);
  let reattach = id;
  return (folder) => {
    const sandbox = { provider, ...(reattach !== undefined ? { id: reattach } : {}) };
    reattach = undefined;
    return sandboxWorkFolder({ folder, cwd: folder, sandbox, env }, context, say).then((made) => made.folder);
  };
}

/** The editor's model as its sessions will make it (flags over Settings): a bad or missing one is told at once. */
async function checkModel(params: AcpOpenParams, host: { dataDir: string; secrets: SecretStore }): Promise<void> {
  const settings = new SettingsService(host.dataDir, host.secrets);
  try {
    const flags = { ...(params.model !== undefined ? { model: params.model } : {}), ...(params.baseUrl !== undefined ? { baseUrl: params.baseUrl } : {}), ...(params.apiKey !== undefined ? { apiKey: params.apiKey } : {}) };
    await sessionModels({ flags, env: params.env, wording: 'command', settings: () => settings.raw(), apiKeyFor: (provider) => settings.apiKeyFor(provider) }).main();
  } finally {
    settings.close();
  }
}
