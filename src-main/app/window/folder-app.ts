// The app behind the window: builds the services for one project folder and answers the
// contract's requests. Transports (Electron IPC, the web host) only carry messages to it.



import type { OverSettingsFlags } from '../base/session-flags';
import { ThreadStore } from '../threads/thread-store';
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { wantsOutsideSandbox } from '../../core/agent/permissions/modes';
import { evaluatePermission, suggestAllowRule, type PermissionRule } from '../../core/agent/permissions/rules';
import type { ApprovalRequest } from '../../core/agent/types';
import { createDefaultMounts } from '../../core/backends/mounts/mounts';
import { type MountSpec } from '../../core/backends/mounts/mount-spec';
import type { Backend } from '../../core/backends/protocol';
import { openDatabase } from '../../core/backends/store/store';
import { parseModelSpec } from '../../core/models/model-spec';




import { DEFAULT_CONTEXT_WINDOW, contextWindowFor } from '../../core/models/model-info';
import { errorEventForWindow } from '../base/model-problem-words';
import { openFolderSession } from '../session/folder-session';


import { ApprovalService, type ApprovalExtras } from '../approvals/approval-service';
import { approvalPreview } from '../approvals/approval-preview';
import { CheckpointsService, type UserMessageRef } from '../checkpoints/checkpoints-service';
import { giveBackMemorySoon } from './give-back-memory';
import {
  ContractError,
  type EventFrame,
  type EventName,
  type EventPayload,
  type MethodName,
  type MountsListDto,
  type NoticeDto,
  type OverriddenFields,
  type Params,
  type Settings,
} from '../contract';

import { databasePath } from '../base/data-dir';
import type { WindowApi } from '../base/window-api';
import { MEMORY_AUTHOR_USER, MemoriesService } from '../memories/memories-service';
import type { SecretStore } from '../base/secret-store';
import type { McpTokenStore } from '../../core/extensions/mcp/oauth';
import type { JsonFileProblem } from '../../core/config/json-file-store';
import { changesFolderConfiguration, personConfigPaths } from '../../core/config/registry';
import { watchPersonConfiguration } from '../../core/config/watch-person-configuration';
import { TerminalService } from '../terminal/terminal-service';
import { shownShellBackend, WindowRemoteShellBackend, WindowShellBackend } from '../terminal/window-shell-backend';
import { remoteFolderConfiguration, remoteFolderLimitsNotice, type RemoteAppFolder } from '../places/remote-folder';
import type { ThreadService } from '../session/thread-service';
import { FolderChangeFeed } from '../workspace/folder-change-feed';
import { WorkspaceService } from '../workspace/workspace-service';


import { PluginsService } from '../plugins/plugins-service';
import { FolderTrustService } from '../trust/folder-trust-service';




import { type CommandSources } from '../commands/slash-commands';
import { openWithSystem } from '../base/open-external';
import { worktreeMethods } from '../worktrees/worktree-methods';
import type { Handlers, WindowServices } from './handlers';
import { appHandlers } from './app-handlers';
import { settingsHandlers } from './settings-handlers';
import { threadHandlers } from './thread-handlers';
import { windowAgents } from './agent-handlers';
import { workspaceHandlers } from './workspace-handlers';
import { mountHandlers } from './mount-handlers';
import { extensionHandlers } from './extension-handlers';
import { sandboxHandlers } from './sandbox-handlers';
import type { SandboxPlaceDto } from '../contract';


