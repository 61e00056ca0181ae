// The app behind the window: builds the services for one project folder and answers the
// contract's requests. Transports (Electron IPC, the web host) only carry messages to it.

import type { ApprovalRequest } from '../../core/agent/types';
import { createDefaultMounts } from '../../core/backends/mounts/mounts';
import { errorEventForWindow } from '../base/model-problem-words';
import type { WindowApi } from '../base/window-api';
import { ApprovalService, type ApprovalExtras } from '../approvals/approval-service';
import { CheckpointsService, type UserMessageRef } from '../checkpoints/checkpoints-service';
import { ContractError, type MethodName, type SandboxPlaceDto } from '../contract';
import { MemoriesService } from '../memories/memories-service';
import type { ThreadService } from '../session/thread-service';
import { TerminalService } from '../terminal/terminal-service';
import { shownShellBackend, WindowRemoteShellBackend, WindowShellBackend } from '../terminal/window-shell-backend';
import { ThreadStore } from '../threads/thread-store';
import { worktreeMethods } from '../worktrees/worktree-methods';
import { windowAgents } from './agent-handlers';
import { appHandlers } from './app-handlers';
import { approvalDescriber, sandboxPlaceOf } from './approval-extras';
import { extensionHandlers } from './extension-handlers';
import { watchFolder } from './folder-watchers';
import type { Handlers, WindowServices } from './handlers';
import { mountHandlers } from './mount-handlers';
import { sandboxHandlers } from './sandbox-handlers';
import { settingsHandlers } from './settings-handlers';
import { AGENT_CONFIG_PATHS, knownAgent } from '../agents/vendors/catalog';
import { threadHandlers } from './thread-handlers';
import { openWindowSession, type AppOptions } from './window-session';
import { workspaceHandlers } from './workspace-handlers';

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
  const opened = await openWindowSession(options);
  const { env, db, session, send, notice } = opened;
  const { settings, place, mounts: mountTable, memories: memoriesStore } = session;
  const { remote } = options;
  const modes = session.modes!;
  const shared = createDefaultMounts({
    folder: options.folder,
    db,
    execute: false,
    memories: memoriesStore.book.person,
    extraMounts: () => mountTable.routes(),
    ...(remote ? { folderBackend: remote.shell } : {}),
  });
  modes.onChange((state) => send('mode.changed', state));

  // Terminals exist only for this folder's threads (made-up ids start nothing).
  // A remote folder's shell tab is the person's login shell there, over the folder's connection.
  const terminals = new TerminalService({
    rootDir: remote ? options.dataDir : options.folder,
    isThread: (threadId) => threads.store.get(threadId)?.folder === options.folder,
    shell: { baseEnv: env, ...(remote ? { command: remote.loginShell } : {}) },
  });
  // The window acknowledges what it rendered (terminal.ack), so a flood of output cannot outrun it.
  terminals.onData((threadId, terminalId, data, end) => send('terminal.data', { threadId, terminalId, data, end }));
  terminals.onChange((threadId) => send('terminal.changed', { threadId }));

  // The sandbox started again, stopped, found gone or removed: the window shows where it stands and the ways forward.
  const stopFollowingSandbox = place.provider?.onState((state) => send('sandboxes.changed', state));
  const sandboxPlace = sandboxPlaceOf(place);
  const describe = approvalDescriber(place, shared.backend, () => session.extensions.extensions.claudeRules().first);
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
    threads: new ThreadStore(db),
    agentConfig: AGENT_CONFIG_PATHS,
    agentLabel: (name) => knownAgent(name)?.label ?? name,
  });
  checkpoints.collectGarbage();

  const threads: ThreadService = session.threads({
    approvals,
    // A page paints at most once a frame: a token a message was a task each for it.
    coalesceTextMs: 16,
    // A sandbox worktree's commands run in the provider's sandbox, not in this window's terminals (SPEC §18).
    folderBackendFor: (threadId) =>
      place.provider !== undefined
        ? shownShellBackend(place.shell, { threadId, terminals })
        : remote
        ? new WindowRemoteShellBackend({ connection: remote.shell.connection, threadId, terminals, ...(place.sandbox ? { sandbox: place.sandbox } : {}) })
        : new WindowShellBackend({ rootDir: options.folder, threadId, terminals, ...(place.sandbox ? { sandbox: place.sandbox } : {}) }),
    emit: (e) => {
      // Core's messages name the command line's flags; the window says where it takes them.
      if (e.kind === 'thread-event') send('thread.event', { threadId: e.threadId, seq: e.seq, event: errorEventForWindow(e.event) });
      else if (e.kind === 'threads-changed') send('threads.changed', {});
      else send('memories.changed', {});
    },
  });
  const watchers = watchFolder({ folder: options.folder, remote, session, dataDir: options.dataDir, env, mcpConfigFiles: options.mcpConfigFiles ?? [], backend: shared.folder, checkpoints, send, notice });
  const { folderTrust, plugins } = watchers;
  const memories = new MemoriesService(memoriesStore.book, () => send('memories.changed', {}), {
    ...(memoriesStore.shared ? { sharedStore: memoriesStore.label } : {}),
    usedOf: (threadId) => session.audit.ledger.memoriesUsed(threadId),
  });
  // Worktrees of this folder, or this folder as one (SPEC §16): a new one has the folder's mode and offer until one is chosen there (mode-service.ts).
  const where = { folder: options.folder, remote: remote !== undefined, dataDir: options.dataDir, db, env, changed: () => send('worktrees.changed', {}), noteCommits: () => session.noteCommits() };
  const worktrees = worktreeMethods(where);
  // Threads whose agent is another one over ACP (SPEC §22) and Settings › Agents.
  const agents = windowAgents({ dataDir: options.dataDir, env, session, threads: () => threads, say: (message) => notice({ message, kind: 'info' }), progress: (name, line, done) => send('externalAgents.progress', { name, line, done }) });
  const services: WindowServices = {
    folder: options.folder, version: options.version ?? '0.0.0', transport: options.transport, env, session, send, overrides: opened.overrides, notices: opened.notices,
    threadTitles: new ThreadStore(db), workspace: watchers.workspace, files: shared.folder,
    agents, threads, approvals, terminals, memories, modes, checkpoints, plugins, folderTrust,
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
    ...sandboxHandlers({ ...where, savedKeys: () => settings.sandboxKeys(), canMakeWorktree: () => worktrees.handlers['worktrees.canCreate']({ count: false }), status: () => place.provider?.state() }),
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
    onEvent: opened.onEvent,
    async close() {
      worktrees.close();
      await threads.dispose();
      // Every agent's process tree ends with the folder (cancel, then the tree).
      await agents.close();
      await terminals.dispose();
      stopFollowingSandbox?.();
      await watchers.close();
      await opened.close();
    },
  };
}
