// The app behind the window: builds the services for one project folder and answers the
// contract's requests. Transports (Electron IPC, the web host) only carry messages to it.

import { RunAudit } from './telemetry/run-audit';
import { usageReport } from './usage/usage-report';
import { ThreadStore } from './threads/thread-store';
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { wantsOutsideSandbox } from '../core/agent/permissions/modes';
import { withClaudeRules } from '../core/config/claude-permissions';
import { evaluatePermission, suggestAllowRule, type PermissionRule } from '../core/agent/permissions/rules';
import type { ApprovalDecision, ApprovalRequest } from '../core/agent/types';
import { createDefaultMounts } from '../core/backends/mounts/mounts';
import { openMemoriesStore } from '../core/backends/store/memory-store';
import { MountSpecError, parseMountPrefix, type MountSpec } from '../core/backends/mounts/mount-spec';
import { localMountProblem, MountTable, parseSavedMount } from '../core/backends/mounts/mount-table';
import type { Backend } from '../core/backends/protocol';
import { openDatabase } from '../core/backends/store/store';
import { applyEdit } from '../core/backends/text';
import { collectResponse } from '../core/models/collect';
import { createChatModel, parseModelSpec } from '../core/models/create-model';
import { AbortedError, ModelConfigError } from '../core/models/errors';
import { modelProblem } from '../core/models/connection-problem';
import type { RetryPolicy } from '../core/models/retry';
import { listModels } from '../core/models/list-models';
import { DEFAULT_CONTEXT_WINDOW, contextWindowFor } from '../core/models/model-info';
import type { ChatModel, ProviderName } from '../core/models/types';
import { errorEventForWindow, problemForWindow } from './model-problem-words';
import { remoteFolderSource } from '../core/checkpoints/remote-folder';
import { CheckpointStore } from '../core/checkpoints/store';
import { createSandbox, detectSandbox, type SandboxAvailability } from '../core/sandbox';
import { ApprovalService, type ApprovalExtras } from './approvals/approval-service';
import { CheckpointsService, type UserMessageRef } from './checkpoints/checkpoints-service';
import {
  ContractError,
  type methods,
  type EventFrame,
  type FolderHostMethodName,
  type AgentViewMethodName,
  type EventName,
  type EventPayload,
  type MethodName,
  type MountsListDto,
  type NoticeDto,
  type OverriddenFields,
  type Params,
  type Result,
  type Settings,
  type UpdateMethodName,
} from './contract';
import { answerWithin, LATER } from './answer-within';
import { databasePath } from './data-dir';
import type { AppHostApi } from './host-api';
import { detectLocalServers } from './local-servers';
import { MEMORY_AUTHOR_USER, MemoriesService } from './memories/memories-service';
import { ModeService } from './modes/mode-service';
import type { SecretStore } from './secret-store';
import type { JsonFileProblem } from '../core/config/json-file-store';
import { changesFolderConfiguration, personConfigPaths } from '../core/config/registry';
import { transcriptsDir, transcriptWriter } from '../core/extensions/hooks/transcript';
import { watchPersonConfiguration } from '../core/config/watch-person-configuration';
import { SettingsService } from './settings/settings-service';
import { SHELL_TERMINAL_ID, TerminalService } from './terminal/terminal-service';
import { WindowRemoteShellBackend, WindowShellBackend } from './terminal/window-shell-backend';
import { remoteFolderConfiguration, remoteFolderLimitsNotice, remoteConfigStandIn, type RemoteAppFolder } from './remote-folder';
import { ThreadService } from './session/thread-service';
import { FolderChangeFeed } from './workspace/folder-change-feed';
import { WorkspaceService } from './workspace/workspace-service';
import { McpHub } from '../core/extensions/mcp/hub';
import { McpService } from './mcp/mcp-service';
import { PluginsService } from './plugins/plugins-service';
import { FolderTrustService } from './trust/folder-trust-service';
import { ExtensionsService } from './extensions/extensions-service';
import { TrustStore } from '../core/trust/store';
import { trustGatedHub } from '../core/extensions/mcp/gated-hub';
import { folderSandboxPolicy } from '../core/sandbox/protected-entry-files';
import { listCommands, type CommandSources } from './commands/slash-commands';
import { expandInput, isInputError, messageText, type InputOutcome } from './commands/person-input';
import { openWithSystem } from './open-external';
import { worktreeMethods } from './worktrees/worktree-methods';
import type { z } from 'zod';

export interface AppOptions {
  folder: string;
  dataDir: string;
  secrets: SecretStore;
  transport: 'electron' | 'web';
  version?: string;
  /** Session overrides from the command line (`deepdesk serve --model …`); not saved. */
  overrides?: { model?: string; baseUrl?: string; apiKey?: string; contextWindow?: number; memoriesStore?: string };
  /** `--mount` flags of `deepdesk serve` (parsed): added to Settings' mounts for this session, a flag winning at its prefix. */
  mountFlags?: readonly MountSpec[];
  env?: NodeJS.ProcessEnv;
  /** Told each notice for the person (a file kept aside, values ignored) as it happens; `serve` prints them. */
  onNotice?: (notice: NoticeDto) => void;
  /** `--mcp-config FILE` (repeatable) of `deepdesk serve`: MCP servers for this session (SPEC §10). */
  mcpConfigFiles?: readonly string[];
  /** Opens a URL in the person's browser (an MCP server's sign-in page); default: the system's opener. */
  openExternal?: (url: string) => Promise<void>;
  /** The folder is remote (SPEC §13): `folder` is its ssh:// URL, this its opened backend (closed with the app). */
  remote?: RemoteAppFolder;
}

