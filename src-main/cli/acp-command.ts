// `deepdesk acp [options]` (SPEC §14): the agent for an editor (Zed, JetBrains, Neovim,
// Emacs) over the Agent Client Protocol on stdin/stdout. stdout carries protocol messages
// only: everything for the person goes to stderr.

import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { databasePath, resolveDataDir } from '../app/data-dir';
import { CheckpointHistory } from '../core/checkpoints/history';
import { recorderFor } from '../core/checkpoints/recorder';
import { CheckpointStore } from '../core/checkpoints/store';
import { openDatabase } from '../core/backends/store/store';
import { createChatModel } from '../core/models/create-model';
import { stopAllProcesses } from '../core/process/supervisor';
import { detectSandbox } from '../core/sandbox';
import { terminalSafe } from '../core/text/terminal-safe';
import { startAcpAgent } from '../host/acp/acp-agent';
import { acpTrustScope } from './acp-trust';
import { cliChatModel, openFolderRuntime } from '../app/session/folder-runtime';
import { projectFolder } from './folders';
import { packageVersion } from '../app/package-version';
import { personRuleBook, savedRunSettings } from '../app/session/person-rules';
import { COMMAND_OPTIONS } from './command-table';
import { badRequestAsUsage, parseCommand, positiveInt, UsageError } from './usage';
import { memoriesStoreFlag, mountFlags, openSessionMounts } from './mount-flags';
import { runAudits } from '../app/telemetry/run-audit';

const ACP_OPTIONS = COMMAND_OPTIONS.acp;

export async function acpCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, ACP_OPTIONS);
  if (positionals.length > 0) throw new UsageError(`acp takes no arguments (got '${positionals.join(' ')}')`);
  const env = process.env;
  const contextWindow = positiveInt('--context-window', values['context-window']);
  const evictChars = positiveInt('--evict-chars', values['evict-chars']);
  const folder = projectFolder(values.folder, 'acp');
  const flaggedMounts = mountFlags(values.mount);
  const memoriesStore = memoriesStoreFlag(values['memories-store']);
  const dataDir = resolveDataDir(values['data-dir'], env);
  const saved = savedRunSettings(dataDir, env);
  const model = badRequestAsUsage(() => cliChatModel({ model: values.model, baseUrl: values['base-url'], apiKey: values['api-key'], contextWindow, mediaInput: saved.mediaInput, prices: saved.prices }, env));
  const say = (line: string) => void process.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`);
  // A library that logs with console.log would corrupt the protocol stream.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);

  // `--trust` trusts one folder, for this process only: the one given with --folder, else the
  // first session's. Every other folder an editor opens asks as usual (SPEC §9).
  const trusting = acpTrustScope(values.trust === true, values.folder !== undefined ? folder : undefined);

  const db = openDatabase(databasePath(dataDir));
  const checkpoints = CheckpointStore.open(dataDir);
  const ruleBook = personRuleBook(dataDir, env, say);
  const sessionMounts = openSessionMounts({ dataDir, env, db, flags: flaggedMounts, memoriesStore, say });
  const sandbox = await detectSandbox();
  const audits = runAudits((sessionFolder) => ({ db, env, folder: sessionFolder, localFolder: sessionFolder, sandboxType: sandbox.available ? sandbox.kind : 'none', version: packageVersion(), settings: () => saved }));
  try {
    const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
    const running = startAcpAgent(stream, {
      version: packageVersion(),
      db,
      dataDir,
      env,
      model,
      resolveModel: (spec) =>
        createChatModel({ model: spec, env, ...(saved.mediaInput !== undefined ? { mediaInputOverrides: saved.mediaInput } : {}), ...(saved.prices !== undefined ? { priceOverrides: saved.prices } : {}) }),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(evictChars !== undefined ? { evictChars } : {}),
      defaultFolder: folder,
      sandbox,
      openFolder: (sessionFolder, mcpServers) =>
        openFolderRuntime({ folder: sessionFolder, dataDir, env, mcpFiles: values['mcp-config'] ?? [], trust: trusting(sessionFolder), extraMcpServers: mcpServers, say }),
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
    const stop = new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    await Promise.race([running.closed, stop]);
    await running.close();
    // Whatever a library left open must not keep an editor waiting for this process to end.
    setTimeout(() => process.exit(), 2_000).unref();
    return 0;
  } finally {
    try {
      new CheckpointHistory(checkpoints).collectGarbage();
    } finally {
      ruleBook.close();
      checkpoints.close();
      await sessionMounts.close();
      await audits.close();
      db.close();
      await stopAllProcesses();
    }
  }
}