export interface AppOptions {
  folder: string;
  dataDir: string;
  secrets: SecretStore;
  /** Where MCP sign-in tokens are kept: the data folder's one store (data-folder-secrets.ts), shared by every client. Default `secrets`. */
  mcpTokens?: McpTokenStore;
  transport: 'electron' | 'web';
  version?: string;
  /** Session overrides from the command line (`deepdesk serve --model …`); not saved. */
  overrides?: OverSettingsFlags;
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

export interface App extends WindowApi {
  readonly folder: string;
  /** The provider's sandbox its threads run in (SPEC §18), if it is a sandbox thread folder. */
  readonly sandbox?: SandboxPlaceDto;
  /** Whether a thread of the folder is working (the agent host keeps the app open for it). */
  busy(): boolean;
  /** A thread of the folder was changed by a run elsewhere (see ThreadService.changedElsewhere). */
  changedElsewhere(threadId: string): void;
  /** What the window shows with an approval of this folder (a `deepdesk run`'s too): the diff preview, the suggested "always allow" rule, where a command runs. */
  describeApproval(request: ApprovalRequest): Promise<ApprovalExtras>;
  close(): Promise<void>;
}


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
  const overrides = options.overrides ?? {};
  const { remote } = options;
  // The one composition (session/folder-session.ts): the place, Settings, the extensions
  // through the trust gate, mounts, memories, checkpoints, the audit and the models. The
  // window adds its terminals, its Settings regions and its watchers on top.
  const session = await openFolderSession({
    place: remote ? { kind: 'opened-remote', remote, url: options.folder } : { kind: 'local', path: options.folder },
    flags: {
      ...(overrides.model ? { model: overrides.model } : {}),
      ...(overrides.baseUrl ? { baseUrl: overrides.baseUrl } : {}),
      ...(overrides.apiKey ? { apiKey: overrides.apiKey } : {}),
      ...(overrides.contextWindow ? { contextWindow: overrides.contextWindow } : {}),
      ...(overrides.memoriesStore ? { memoriesStore: overrides.memoriesStore } : {}),
      mounts: options.mountFlags ?? [],
      mcpConfig: (options.mcpConfigFiles ?? []).map((f) => resolve(f)),
    },
    policy: { mode: 'saved', wording: 'window' },
    context: { dataDir: options.dataDir, db, env, version: options.version ?? '0.0.0', secrets: options.secrets, ...(options.mcpTokens ? { mcpTokens: options.mcpTokens } : {}), openBrowser: options.openExternal ?? openWithSystem, notice },
    onChange: { extensions: () => send('extensions.changed', {}), mcp: () => send('mcp.changed', {}) },
  }).catch((err: unknown) => {
    db.close();
    stopSecretProblems?.();
    throw err;
  });
  const { settings, place, mounts: mountTable, memories: memoriesStore } = session;
  const { sandbox } = place;
  const modes = session.modes!;
  const { extensions, mcp, hub: gatedHub, trustStore } = { ...session.extensions, extensions: session.extensions.extensions };
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

  // Told only when the remote folder has configuration of its own; looked for in the background.
  if (remote) {
    void remoteFolderConfiguration(remote.shell).then((found) => {
      if (found.length > 0) notice({ id: `remote-config:${options.folder}:${found.join(',')}`, message: remoteFolderLimitsNotice(remote.label, found), kind: 'info', folder: options.folder });
    });
  }
  const mountRoutes = { routes: () => mountTable.routes(), git: () => mountTable.gitMounts() };
  const shared = createDefaultMounts({
    folder: options.folder,
    db,
    execute: false,
    memories: memoriesStore.store,
    extraMounts: mountRoutes.routes,
    ...(remote ? { folderBackend: remote.shell } : {}),
  });
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

  // The sandbox started again, stopped, found gone or removed: the window shows where it stands and the ways forward.
  const stopFollowingSandbox = place.provider?.onState((state) => send('sandboxes.changed', state));
  const sandboxPlace: SandboxPlaceDto | undefined = place.provider ? { provider: place.provider.name, label: place.provider.label, sandboxId: place.provider.sandboxId } : undefined;
  const commandsRun: CommandsRun = {
    ...(remote ? { host: remote.shell.connection.label } : {}),
    ...(sandboxPlace ? { provider: sandboxPlace } : {}),
    sandboxed: sandbox !== undefined || sandboxPlace !== undefined,
  };
  const describe = (request: ApprovalRequest): Promise<ApprovalExtras> => describeApproval(request, shared.backend, commandsRun, () => extensions.claudeRules().first);
  const approvals = new ApprovalService(db, describe);
  approvals.onChange((threadId) => send('approvals.changed', { threadId }));