export interface App extends AppHostApi {
  readonly folder: string;
  /** Whether a thread of the folder is working (the agent host keeps the app open for it). */
  busy(): boolean;
  /** A thread of the folder was changed by a run elsewhere (see ThreadService.changedElsewhere). */
  changedElsewhere(threadId: string): void;
  /** What the window shows with an approval of this folder (a `deepdesk run`'s too): the diff preview, the suggested "always allow" rule, where a command runs. */
  describeApproval(request: ApprovalRequest): Promise<ApprovalExtras>;
  close(): Promise<void>;
}

/** The folder host's methods (folders/folder-host.ts): opening another folder replaces this app; updates are the whole app's. */
type HostMethodName = FolderHostMethodName | UpdateMethodName | AgentViewMethodName;
type Handlers = { [M in Exclude<MethodName, HostMethodName>]: (params: z.output<(typeof methods)[M]['params']>) => Promise<Result<M>> };

export async function createApp(options: AppOptions): Promise<App> {
  const env = options.env ?? process.env;
  const db: Database.Database = openDatabase(databasePath(options.dataDir));
  const listeners = new Set<(frame: EventFrame) => void>();
  const send = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    for (const l of listeners) l({ event, payload });
  };

  // Notices for the person about the app's own files: kept for windows that connect later.
  const notices: NoticeDto[] = [];
  const noticePrefix = randomUUID().slice(0, 8);
  // A problem with one of the person's files needs their answer; a note about this folder belongs to it.
  const notice = (problem: Omit<JsonFileProblem, 'file'> & { file?: string } & Partial<Pick<NoticeDto, 'id' | 'kind' | 'folder'>>): void => {
    const dto: NoticeDto = {
      id: problem.id ?? `${noticePrefix}-${notices.length + 1}`,
      message: problem.message,
      ...(problem.file !== undefined ? { file: problem.file, needsAnswer: true } : {}),
      ...(problem.movedTo !== undefined ? { movedTo: problem.movedTo } : {}),
      ...(problem.kind !== undefined ? { kind: problem.kind } : {}),
      ...(problem.folder !== undefined ? { folder: problem.folder } : {}),
    };
    notices.push(dto);
    options.onNotice?.(dto);
    send('app.notice', dto);
  };
  const stopSecretProblems = options.secrets.onProblem?.(notice);
  const settings = new SettingsService(options.dataDir, options.secrets, env, { onProblem: notice });
  const overrides = options.overrides ?? {};
  settings.onChange((s) => send('settings.changed', forWindow(s)));
  const withOverrides = <T extends { model: string; baseUrl: string; contextWindow?: number; memoriesStore?: string }>(s: T): T => ({
    ...s,
    ...(overrides.model ? { model: overrides.model } : {}),
    ...(overrides.baseUrl ? { baseUrl: overrides.baseUrl } : {}),
    ...(overrides.contextWindow ? { contextWindow: overrides.contextWindow } : {}),
    ...(overrides.memoriesStore ? { memoriesStore: memoriesStore.label } : {}),
  });
  // Flags override for this session only: the window is told which fields they set...
  const overridden: OverriddenFields = {
    ...(overrides.model ? { model: true } : {}),
    ...(overrides.baseUrl ? { baseUrl: true } : {}),
    ...(overrides.contextWindow ? { contextWindow: true } : {}),
    ...(overrides.apiKey ? { apiKey: true } : {}),
    ...(overrides.memoriesStore ? { memoriesStore: true } : {}),
  };
  const forWindow = (s: Settings): Settings => ({ ...withOverrides(s), ...(Object.keys(overridden).length > 0 ? { overridden } : {}) });
  // ...and a save never writes a flag's value into settings.json (the dialog sends back what it shows).
  const withoutFlagValues = (patch: Params<'settings.update'>): Params<'settings.update'> => {
    const kept = { ...patch };
    if (overrides.model && kept.model === overrides.model) delete kept.model;
    if (overrides.baseUrl && kept.baseUrl === overrides.baseUrl) delete kept.baseUrl;
    if (overrides.contextWindow && kept.contextWindow === overrides.contextWindow) delete kept.contextWindow;
    if (overrides.memoriesStore) delete kept.memoriesStore;
    return kept;
  };

  const { remote } = options;
  // Told only when the remote folder has configuration of its own; looked for in the background.
  if (remote) {
    void remoteFolderConfiguration(remote.shell).then((found) => {
      if (found.length > 0) notice({ id: `remote-config:${options.folder}:${found.join(',')}`, message: remoteFolderLimitsNotice(remote.label, found), kind: 'info', folder: options.folder });
    });
  }
  // The person's mounts (flags over Settings; SPEC §13), read on every call, and the store behind
  // /memories/ (chosen when the folder opens: a change in Settings applies from the next opening).
  const mountTable = new MountTable({
    cacheRoot: join(options.dataDir, 'mounts'),
    flags: options.mountFlags ?? [],
    saved: () => settings.raw().mounts,
    env,
    onProblem: (message) => notice({ message }),
  });
  const mountRoutes = { routes: () => mountTable.routes(), git: () => mountTable.gitMounts() };
  const memoriesStore = openMemoriesStore(overrides.memoriesStore ?? settings.raw().memoriesStore, db, (why) =>
    notice({ message: `The memories store cannot be used (${why}); memories are kept in SQLite for now.` }),
  );
  const shared = createDefaultMounts({
    folder: options.folder,
    db,
    execute: false,
    memories: memoriesStore.store,
    extraMounts: mountRoutes.routes,
    ...(remote ? { folderBackend: remote.shell } : {}),
  });
  // The agent's commands run in the sandbox when this machine (or the remote) has one (SPEC §7).
  const sandbox = remote ? remote.shell.sandbox : await createSandbox(folderSandboxPolicy({ projectDir: realpathSync(options.folder), dataDir: options.dataDir }));
  const sandboxStatus: SandboxAvailability = sandbox
    ? { available: true, kind: sandbox.kind }
    : remote
      ? { available: false, reason: `${remote.label} has no usable bubblewrap` }
      : await detectSandbox().then((d) => (d.available ? { available: false, reason: 'the sandbox could not be set up' } : d));
  const modes = new ModeService(options.dataDir, options.folder, sandboxStatus, { onProblem: notice });
  modes.onChange((state) => send('mode.changed', state));

  // Terminals exist only for this folder's threads (made-up ids start nothing).
  const isThread = (threadId: string): boolean => threads.store.get(threadId)?.folder === options.folder;
  // A remote folder's shell tab is the person's login shell there, over the folder's connection.
  const terminals = new TerminalService({
    rootDir: remote ? options.dataDir : options.folder,
    isThread,
    shell: { baseEnv: env, ...(remote ? { command: remote.loginShell } : {}) },
  });
  // The window acknowledges what it rendered (terminal.ack), so a flood of output cannot outrun it.
  terminals.onData((threadId, terminalId, data) => send('terminal.data', { threadId, terminalId, data }));
  terminals.onChange((threadId) => send('terminal.changed', { threadId }));

  const commandsRun: CommandsRun = { ...(remote ? { host: remote.shell.connection.label } : {}), sandboxed: sandbox !== undefined };
  const describe = (request: ApprovalRequest): Promise<ApprovalExtras> => describeApproval(request, shared.backend, commandsRun, () => extensions.claudeRules().first);
  const approvals = new ApprovalService(db, describe);
  approvals.onChange((threadId) => send('approvals.changed', { threadId }));

  const modelFor = async (spec: string, baseUrl?: string, apiKey?: string, retry?: RetryPolicy): Promise<ChatModel> => {
    const { provider } = parseModelSpec(spec);
    const key = apiKey ?? overrides.apiKey ?? (await settings.apiKeyFor(provider));
    const current = withOverrides(settings.raw());
    return createChatModel({
      model: spec,
      env,
      ...(baseUrl ? { baseUrl } : {}),
      ...(key ? { apiKey: key } : {}),
      ...(current.contextWindow ? { contextWindow: current.contextWindow } : {}),
      ...(current.mediaInput ? { mediaInputOverrides: current.mediaInput } : {}),
      ...(current.prices ? { priceOverrides: current.prices } : {}),
      ...(retry ? { retry } : {}),
    });
  };

  // Checkpoints are kept in the local data folder; a remote folder is read and restored over its connection.
  const checkpointStore = CheckpointStore.open(options.dataDir);
  const checkpoints = new CheckpointsService({
    store: checkpointStore,
    folder: remote ? remoteFolderSource(remote.shell.connection) : options.folder,
    // Called only after `threads` exists (by requests from the window).
    userMessages: (threadId): UserMessageRef[] => threads.userMessages(threadId),
    onChange: (threadId) => send('checkpoints.changed', { threadId }),
    // Like userMessages: used only once `threads` exists.
    conversation: {
      tell: (threadId, note) => threads.tell(threadId, note),
      rewindBlocker: (threadId) => threads.rewindBlocker(threadId),
      rewind: (threadId, index, record) => threads.rewind(threadId, index, record),
      putBack: (threadId, checkpointId) => threads.putBack(threadId, checkpointId),
      rewinds: (threadId) => threads.rewinds(threadId),
    },
  });
  checkpoints.collectGarbage();

  // The folder's own configuration (SPEC §9–§11) is read from the local disk; for a remote
  // folder these services look at an empty local folder instead (the person's own still load).
  const realFolder = remote ? remoteConfigStandIn(options.dataDir) : realpathSync(options.folder);
  const hub = new McpHub({
    folder: realFolder,
    dataDir: options.dataDir,
    env,
    tokens: options.secrets,
    openBrowser: options.openExternal ?? openWithSystem,
    clientInfo: { name: 'deepdesk', version: options.version ?? '0.0.0' },
  });
  // The one trust gate for the folder's own configuration (SPEC §9): MCP servers, hooks, skills.
  const trustStore = new TrustStore(options.dataDir, { onProblem: notice });
  const folderTrust = new FolderTrustService({ folder: realFolder, env, store: trustStore, onState: (state) => send('trust.changed', state) });
  // The agent, slash commands and Settings see the folder's servers through the trust gate at
  // every use: a revoke or a changed entry takes effect before the reload that stops them.
  const gatedHub = trustGatedHub(hub, { folder: realFolder, gate: trustStore, onStale: () => mcp.scheduleReload() });
  const mcp: McpService = new McpService({
    folder: realFolder,
    dataDir: options.dataDir,
    env,
    hub: gatedHub,
    trust: trustStore,
    ...(options.mcpConfigFiles ? { cliFiles: options.mcpConfigFiles } : {}),
    onChange: () => send('mcp.changed', {}),
    onProblem: notice,
    onNotice: (message) => notice({ message }),
  });
  const extensions = new ExtensionsService({ folder: realFolder, dataDir: options.dataDir, trust: trustStore, onChange: () => send('extensions.changed', {}), onProblem: notice });
  // The person's own configuration (every kind's places in the data folder and home, and
  // `--mcp-config` files): one watcher; the folder's own comes through the folder's watcher.
  const personConfiguration = watchPersonConfiguration([...personConfigPaths({ dataDir: options.dataDir, home: homedir() }), ...(options.mcpConfigFiles ?? []).map((f) => resolve(f))], () => {
    mcp.scheduleReload();
    extensions.scheduleReload();
  });
  const plugins = new PluginsService(options.dataDir, env, () => {
    send('plugins.changed', {});
    mcp.scheduleReload();
    extensions.scheduleReload();
  });
  folderTrust.onGranted(() => mcp.reload());
  folderTrust.onGranted(() => extensions.reload());
  // Trust given or revoked elsewhere (`deepdesk trust --revoke`, another window): the question,
  // the servers (stopped) and the hooks and skills follow at once.
  trustStore.onChange(() => {
    void folderTrust.refresh();
    void mcp.reload();
    extensions.reload();
  });

  const commandSources: CommandSources = { mcp: gatedHub, skills: () => extensions.skills(), commands: () => extensions.commands() };

  const audit = await RunAudit.open({
    db,
    env,
    folder: options.folder,
    ...(remote ? {} : { localFolder: options.folder }),
    sandboxType: sandbox?.kind ?? 'none',
    version: options.version ?? '0.0.0',
    settings: () => settings.raw(),
  });
  const threadTitles = new ThreadStore(db);

  const threads: ThreadService = new ThreadService({
    db,
    folder: options.folder,
    audit: (state, maxCostUsd) => audit.runOptions(state, maxCostUsd),
    lastRunUsage: (threadId) => audit.ledger.lastTurn(threadId),
    mcp: gatedHub,
    skills: { source: () => extensions.skills(), onListing: (listing) => extensions.noteListing(listing) },
    ...(remote ? {} : { hooks: { hooks: () => extensions.hooks(), folder: realFolder, mode: () => modes.current(), env, transcripts: transcriptWriter(transcriptsDir(options.dataDir)) } }),
    approvals,
    createModel: async () => {
      const current = withOverrides(settings.raw());
      if (current.model.trim() === '') throw new ContractError('No model is configured yet. Open Settings and choose a provider and model.', 'needs_settings');
      try {
        return await modelFor(current.model, current.baseUrl || undefined);
      } catch (err) {
        // The window has no command line: say where in the window to fix it.
        if (err instanceof ModelConfigError) throw new ContractError(modelProblemForWindow(err, 'Settings'), 'needs_settings');
        throw err;
      }
    },
    rules: () => withClaudeRules(extensions.claudeRules(), settings.raw().rules as PermissionRule[]),
    subagents: () => extensions.subagents(settings.raw().subagents),
    contextWindow: () => withOverrides(settings.raw()).contextWindow,
    maxConcurrentRuns: () => settings.raw().maxConcurrentRuns,
    folderBackendFor: (threadId) =>
      remote
        ? new WindowRemoteShellBackend({ connection: remote.shell.connection, threadId, terminals, ...(sandbox ? { sandbox } : {}) })
        : new WindowShellBackend({ rootDir: options.folder, threadId, terminals, ...(sandbox ? { sandbox } : {}) }),
    mode: () => modes.current(),
    sandboxAvailable: () => sandbox !== undefined,
    checkpoints: checkpoints.recorder,
    mounts: mountRoutes,
    memories: memoriesStore.store,
    onDelete: (threadId) => checkpoints.deleteThread(threadId),
    emit: (e) => {
      // Core's messages name the command line's flags; the window says where it takes them.
      if (e.kind === 'thread-event') send('thread.event', { threadId: e.threadId, seq: e.seq, event: errorEventForWindow(e.event) as unknown as EventPayload<'thread.event'>['event'] });
      else if (e.kind === 'threads-changed') send('threads.changed', {});
      else send('memories.changed', {});
    },
  });

  // The local watcher's paths tell the recorder what changed; a remote folder is walked instead.
  const changeFeed = !remote ? new FolderChangeFeed(checkpoints.recorder.root, { onBlindSpot: () => workspace.watchAgain() }) : undefined;
  if (changeFeed) checkpoints.recorder.useChangeFeed(changeFeed);
  const workspace: WorkspaceService = new WorkspaceService({
    folder: options.folder,
    backend: shared.folder,
    onChange: (paths) => {
      send('files.changed', { paths });
      if (changesFolderConfiguration(realFolder, paths)) {
        void folderTrust.refresh();
        mcp.scheduleReload();
        extensions.scheduleReload();
      }
    },
    ...(changeFeed ? { feed: changeFeed } : {}),
    onWatchLimited: (message) => notice({ message }),
    ...(remote
      ? {
          remote: {
            ...(remote.pollIntervalMs !== undefined ? { pollIntervalMs: remote.pollIntervalMs } : {}),
            onError: (message: string) => notice({ message: `The file tree cannot follow ${remote.label} now: ${message}. It keeps trying.`, folder: options.folder }),
          },
        }
      : {}),
  });
  // Servers start in parallel in the background: one that is slow or fails never holds up the window or the agent.
  const mcpStarted = Promise.all([folderTrust.refresh(), mcp.start()]);
  // Ready does not wait for the watcher: its subscription walks the folder's directories.
  // Then the folder's first checkpoint snapshot is taken in the background (in slices).
  const baselineAbort = new AbortController();
  const watching = workspace.start().then(() =>
    checkpoints.recorder.prepareBaseline(baselineAbort.signal).catch(() => {
      // Stopped at close, or failed: the first step takes it instead.
    }),
  );
  const memories = new MemoriesService(shared.memories.withAuthor(MEMORY_AUTHOR_USER), () => send('memories.changed', {}), memoriesStore.shared ? memoriesStore.label : undefined);

  const mountsList = (): MountsListDto => ({ mounts: mountTable.list(), memoriesStore: memoriesStore.label });
  // Settings › Mounts changed (here or in another window): the window's list follows.
  let mountsKey = JSON.stringify(settings.raw().mounts);
  settings.onChange((s) => {
    const key = JSON.stringify(s.mounts);
    if (key === mountsKey) return;
    mountsKey = key;
    send('mounts.changed', {});
  });

  // Worktrees of this folder, or this folder as one (SPEC §16): a new one takes the folder's mode along.
  const worktrees = worktreeMethods({
    folder: options.folder,
    remote: remote !== undefined,
    dataDir: options.dataDir,
    db,
    env,
    onCreated: (threadFolder) => carryModeTo(options.dataDir, modes, threadFolder, sandboxStatus),
    changed: () => send('worktrees.changed', {}),
  });

  const ok = { ok: true as const };
  const handlers: Handlers = {
    'app.info': async () => ({
      folder: options.folder,
      folderName: basename(options.folder),
      version: options.version ?? '0.0.0',
      transport: options.transport,
      canPickFolder: false,
    }),
    'app.notices': async () => [...notices],

    'settings.get': async () => forWindow(await settings.get()),
    'settings.update': async (patch) => forWindow(await settings.update(withoutFlagValues(patch))),
    'settings.setApiKey': async ({ provider, key }) => forWindow(await settings.setApiKey(provider, key)),
    'settings.testConnection': async ({ model, baseUrl, apiKey }) => testConnection(model, (retry) => modelFor(model, baseUrl, apiKey, retry)),
    'settings.detectLocalServers': () => detectLocalServers(),
    'settings.listModels': async ({ provider, baseUrl, apiKey }) => {
      const key = apiKey ?? overrides.apiKey ?? (await settings.apiKeyFor(provider));
      try {
        return { models: await listModels({ provider, env, ...(baseUrl ? { baseUrl } : {}), ...(key ? { apiKey: key } : {}) }) };
      } catch (err) {
        // Nothing to list with yet: what to do, not a failure.
        if (err instanceof ModelConfigError && err.missing === 'api-key') throw new ContractError(`Add an API key for ${providerLabel(provider)} to list its models.`, 'needs_settings');
        if (err instanceof ModelConfigError && err.missing === 'base-url') throw new ContractError('Enter the server’s base URL to list its models.', 'needs_settings');
        throw new ContractError(err instanceof Error ? err.message : String(err), 'failed');
      }
    },

    'threads.list': async () => threads.list(),
    'usage.report': async ({ by, since }) => usageReport(audit.ledger, threadTitles, { by, ...(since !== undefined ? { since } : {}) }),
    'threads.create': async ({ title }) => threads.create(title),
    'threads.search': async ({ query }) => threads.search(query),
    'threads.get': async ({ threadId }) => {
      const view = threads.get(threadId);
      threads.markSeen(threadId);
      return view.contextWindow > 0 ? view : { ...view, contextWindow: contextWindowNow() };
    },
    'threads.earlier': async ({ threadId, cursor }) => threads.earlier(threadId, cursor),
    'threads.toolCall': async ({ threadId, index, toolCallId, parentToolCallId }) => threads.toolCall(threadId, index, toolCallId, parentToolCallId),
    'threads.rename': async ({ threadId, title }) => (threads.rename(threadId, title), ok),
    'threads.delete': async ({ threadId }) => {
      await threads.delete(threadId);
      await terminals.close(threadId);
      return ok;
    },
    'threads.send': async ({ threadId, text, attachments }) => {
      let outcome: InputOutcome;
      try {
        outcome = await expandInput(text, { ...commandSources, files: shared.folder });
      } catch (err) {
        if (isInputError(err)) throw new ContractError(err.message, 'bad_request');
        throw err;
      }
      switch (outcome.kind) {
        case 'compact':
          await threads.compact(threadId);
          return { ...ok, note: 'Compacting the conversation…' };
        case 'clear':
          return { ...ok, threadId: threads.create().id, note: 'Started a new thread.' };
        case 'model': {
          try {
            parseModelSpec(outcome.model);
          } catch (err) {
            if (err instanceof ModelConfigError) throw new ContractError(err.message, 'bad_request');
            throw err;
          }
          if (overrides.model) throw new ContractError('the model is set by --model for this session; /model cannot change it', 'bad_request');
          await settings.update({ model: outcome.model });
          return { ...ok, note: `Model: ${outcome.model}` };
        }
        case 'mode':
          await modes.set(outcome.mode);
          return { ...ok, note: `Mode: ${outcome.mode}` };
      }
      return { ...ok, ...(await threads.send(threadId, messageText(outcome), attachments, text)) };
    },
    'commands.list': async () => listCommands(commandSources),
    'threads.cancelQueued': async ({ threadId, queuedId }) => (threads.cancelQueued(threadId, queuedId), ok),
    'threads.sendQueuedNow': async ({ threadId, queuedId }) => (await threads.sendQueuedNow(threadId, queuedId), ok),
    'threads.stop': async ({ threadId }) => (await threads.stop(threadId), ok),
    'threads.retry': async ({ threadId }) => (await threads.retry(threadId), ok),
    'threads.attachment': async ({ threadId, index, name }) => threads.attachment(threadId, index, name),
    'threads.readArchive': async ({ threadId, path }) => ({ text: await threads.readThreadFile(threadId, path) }),

    'approvals.decide': async ({ threadId, toolCallId, parentToolCallId, decision }) => {
      if (decision.type === 'approve' && decision.alwaysAllow) {
        // Added to the rules as they are in the file now (another window may have changed them).
        await settings.addRule(decision.alwaysAllow);
      }
      const core: ApprovalDecision =
        decision.type === 'approve' ? { type: 'approve' } : decision.type === 'edit' ? { type: 'edit', args: decision.args } : decision;
      if (!approvals.resolve(threadId, toolCallId, core, parentToolCallId)) throw new ContractError('that approval is no longer pending', 'not_found');
      return ok;
    },

    'files.list': ({ path }) => workspace.list(path),
    'files.read': ({ path }) => workspace.read(path),
    'files.search': ({ query, limit }) => workspace.search(query, limit),
    'files.exists': ({ paths }) => workspace.exists(paths),

    'memories.list': (params) => memories.list(params),
    'memories.read': ({ path }) => memories.read(path),
    'memories.write': async ({ path, text }) => (await memories.write(path, text), ok),
    'memories.delete': async ({ path }) => (await memories.delete(path), ok),

    'terminal.list': async ({ threadId }) => terminals.list(threadId),
    'terminal.attach': async ({ threadId, terminalId = SHELL_TERMINAL_ID }) => ({ buffer: terminals.attach(threadId, terminalId) }),
    'terminal.detach': async ({ threadId, terminalId = SHELL_TERMINAL_ID }) => (terminals.detach(threadId, terminalId), ok),
    'terminal.input': async ({ threadId, terminalId = SHELL_TERMINAL_ID, data }) => (terminals.input(threadId, terminalId, data), ok),
    'terminal.resize': async ({ threadId, terminalId = SHELL_TERMINAL_ID, cols, rows }) => (terminals.resize(threadId, terminalId, cols, rows), ok),
    'terminal.ack': async ({ threadId, terminalId = SHELL_TERMINAL_ID, bytes }) => (terminals.ack(threadId, terminalId, bytes), ok),
    'terminal.close': async ({ threadId, terminalId = SHELL_TERMINAL_ID }) => (await terminals.closeTerminal(threadId, terminalId), ok),

    'mode.get': async () => modes.get(),
    'mode.set': async ({ mode }) => modes.set(mode),
    'mode.sandboxNoticeShown': async () => modes.sandboxNoticeShown(),
    'mode.offer': async ({ event }) => modes.offer(event),

    'mounts.list': async () => mountsList(),
    'mounts.add': async ({ prefix, spec }) => {
      const mount = savedMount(prefix, spec);
      if (mountTable.list().some((m) => m.from === 'flag' && m.prefix === mount.prefix)) {
        throw new ContractError(`${mount.prefix} is set by --mount for this session; start Deepdesk without that flag to change it`, 'bad_request');
      }
      await settings.putMount(mount);
      return mountsList();
    },
    'mounts.remove': async ({ prefix }) => {
      const saved = settings.raw().mounts.find((m) => m.prefix === prefix || normalisedPrefix(m.prefix) === normalisedPrefix(prefix));
      if (saved === undefined) {
        const flagged = mountTable.list().some((m) => m.from === 'flag' && m.prefix === normalisedPrefix(prefix));
        throw new ContractError(flagged ? `${prefix} is set by --mount for this session and cannot be removed here` : `no saved mount at ${prefix}`, flagged ? 'bad_request' : 'not_found');
      }
      await settings.removeMount(saved.prefix);
      return mountsList();
    },
    'mounts.history': async ({ prefix, limit }) => {
      // A git mount is cloned on first use: the answer does not wait for a long clone (issue 42).
      const history = mountTable.history(normalisedPrefix(prefix), limit);
      const commits = await answerWithin(history);
      if (commits === LATER) {
        void history.catch(() => undefined).then(() => send('mounts.changed', {}));
        return { commits: [], cloning: true };
      }
      if (commits === undefined) throw new ContractError(`${prefix} is not a git mount`, 'not_found');
      return { commits };
    },

    'mcp.list': async () => mcp.list(),
    'mcp.save': ({ name, entry, previousName }) => mcp.save(name, entry, previousName),
    'mcp.remove': ({ name }) => mcp.remove(name),
    'mcp.setEnabled': ({ name, enabled }) => mcp.setEnabled(name, enabled),
    'mcp.signIn': ({ name }) => mcp.signIn(name),
    'mcp.restart': ({ name }) => mcp.restart(name),
    'mcp.resources': async ({ query }) => {
      const words = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      return gatedHub
        .resources()
        .filter((r) => words.every((w) => `${r.server}:${r.uri} ${r.name}`.toLowerCase().includes(w)))
        .slice(0, 50)
        .map((r) => ({ server: r.server, uri: r.uri, name: r.name, ...(r.description !== undefined ? { description: r.description } : {}) }));
    },
    'mcp.prompts': async () =>
      gatedHub.prompts().map((p) => ({ command: `/${p.qualifiedName}`, ...(p.description !== undefined ? { description: p.description } : {}), arguments: p.arguments.map((a) => ({ name: a.name, required: a.required })) })),
    'skills.list': async () => extensions.skillsList(),
    'skills.setEnabled': async ({ name, enabled }) => extensions.setSkillEnabled(name, enabled),
    'hooks.list': async () => extensions.hooksList(),
    'agents.list': async () => extensions.agentsList(settings.raw().subagents),
    'rules.fromFiles': async () => {
      const claude = extensions.claudeRules();
      return { rules: claude.listed, problems: claude.problems };
    },
    'plugins.list': async () => plugins.list(),
    'plugins.addMarketplace': async ({ source }) => plugins.addMarketplace(source),
    'plugins.removeMarketplace': async ({ name }) => plugins.removeMarketplace(name),
    'plugins.preview': async ({ spec }) => plugins.preview(spec),
    'plugins.previewUpdate': async ({ name }) => plugins.previewUpdate(name),
    'plugins.install': async ({ token }) => plugins.install(token),
    'plugins.cancel': async ({ token }) => plugins.cancel(token),
    'plugins.setEnabled': async ({ name, enabled }) => plugins.setEnabled(name, enabled),
    'plugins.remove': async ({ name }) => plugins.remove(name),
    'hooks.setEnabled': async ({ id, enabled }) => extensions.setHookEnabled(id, enabled),
    'trust.get': async () => {
      await folderTrust.refresh();
      return folderTrust.state();
    },
    'trust.grant': ({ digest, keys }) => folderTrust.grant(digest, keys),
    'trust.dismiss': async () => folderTrust.dismiss(),

    'checkpoints.changes': async ({ threadId }) => checkpoints.changes(threadId),
    'checkpoints.restoreToMessage': ({ threadId, turn, resolution }) => checkpoints.restoreToMessage(threadId, turn, resolution),
    'checkpoints.rewindToMessage': ({ threadId, turn, resolution }) => checkpoints.rewindToMessage(threadId, turn, resolution),
    'checkpoints.undoRestore': ({ threadId, checkpointId, resolution }) => checkpoints.undoRestore(threadId, checkpointId, resolution),
    'checkpoints.revertFile': ({ threadId, path, resolution }) => checkpoints.revertFile(threadId, path, resolution),

    ...worktrees.handlers,
  };

  /** The window the model of the settings has (as createChatModel would set it), without building one. */
  const contextWindowNow = (): number => {
    const current = withOverrides(settings.raw());
    if (current.model === '') return 0;
    if (current.contextWindow) return current.contextWindow;
    try {
      const { provider, model } = parseModelSpec(current.model);
      return contextWindowFor(provider, model) ?? DEFAULT_CONTEXT_WINDOW;
    } catch {
      return 0;
    }
  };

  await threads.resumePending();

  return {
    folder: options.folder,
    busy: () => threads.anyRunning(),
    changedElsewhere: (threadId) => threads.changedElsewhere(threadId),
    describeApproval: describe,
    async handle(method, params) {
      const handler = (handlers as Partial<Record<MethodName, (p: unknown) => Promise<unknown>>>)[method];
      if (handler === undefined) throw new ContractError(`${method} is answered by the folder host, not by the app of one folder`, 'bad_request');
      return handler(params);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      worktrees.close();
      await threads.dispose();
      await mcpStarted.catch(() => undefined);
      personConfiguration.close();
      plugins.close();
      await mcp.close();
      extensions.close();
      trustStore.close();
      await terminals.dispose();
      baselineAbort.abort();
      await watching;
      await workspace.dispose();
      checkpoints.collectGarbage();
      checkpointStore.close();
      await audit.close();
      db.close();
      stopSecretProblems?.();
      settings.close();
      modes.close();
      await mountTable.close();
      await memoriesStore.store.close();
      await remote?.close();
    },
  };
}

