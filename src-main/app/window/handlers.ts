// The window's requests of one folder's app, answered by contract area (one module each):
// what every area's handlers are given (the folder's session and the window's services on it),
// and the type each area's answers must have.

import type { z } from 'zod';
import type { AgentProtocolMethodName, AgentViewMethodName, EventName, EventPayload, methods, MethodName, NoticeDto, Result, UpdateMethodName, WindowFoldersMethodName } from '../contract';
import type { ApprovalService } from '../approvals/approval-service';
import type { CheckpointsService } from '../checkpoints/checkpoints-service';
import type { MemoriesService } from '../memories/memories-service';
import type { ModeService } from '../modes/mode-service';
import type { PluginsService } from '../plugins/plugins-service';
import type { FolderSession } from '../session/folder-session';
import type { ThreadService } from '../session/thread-service';
import type { TerminalService } from '../terminal/terminal-service';
import type { ThreadStore } from '../threads/thread-store';
import type { FolderTrustService } from '../trust/folder-trust-service';
import type { WorkspaceService } from '../workspace/workspace-service';
import type { Backend } from '../../core/backends/protocol';
import type { WindowOverrides } from './window-overrides';

/** The methods the window's folders answer themselves: opening another folder replaces this app; updates are the whole app's. */
type WindowFoldersMethod = WindowFoldersMethodName | UpdateMethodName | AgentViewMethodName | AgentProtocolMethodName;
export type AppMethodName = Exclude<MethodName, WindowFoldersMethod>;
export type Handlers = { [M in AppMethodName]: (params: z.output<(typeof methods)[M]['params']>) => Promise<Result<M>> };
/** The handlers of the methods named `PREFIX…`. */
export type HandlersFor<P extends string> = Pick<Handlers, Extract<AppMethodName, `${P}${string}`>>;

export const ok = { ok: true as const };

/** Threads whose agent is another one over ACP (SPEC §22) and Settings › Agents (agent-handlers.ts). */
export interface WindowAgents {
  handlers: HandlersFor<'externalAgents.'>;
  /** A thread made with another agent (*New thread with…*). */
  created(threadId: string, name: string): Promise<void>;
  /** Before a message is sent: a thread whose agent is another one has its runner. */
  ready(threadId: string): Promise<void>;
  /** While the person types: a thread whose agent is another one has it started ahead of the turn (never fails). */
  prepare(threadId: string): Promise<void>;
  /** A deleted thread's agent ends. */
  forget(threadId: string): Promise<void>;
  close(): Promise<void>;
}

/** What the window's requests of one folder are answered with. */
export interface WindowServices {
  /** Threads whose agent is another one over ACP (SPEC §22). */
  agents: WindowAgents;
  folder: string;
  version: string;
  transport: 'electron' | 'web';
  env: NodeJS.ProcessEnv;
  /** `deepdesk serve`'s flags that override Settings for this session, and the window's view of them. */
  overrides: WindowOverrides;
  session: FolderSession;
  notices(): NoticeDto[];
  send<E extends EventName>(event: E, payload: EventPayload<E>): void;
  threads: ThreadService;
  threadTitles: ThreadStore;
  approvals: ApprovalService;
  terminals: TerminalService;
  workspace: WorkspaceService;
  memories: MemoriesService;
  modes: ModeService;
  checkpoints: CheckpointsService;
  plugins: PluginsService;
  folderTrust: FolderTrustService;
  /** The folder's files as mentions read them. */
  files: Backend;
}
