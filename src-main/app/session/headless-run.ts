// A run that no window drives: `deepdesk run`'s, carried out in the agent host. Its folder is
// opened with the run's own flags (model, mounts, MCP config files, `--trust`, a remote
// folder), the person's message goes through the one input pipeline, and the thread runs in
// the one run assembly (ThreadService). What the person should know is one line to `say`;
// approvals go to the broker the host gives it (the attached terminal, or a fixed policy).

import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { RunResult } from '../../core/agent/loop';
import type { ApprovalBroker } from '../../core/agent/middleware/approval';
import { withClaudeRules } from '../../core/config/claude-permissions';
import { isDefaultRule, type ApprovalMode } from '../../core/agent/permissions/modes';
import { newThreadState, type AgentEvent } from '../../core/agent/types';
import { parseMountFlags } from '../../core/backends/mounts/mount-table';
import { CheckpointHistory } from '../../core/checkpoints/history';
import { recorderFor } from '../../core/checkpoints/recorder';
import { CheckpointStore } from '../../core/checkpoints/store';
import { transcriptsDir, transcriptWriter } from '../../core/extensions/hooks/transcript';
import { createChatModel } from '../../core/models/create-model';
import { detectSandbox } from '../../core/sandbox';
import { sshTargetLabel } from '../../core/backends/remote/ssh-target';
import { ApprovalService } from '../approvals/approval-service';
import { expandInput, isInputError, messageText } from '../commands/person-input';
import { ContractError } from '../contract';
import { parseFolderLocation } from '../folders/folder-location';
import { RunAudit } from '../telemetry/run-audit';
import { ThreadStore } from '../threads/thread-store';
import { cliChatModel, openFolderExtensions } from './folder-runtime';
import { personRules, savedRunSettings } from './person-rules';
import { openRunFolder } from './run-folder';
import { openSessionMounts } from './session-mounts';
import { ThreadService } from './thread-service';

/** What `deepdesk run` asks for: its flags, checked by the command already, and its environment. */
export interface HeadlessRunRequest {
  /** A local path or an `ssh://` URL. */
  folder: string;
  prompt: string;
  /** Continue this thread (`--thread`); default a new one. */
  threadId?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  contextWindow?: number;
  evictChars?: number;
  mode: ApprovalMode;
  maxCostUsd?: number;
  /** `--mount` flags as given, relative folders from `cwd`. */
  mounts: readonly string[];
  memoriesStore?: string;
  /** `--mcp-config` files, absolute. */
  mcpConfig: readonly string[];
  trust: boolean;
  /** The command's working folder. */
  cwd: string;
  /** The command's environment: keys, base URLs, what commands and hooks inherit. */
  env: NodeJS.ProcessEnv;
}

export interface HeadlessRunIo {
  /** One line for the person (a problem with a file, a server that did not start). */
  say(line: string): void;
  /** Every event of the thread, as the harness gives it. */
  emit(event: AgentEvent): void;
  /** Who answers this run's approvals. */
  broker: ApprovalBroker;
}

export interface HeadlessRun {
  threadId: string;
  /** The folder as the thread records it. */
  folder: string;
  /** How the run ended; everything it opened is closed by then. */
  result: Promise<RunResult>;
  /** Stops the run (its commands' process trees included). */
  stop(): Promise<void>;
}

export interface HeadlessRunContext {
  dataDir: string;
  db: Database.Database;
  version: string;
}

/**
 * Opens the run's folder and starts the run. Rejects with ContractError `bad_request` for what
 * is bad usage (a bad model spec, a slash command that means nothing here, `--mode auto`
 * without a sandbox, a bad mention), and with the error itself for the rest.
 */