/** A new worktree's folder starts in the mode chosen for the folder it was made from (best effort). */
function carryModeTo(dataDir: string, from: ModeService, folder: string, sandbox: SandboxAvailability): void {
  const state = from.get();
  if (!state.chosen && !state.offerShown) return;
  const modes = new ModeService(dataDir, folder, sandbox);
  try {
    if (state.chosen) modes.set(state.mode);
    modes.offer(state.offerDismissed ? 'dismissed' : 'shown');
  } catch {
    // The worktree's folder asks as any new folder does.
  } finally {
    modes.close();
  }
}

/** A mount the window asks to save, checked as --mount checks one (folders absolute or ~/…). */
function savedMount(prefix: string, spec: string): { prefix: string; spec: string } {
  try {
    const parsed = parseSavedMount({ prefix, spec });
    const problem = localMountProblem(parsed);
    if (problem !== null) throw new ContractError(`${parsed.prefix}: ${problem}`, 'bad_request');
    return { prefix: parsed.prefix, spec: spec.trim() };
  } catch (err) {
    if (err instanceof MountSpecError) throw new ContractError(err.message, 'bad_request');
    throw err;
  }
}

function normalisedPrefix(prefix: string): string {
  try {
    return parseMountPrefix(prefix);
  } catch {
    return prefix;
  }
}