  // Checkpoints are kept in the local data folder; a remote folder is read and restored over its connection.
  const checkpoints = new CheckpointsService({
    store: session.checkpointStore,
    recorder: session.recorder,
    folder: place.checkpointFolder,
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
  const realFolder = session.configFolder;
  // The trust question (SPEC §9) over the session's trust store.
  // It offers the plugins the folder's settings ask for (SPEC §15), installed through `plugins`.
  const folderTrust = new FolderTrustService({ folder: realFolder, env, store: trustStore, onState: (state) => send('trust.changed', state), pluginRequests: () => plugins.folderRequests(realFolder) });
  // The person's own configuration (every kind's places in the data folder and home, and
  // `--mcp-config` files): one watcher; the folder's own comes through the folder's watcher.
  const personConfiguration = watchPersonConfiguration([...personConfigPaths({ dataDir: options.dataDir, home: homedir() }), ...(options.mcpConfigFiles ?? []).map((f) => resolve(f))], () => {
    mcp.scheduleReload();
    extensions.scheduleReload();
    // A plugin installed elsewhere (`deepdesk plugin install`) is no longer offered.
    void folderTrust.refresh();
  });
  const plugins = new PluginsService(options.dataDir, env, () => {
    send('plugins.changed', {});
    mcp.scheduleReload();
    extensions.scheduleReload();
    void folderTrust.refresh();
  });
  folderTrust.onGranted(() => mcp.reload());
  folderTrust.onGranted(() => extensions.reload());
  // Trust given or revoked elsewhere (`deepdesk trust --revoke`, another window): the question
  // follows at once (the servers, hooks and skills follow in the session).
  trustStore.onChange(() => void folderTrust.refresh());

  const commandSources: CommandSources = { mcp: gatedHub, skills: () => extensions.skills(), commands: () => extensions.commands() };
  const threadTitles = new ThreadStore(db);

  const threads: ThreadService = session.threads({
    approvals,
    // A page paints at most once a frame: a token a message was a task each for it.
    coalesceTextMs: 16,
    // A sandbox worktree's commands run in the provider's sandbox, not in this window's terminals (SPEC §18).
    folderBackendFor: (threadId) =>
      place.provider !== undefined
        ? shownShellBackend(place.shell, { threadId, terminals })
        : remote
        ? new WindowRemoteShellBackend({ connection: remote.shell.connection, threadId, terminals, ...(sandbox ? { sandbox } : {}) })
        : new WindowShellBackend({ rootDir: options.folder, threadId, terminals, ...(sandbox ? { sandbox } : {}) }),
    emit: (e) => {
      // Core's messages name the command line's flags; the window says where it takes them.
      if (e.kind === 'thread-event') send('thread.event', { threadId: e.threadId, seq: e.seq, event: errorEventForWindow(e.event) });
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
  const takesBaseline = !session.checkpointStore.hasBaseline(checkpoints.recorder.root);
  const watching = workspace.start().then(() =>
    checkpoints.recorder.prepareBaseline(baselineAbort.signal).then(
      // The snapshot's garbage (a big folder's is tens of MB) is given back once it is taken.
      () => {
        if (takesBaseline) giveBackMemorySoon();
      },
      () => {
        // Stopped at close, or failed: the first step takes it instead.
      },
    ),
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

  // Worktrees of this folder, or this folder as one (SPEC §16): a new one has the folder's mode and offer until one is chosen there (mode-service.ts).
  const worktrees = worktreeMethods({
    folder: options.folder,
    remote: remote !== undefined,
    dataDir: options.dataDir,
    db,
    env,
    changed: () => send('worktrees.changed', {}),
  });

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
  // Threads whose agent is another one over ACP (SPEC §22) and Settings › Agents.
  const agents = windowAgents({ dataDir: options.dataDir, env, session, threads: () => threads, say: (message) => notice({ message, kind: 'info' }) });
  const services: WindowServices = {
    agents,
    folder: options.folder,
    version: options.version ?? '0.0.0',
    transport: options.transport,
    env,
    overrides,
    session,
    notices: () => [...notices],
    send,
    forWindow,
    withoutFlagValues,
    contextWindowNow,
    threads,
    threadTitles,
    approvals,
    terminals,
    workspace,
    memories,
    modes,
    checkpoints,
    plugins,
    folderTrust,
    commandSources,
    files: shared.folder,
    mountsList,
  };
  const handlers: Handlers = {
    ...appHandlers(services),
    ...settingsHandlers(services),
    ...threadHandlers(services),
    ...agents.handlers,
    ...workspaceHandlers(services),
    ...mountHandlers(services),
    ...extensionHandlers(services),
    ...worktrees.handlers,
    ...sandboxHandlers({
      folder: options.folder,
      remote: remote !== undefined,
      dataDir: options.dataDir,
      db,
      env,
      savedKeys: () => settings.sandboxKeys(),
      canMakeWorktree: () => worktrees.handlers['worktrees.canCreate']({ count: false }),
      changed: () => send('worktrees.changed', {}),
      status: () => place.provider?.state(),
    }),
  };

  await threads.resumePending();

  return {
    folder: options.folder,
    ...(sandboxPlace ? { sandbox: sandboxPlace } : {}),
    busy: () => threads.anyRunning(),
    changedElsewhere: (threadId) => threads.changedElsewhere(threadId),
    describeApproval: describe,
    async handle(method, params) {
      const handler = (handlers as Partial<Record<MethodName, (p: unknown) => Promise<unknown>>>)[method];
      if (handler === undefined) throw new ContractError(`${method} is answered by the window's folders, not by the app of one folder`, 'bad_request');
      return handler(params);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      worktrees.close();
      await threads.dispose();
      // Every agent's process tree ends with the folder (cancel, then the tree).
      await agents.close();
      await mcpStarted.catch(() => undefined);
      personConfiguration.close();
      plugins.close();
      await terminals.dispose();
      baselineAbort.abort();
      stopFollowingSandbox?.();
      await watching;
      await workspace.dispose();
      await session.close();
      db.close();
      stopSecretProblems?.();
    },
  };
}

/** Where this folder's commands run: the remote machine of an SSH folder (else this one), and whether a sandbox contains them. */
type CommandsRun = { host?: string; sandboxed: boolean; provider?: SandboxPlaceDto };

/** The diff preview, the suggested "always allow" rule and where a command runs, shown in the approval. */
async function describeApproval(request: ApprovalRequest, backend: Backend, commands: CommandsRun, rulesBefore: () => readonly PermissionRule[]): Promise<ApprovalExtras> {
  // "Always allow" is offered only when the rule it saves would allow the call: not past a deny or ask rule of a settings file that comes first.
  const suggested = suggestAllowRule({ tool: request.toolName, args: request.args });
  const effective = suggested !== undefined && evaluatePermission({ tool: request.toolName, args: request.args }, [...rulesBefore(), suggested]).decision === 'allow';
  const extras: ApprovalExtras = { suggestedRule: effective ? suggested : undefined };
  // A command asking to run outside the sandbox runs outside it, wherever it runs.
  // A provider's sandbox is where every command runs: there is no outside to ask for.
  if (request.toolName === 'execute')
    extras.runsOn = { ...commands, sandboxed: commands.sandboxed && (commands.provider !== undefined || (request.outsideSandbox === undefined && !wantsOutsideSandbox(request.args))) };
  const preview = await approvalPreview(request, backend);
  return preview !== undefined ? { ...extras, preview } : extras;
}
