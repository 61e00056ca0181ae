// What the agent host runs for one `deepdesk acp` (SPEC §14, §16): the editor's agent over the
// stream the host carries (app/host/acp-tunnels.ts), with the command's flags. The host
// process's entry (host-command.ts) gives it to the host; the `acp` command itself only
// relays the editor's bytes (host/host-client/acp-relay.ts).

import { databasePath } from '../app/data-dir';
import { ContractError } from '../app/contract';
import type { AcpAgentHandle, AcpOpenParams, AcpStreams } from '../app/host/acp-tunnels';
import { packageVersion } from '../app/package-version';
import { cliChatModel, openFolderRuntime } from '../app/session/folder-runtime';
import { personRuleBook, savedRunSettings } from '../app/session/person-rules';
import { openSessionMounts } from '../app/session/session-mounts';
import { runAudits } from '../app/telemetry/run-audit';
import { openDatabase } from '../core/backends/store/store';
import { CheckpointHistory } from '../core/checkpoints/history';
import { recorderFor } from '../core/checkpoints/recorder';
import { CheckpointStore } from '../core/checkpoints/store';
import { createChatModel } from '../core/models/create-model';
import { detectSandbox } from '../core/sandbox';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { startAcpAgent } from '../host/acp/acp-agent';
import { acpTrustScope } from './acp-trust';
import { memoriesStoreFlag, mountFlags } from './mount-flags';
import { UsageError } from './usage';

/** Opens an editor's agent in the host; bad flags reject with ContractError `bad_request`. */
export async function openAcpSession(streams: AcpStreams, params: AcpOpenParams, dataDir: string): Promise<AcpAgentHandle> {
  const { say } = streams;
  const env: NodeJS.ProcessEnv = params.env;
  const flags = asContractErrors(() => ({
    mounts: mountFlags(params.mounts, params.cwd),
    memoriesStore: memoriesStoreFlag(params.memoriesStore),
  }));
  const saved = savedRunSettings(dataDir);
  const model = cliChatModel(
    { model: params.model, baseUrl: params.baseUrl, apiKey: params.apiKey, contextWindow: params.contextWindow, mediaInput: saved.mediaInput, prices: saved.prices },
    env,
  );
  // `--trust` trusts one folder, for this editor only: the one given with --folder, else the
  // first session's. Every other folder an editor opens asks as usual (SPEC §9).
  const trusting = acpTrustScope(params.trust, params.folderGiven ? params.folder : undefined);

  const db = openDatabase(databasePath(dataDir));
  const checkpoints = CheckpointStore.open(dataDir);
  const ruleBook = personRuleBook(dataDir, say);
  const sessionMounts = openSessionMounts({ dataDir, env, db, flags: flags.mounts, memoriesStore: flags.memoriesStore, say });
  const sandbox = await detectSandbox();
  const audits = runAudits((sessionFolder) => ({ db, env, folder: sessionFolder, localFolder: sessionFolder, sandboxType: sandbox.available ? sandbox.kind : 'none', version: packageVersion(), settings: () => saved }));
  let closing: Promise<void> | undefined;
  const closeAll = () =>
    (closing ??= (async () => {
      try {
        new CheckpointHistory(checkpoints).collectGarbage();
      } finally {
        ruleBook.close();
        checkpoints.close();
        await sessionMounts.close();
        await audits.close();
        db.close();
      }
    })());
  try {
    const running = startAcpAgent(ndJsonStream(streams.output, streams.input), {
      version: packageVersion(),
      db,
      dataDir,
      env,
      model,
      resolveModel: (spec) =>
        createChatModel({ model: spec, env, ...(saved.mediaInput !== undefined ? { mediaInputOverrides: saved.mediaInput } : {}), ...(saved.prices !== undefined ? { priceOverrides: saved.prices } : {}) }),
      ...(params.contextWindow !== undefined ? { contextWindow: params.contextWindow } : {}),
      ...(params.evictChars !== undefined ? { evictChars: params.evictChars } : {}),
      defaultFolder: params.folder,
      sandbox,
      openFolder: (sessionFolder, mcpServers) =>
        openFolderRuntime({ folder: sessionFolder, dataDir, env, mcpFiles: params.mcpConfig, trust: trusting(sessionFolder), extraMcpServers: mcpServers, say }),
      checkpoints: (sessionFolder) => recorderFor(checkpoints, sessionFolder),
      rules: () => ruleBook.rules(),
      addRule: (rule) => ruleBook.add(rule),
      log: say,
      mounts: { routes: () => sessionMounts.table.routes(), git: () => sessionMounts.table.gitMounts(), realRoots: () => sessionMounts.table.realRoots() },
      memories: sessionMounts.memories.store,
      audit: async (sessionFolder) => {
        const audit = await audits.for(sessionFolder);
        return (state, maxCostUsd) => audit.runOptions(state, maxCostUsd);
      },
    });
    return {
      closed: running.closed.finally(closeAll),
      busy: () => running.busy(),
      working: (threadId) => running.working(threadId),
      stop: (threadId) => running.stop(threadId),
      async close() {
        try {
          await running.close();
        } finally {
          await closeAll();
        }
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** The command's flag checks, told as the host tells bad usage (the command exits 2). */
function asContractErrors<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof UsageError) throw new ContractError(err.message, 'bad_request');
    throw err;
  }
}