/** Where this folder's commands run: the remote machine of an SSH folder (else this one), and whether a sandbox contains them. */
type CommandsRun = { host?: string; sandboxed: boolean };

/** The diff preview, the suggested "always allow" rule and where a command runs, shown in the approval. */
async function describeApproval(request: ApprovalRequest, backend: Backend, commands: CommandsRun, rulesBefore: () => readonly PermissionRule[]): Promise<ApprovalExtras> {
  // "Always allow" is offered only when the rule it saves would allow the call: not past a deny or ask rule of a settings file that comes first.
  const suggested = suggestAllowRule({ tool: request.toolName, args: request.args });
  const effective = suggested !== undefined && evaluatePermission({ tool: request.toolName, args: request.args }, [...rulesBefore(), suggested]).decision === 'allow';
  const extras: ApprovalExtras = { suggestedRule: effective ? suggested : undefined };
  // A command asking to run outside the sandbox runs outside it, wherever it runs.
  if (request.toolName === 'execute') extras.runsOn = { ...commands, sandboxed: commands.sandboxed && request.outsideSandbox === undefined && !wantsOutsideSandbox(request.args) };
  const path = typeof request.args.file_path === 'string' ? request.args.file_path : undefined;
  if (path === undefined || (request.toolName !== 'write_file' && request.toolName !== 'edit_file')) return extras;
  const raw = await backend.readRaw(path);
  const before = raw.data ? Buffer.from(raw.data).toString('utf8') : '';
  if (request.toolName === 'write_file') {
    return { ...extras, preview: { path, before, after: String(request.args.content ?? '') } };
  }
  const edited = applyEdit(before, String(request.args.old_string ?? ''), String(request.args.new_string ?? ''), request.args.replace_all === true);
  return { ...extras, preview: { path, before, after: edited.ok ? edited.content : before } };
}