export async function startHeadlessRun(request: HeadlessRunRequest, context: HeadlessRunContext, io: HeadlessRunIo): Promise<HeadlessRun> {
  const { dataDir, db } = context;
  const { env } = request;
  const saved = savedRunSettings(dataDir, env);
  const model = cliChatModel(
    { model: request.model, baseUrl: request.baseUrl, apiKey: request.apiKey, contextWindow: request.contextWindow, mediaInput: saved.mediaInput, prices: saved.prices },
    env,
  );
  const location = parseFolderLocation(request.folder, request.cwd);
  const opened: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const close of opened.reverse()) await close();
  };
  try {
    const folder = await openRunFolder(location, { dataDir, env, say: io.say });
    opened.push(() => folder.close());
    const { sandbox } = folder;
    if (request.mode === 'auto' && sandbox === undefined) {
      const detected = location.kind === 'local' ? await detectSandbox() : { available: false as const, reason: `${sshTargetLabel(location.target)} has no usable bubblewrap` };
      throw new ContractError(`--mode auto needs a sandbox, and none is available: ${detected.available ? 'it could not be set up' : detected.reason}`, 'bad_request');
    }
    // MCP servers, skills and hooks of the folder load through the one trust gate (SPEC §9–§11).
    const extensions = await openFolderExtensions(folder.localPath, { dataDir, env, mcpFiles: request.mcpConfig, trust: request.trust, say: io.say });
    opened.push(() => extensions.close());
    const { mcp, skills, definitions, hooks, realFolder } = extensions;
    const audit = await RunAudit.open({
      db,
      env,
      folder: folder.text,
      ...(folder.localPath !== undefined ? { localFolder: folder.localPath } : {}),
      sandboxType: sandbox?.kind ?? 'none',
      version: context.version,
      settings: () => saved,
    });
    opened.push(() => audit.close());
    const sessionMounts = openSessionMounts({ dataDir, env, db, flags: parseMountFlags(request.mounts, request.cwd), memoriesStore: request.memoriesStore, say: io.say });
    opened.push(() => sessionMounts.close());
    const checkpoints = CheckpointStore.open(dataDir);
    opened.push(() => {
      try {
        new CheckpointHistory(checkpoints).collectGarbage();
      } finally {
        checkpoints.close();
      }
    });
    const rules = personRules(dataDir, env, io.say);
    const mode = () => request.mode;
    const threads = new ThreadService({
      db,
      folder: folder.text,
      approvals: new ApprovalService(db, async () => ({})),
      createModel: async () => model,
      // Claude Code's settings files' rules around the person's own; the defaults follow (SPEC §11).
      rules: () => withClaudeRules(extensions.claudeRules(), rules.filter((rule) => !isDefaultRule(rule))),
      subagents: () => definitions.agents().agents,
      resolveModel: (spec) =>
        createChatModel({ model: spec, env, ...(saved.mediaInput !== undefined ? { mediaInputOverrides: saved.mediaInput } : {}), ...(saved.prices !== undefined ? { priceOverrides: saved.prices } : {}) }),
      ...(request.contextWindow !== undefined ? { contextWindow: () => request.contextWindow } : {}),
      ...(request.evictChars !== undefined ? { evictChars: request.evictChars } : {}),
      maxConcurrentRuns: () => saved.maxConcurrentRuns,
      audit: (state, maxCostUsd) => audit.runOptions(state, maxCostUsd),
      folderBackendFor: () => folder.backend,
      mode,
      sandboxAvailable: () => sandbox !== undefined,
      checkpoints: recorderFor(checkpoints, folder.checkpointFolder),
      ...(mcp ? { mcp } : {}),
      skills: { source: () => skills.current().skills },
      ...(hooks && realFolder !== undefined ? { hooks: { hooks: () => hooks().hooks, folder: realFolder, mode, env, transcripts: transcriptWriter(transcriptsDir(dataDir)) } } : {}),
      mounts: { routes: () => sessionMounts.table.routes(), git: () => sessionMounts.table.gitMounts() },
      memories: sessionMounts.memories.store,
      emit: (e) => {
        if (e.kind === 'thread-event') io.emit(e.event);
      },
    });
    opened.push(() => threads.dispose());
    const store = new ThreadStore(db);
    const threadId = request.threadId ?? randomUUID();
    const stored = store.get(threadId);
    if (stored === undefined) store.save(newThreadState(threadId), { folder: folder.text });
    else if (stored.folder !== folder.text) throw new ContractError(`thread ${threadId} belongs to another folder (${stored.folder}); pass that --folder`, 'bad_request');
    threads.useRunSettings(threadId, { broker: io.broker, ...(request.maxCostUsd !== undefined ? { maxCostUsd: request.maxCostUsd } : {}) });

    const input = await personInput(request.prompt, { ...(mcp ? { mcp } : {}), skills: () => skills.current().skills, commands: () => definitions.commands().commands, files: folder.backend });
    const result = threads.run(threadId, input.content, { compactOnly: input.compactOnly, typed: request.prompt }).finally(closeAll);
    return { threadId, folder: folder.text, result, stop: () => threads.stop(threadId) };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** The person's words through the one input pipeline; the slash commands that change a window's state are bad usage here. */
async function personInput(typed: string, sources: Parameters<typeof expandInput>[1]): Promise<{ content: string | null; compactOnly: boolean }> {
  let outcome;
  try {
    outcome = await expandInput(typed, sources);
  } catch (err) {
    if (isInputError(err)) throw new ContractError(err.message, 'bad_request');
    throw err;
  }
  switch (outcome.kind) {
    case 'send':
      return { content: messageText(outcome), compactOnly: false };
    case 'compact':
      return { content: null, compactOnly: true };
    case 'model':
    case 'mode': {
      const value = outcome.kind === 'model' ? outcome.model : outcome.mode;
      throw new ContractError(`/${outcome.kind} changes the window's ${outcome.kind}; for deepdesk run pass --${outcome.kind} ${value}`, 'bad_request');
    }
    case 'clear':
      throw new ContractError('/clear starts a new thread in the window; deepdesk run starts one whenever --thread is not given', 'bad_request');
  }
}