const PROVIDER_LABELS: Record<ProviderName, string> = { anthropic: 'Anthropic', openai: 'OpenAI', google: 'Google', 'openai-compatible': 'the OpenAI-compatible server', ollama: 'Ollama' };

function providerLabel(provider: ProviderName): string {
  return PROVIDER_LABELS[provider];
}

/**
 * Bad model settings in the window's words: core's messages name the command line's
 * variables and flags (right for `deepdesk run`), the window says where it takes them.
 */
export function modelProblemForWindow(err: ModelConfigError, where: 'Settings' | 'above'): string {
  const provider = err.provider ?? 'openai-compatible';
  if (err.missing === 'api-key') return where === 'Settings' ? `No API key for ${providerLabel(provider)}: add one in Settings.` : `No API key for ${providerLabel(provider)}: enter one above.`;
  if (err.missing === 'base-url') {
    const example = 'e.g. http://127.0.0.1:1234/v1 for LM Studio or http://127.0.0.1:8080/v1 for llama.cpp';
    return where === 'Settings' ? `The OpenAI-compatible provider needs the server’s base URL: enter it in Settings (${example}).` : `Enter the server’s base URL above (${example}).`;
  }
  return where === 'Settings' ? `${err.message}. Check Settings.` : err.message;
}

/** A test answers at once when asking again cannot help (nothing listens, no such host, a refused key). */
const TEST_RETRY: RetryPolicy = { retryIf: (error) => modelProblem(error)?.lasting !== true };
const TEST_TIMEOUT_MS = 30_000;

async function testConnection(spec: string, make: (retry: RetryPolicy) => Promise<ChatModel>): Promise<{ ok: boolean; message: string; detail?: string }> {
  const timeout = AbortSignal.timeout(TEST_TIMEOUT_MS);
  try {
    const model = await make(TEST_RETRY);
    const started = Date.now();
    const response = await collectResponse(
      model.stream({ system: 'You are a connection test.', messages: [{ role: 'user', content: 'Reply with the single word OK.' }], tools: [], maxOutputTokens: 16, signal: timeout }),
    );
    return { ok: true, message: `Connected to ${model.id} in ${Date.now() - started} ms: "${response.text.trim().slice(0, 60)}"` };
  } catch (err) {
    if (err instanceof ModelConfigError) return { ok: false, message: modelProblemForWindow(err, 'above') };
    const detail = err instanceof Error ? err.message : String(err);
    if (err instanceof AbortedError && timeout.aborted) {
      return { ok: false, message: `The model server did not answer within ${TEST_TIMEOUT_MS / 1000} s. Is it running and reachable? Check the address above.`, detail };
    }
    const problem = modelProblem(err, spec);
    return problem ? { ok: false, message: problemForWindow(problem, 'above'), detail } : { ok: false, message: detail };
  }
}
