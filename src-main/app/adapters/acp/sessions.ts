// ACP sessions are Deepdesk threads (SPEC §14): session/new starts a thread in the editor's
// folder, session/load opens a stored one (replaying its history as updates), session/list
// lists them from SQLite, session/prompt runs the agent on the thread, session/cancel stops
// it (a running command's process tree included: the run's AbortSignal reaches execute).
// Modes are the folder's saved approval mode (§7), shared with the window and `run`.
// A session's thread runs through the one run assembly (app/session/thread-service.ts): this
// file only translates its events into session updates and its approvals into the editor's
// permission requests, as host/web translates them into frames.

import { draftLines, goalPrompt } from '../../session/goal-start';
import { randomUUID } from 'node:crypto';
import type {
  ContentBlock,
  ListSessionsResponse,
  McpServer,
  PermissionOption,
  RequestPermissionResponse,
  SessionModeState,
  SessionUpdate,
  StopReason,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { RunResult } from '../../../core/agent/loop';
import { APPROVAL_MODES, isApprovalMode, type ApprovalMode } from '../../../core/agent/permissions/modes';
import type { PermissionRule } from '../../../core/agent/permissions/rules';
import { newThreadState, type AgentEvent } from '../../../core/agent/types';
import { LocalShellBackend } from '../../../core/backends/filesystem/local-shell';
import type { ChatModel } from '../../../core/models/types';
import { listCommands, type CommandSources } from '../../commands/slash-commands';
import { expandInput, isInputError, type InputOutcome } from '../../commands/person-input';
import { ThreadStore } from '../../threads/thread-store';
import type { ThreadService } from '../../session/thread-service';
import type { FolderSession, SessionContext, SessionFlags } from '../../session/folder-session';
import { openFolderSession } from '../../session/folder-session';
import { ApprovalService } from '../../approvals/approval-service';
import { ContractError, runsInText } from '../../contract';
import { sandboxFoldersFrom } from '../../sandboxes/sandbox-request';
import { EditorFsBackend, type EditorFiles } from './editor-fs';
import { editorMcpServers } from './editor-mcp';
import { editorTerminalRunner, type CommandRunner, type CreateEditorTerminal } from './editor-terminal';
import { permissionBridge } from './permission-bridge';
import { promptContent, typedText } from './prompt-content';
import { sameFolder, sessionFolder } from './session-folder';
import { replayUpdates, updatesForEvent, type OpenCall } from './session-updates';
import type { EditorPaths } from '../../../core/backends/mounts/real-paths';

/** The editor, as the sessions call it. */
export interface EditorClient {
  update(sessionId: string, update: SessionUpdate): Promise<void>;
  requestPermission(params: { sessionId: string; toolCall: ToolCallUpdate; options: PermissionOption[] }, signal: AbortSignal): Promise<RequestPermissionResponse>;
  /** The editor's files for a session, when it offers them (fs capability). */
  files(sessionId: string): EditorFiles;
  /** Opens a terminal in the editor for a session's command, when it offers them (terminal capability). */
  terminal(sessionId: string): CreateEditorTerminal | undefined;
}

export interface AcpSessionsOptions {
  db: AcpSessionContext['db'];
  /** What every session's folder opens with: the data folder, keys, environment. */
  context: AcpSessionContext;
  /** The command's flags (model, mounts, MCP config files): each session's folder opens with them. */
  flags: SessionFlags;
  /** `--trust`, for this session's folder (it trusts one folder only). */
  trusts(folder: string): boolean;
  /** The default folder (`--folder`): session/list without a cwd lists its threads. */
  defaultFolder: string;
  /** `--sandbox`: the folder a new session in the editor's folder works in, its sandbox worktree (SPEC §18). */
  sandboxFolder?: (folder: string) => Promise<string>;
  log(line: string): void;
}

type AcpSessionContext = Omit<SessionContext, 'notice'>;

interface Session {
  id: string;
  folder: string;
  /** The folder's session (the one composition): extensions, mounts, models, the saved mode. */
  resources: FolderSession;
  /** The session's thread and its runs (the one run assembly). */
  threads: ThreadService;
  /** Where the running prompt's events go (updates for the editor). */
  onEvent?: (event: AgentEvent) => void;
  /** The prompt being worked on. */
  running?: Promise<unknown>;
}

const MODE_NAMES: Record<ApprovalMode, { name: string; description: string }> = {
  ask: { name: 'Ask', description: 'Reads run; file changes and commands ask first' },
  edit: { name: 'Edit', description: 'Reads and file changes in the folder run; commands ask' },
  auto: { name: 'Auto', description: 'File changes run, and commands run in the sandbox (needs one)' },
  plan: { name: 'Plan', description: 'Read-only: changes and commands are refused' },
};

export class AcpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly threads: ThreadStore;

  constructor(
    private readonly options: AcpSessionsOptions,
    private readonly editor: EditorClient,
  ) {
    this.threads = new ThreadStore(options.db);
  }

  async newSession(cwd: string, mcpServers: readonly McpServer[]): Promise<{ sessionId: string; modes: SessionModeState }> {
    const folder = await this.workFolder(sessionFolder(cwd));
    const session = await this.open(randomUUID(), folder, mcpServers);
    // After the answer: the editor knows the session by then.
    setImmediate(() => void this.announceCommands(session).catch((err: unknown) => this.options.log(`could not list the commands: ${String(err)}`)));
    return { sessionId: session.id, modes: this.modeState(session) };
  }

  /** session/load replays the history; session/resume (`replay: false`) only opens the thread. */
  async loadSession(sessionId: string, cwd: string, mcpServers: readonly McpServer[], replay = true): Promise<{ modes: SessionModeState }> {
    const cwdFolder = sessionFolder(cwd);
    const thread = this.threads.get(sessionId);
    if (thread === undefined) throw RequestError.resourceNotFound(sessionId);
    // A session is its folder's (or one of its sandbox worktrees', which it opens, its sandbox
    // reattached): an editor in another folder never opens it (nor learns where it is).
    const inSandbox = !sameFolder(thread.folder, cwdFolder) && sandboxFoldersFrom(this.options.db, cwdFolder).has(thread.folder);
    if (!inSandbox && !sameFolder(thread.folder, cwdFolder)) throw RequestError.invalidParams(undefined, `${sessionId} is not a session of this folder (${cwdFolder})`);
    const folder = inSandbox ? thread.folder : cwdFolder;
    const existing = this.sessions.get(sessionId);
    if (existing !== undefined) {
      if (existing.running !== undefined) throw RequestError.invalidRequest(undefined, 'this session is working on a prompt; cancel it first');
      await this.close(existing);
    }
    const state = this.threads.load(sessionId);
    const session = await this.open(sessionId, folder, mcpServers);
    // The history as the editor shows it, before the answer (as ACP requires).
    if (replay) for (const update of replayUpdates(this.editorPaths(session), state.messages, state.todos)) await this.editor.update(sessionId, update);
    await this.announceCommands(session);
    return { modes: this.modeState(session) };
  }

  list(cwd: string | null | undefined): ListSessionsResponse {
    const folder = cwd ? sessionFolder(cwd) : this.options.defaultFolder;
    const sandboxes = sandboxFoldersFrom(this.options.db, folder);
    const sessions = this.threads
      .list()
      // A session never prompted is nothing to come back to.
      .filter((t) => (t.folder === folder || sandboxes.has(t.folder)) && t.messageCount > 0)
      .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
      .map((t) => ({ sessionId: t.id, cwd: t.folder, title: t.title === '' ? null : t.title, updatedAt: t.updatedAt }));
    return { sessions };
  }

  setMode(sessionId: string, modeId: string): void {
    const session = this.get(sessionId);
    if (!isApprovalMode(modeId)) throw RequestError.invalidParams(undefined, `unknown mode '${modeId}' (one of ${APPROVAL_MODES.join(', ')})`);
    try {
      modesOf(session).set(modeId);
    } catch (err) {
      throw RequestError.invalidParams(undefined, err instanceof Error ? err.message : String(err));
    }
  }

  async prompt(sessionId: string, prompt: readonly ContentBlock[]): Promise<StopReason> {
    const session = this.get(sessionId);
    if (session.running !== undefined) throw RequestError.invalidRequest(undefined, 'this session is already working on a prompt');
    const controller = new AbortController();
    // Slash commands and mentions work as in the window (SPEC §10, §11), read from what the
    // person typed only: an embedded file's text is the editor's attachment, never expanded.
    let outcome: InputOutcome;
    try {
      outcome = await expandInput(typedText(prompt), this.commandSources(session), controller.signal);
    } catch (err) {
      if (!isInputError(err)) throw err;
      await this.say(sessionId, err.message);
      return 'end_turn';
    }
    // `/goal TEXT` (SPEC §21): the agent drafts criteria and verify steps, shown in the
    // conversation and accepted (an editor has no card to edit them), and the goal's run starts.
    let goalContent: string | undefined;
    if (outcome.kind === 'goal') {
      try {
        const draft = await session.threads.draftGoal(sessionId, outcome.objective);
        await this.say(sessionId, `${draftLines(draft).join('\n')}\n`);
        goalContent = goalPrompt(await session.threads.startGoal(sessionId, draft));
      } catch (err) {
        await this.say(sessionId, `The goal could not start: ${err instanceof Error ? err.message : String(err)}`);
        return 'end_turn';
      }
    } else if (outcome.kind !== 'send' && outcome.kind !== 'compact') {
      await this.command(session, outcome);
      return 'end_turn';
    }
    const compactOnly = outcome.kind === 'compact';
    const content = goalContent ?? (outcome.kind === 'send' ? promptContent(prompt, outcome) : null);
    const paths = this.editorPaths(session);
    const calls = new Map<string, OpenCall>();
    // Sent at once, so they go out in the order the agent made them (and before a permission request of the call).
    const sent: Array<Promise<void>> = [];
    session.onEvent = (event: AgentEvent) => {
      for (const update of updatesForEvent(paths, event, calls)) {
        sent.push(this.editor.update(sessionId, update).catch((err: unknown) => this.options.log(`could not send an update: ${String(err)}`)));
      }
    };
    const run = session.threads
      .run(sessionId, content, { compactOnly, typed: typedText(prompt), ...(outcome.kind === 'send' && outcome.turn ? { turn: outcome.turn } : {}) })
      .catch((err: unknown): RunResult => {
        if (err instanceof ContractError) throw RequestError.invalidRequest(undefined, err.message);
        return { text: '', reason: 'error', error: err instanceof Error ? err : new Error(String(err)) };
      });
    session.running = run;
    let result: RunResult;
    try {
      result = await run;
    } finally {
      session.running = undefined;
      session.onEvent = undefined;
    }
    await Promise.all(sent);
    if (result.reason === 'aborted') return 'cancelled';
    if (result.reason === 'max_steps') return 'max_turn_requests';
    if (result.reason === 'error' || result.reason === 'quota') throw RequestError.internalError(undefined, result.error?.message ?? 'the agent failed');
    // A budget stop was told as a message of the agent's; the turn ended as the person asked it to.
    if (result.reason === 'budget') return 'max_tokens';
    return 'end_turn';
  }

  /** `/mode`, `/model`, `/clear`: done here, told in one line. */
  private async command(session: Session, outcome: Exclude<InputOutcome, { kind: 'send' } | { kind: 'compact' } | { kind: 'goal' }>): Promise<void> {
    switch (outcome.kind) {
      case 'mode':
        try {
          modesOf(session).set(outcome.mode);
        } catch (err) {
          return this.say(session.id, err instanceof Error ? err.message : String(err));
        }
        await this.editor.update(session.id, { sessionUpdate: 'current_mode_update', currentModeId: outcome.mode });
        return this.say(session.id, `Mode: ${outcome.mode}`);
      case 'model':
        try {
          this.useSettings(session, await session.resources.models.named(outcome.model));
        } catch (err) {
          return this.say(session.id, err instanceof Error ? err.message : String(err));
        }
        return this.say(session.id, `Model: ${outcome.model} (for this session)`);
      case 'clear':
        return this.say(session.id, 'Start a new session in the editor for a new thread; this one stays as it is.');
    }
  }

  /** One line of Deepdesk's own (not the model's) in the conversation. */
  private say(sessionId: string, text: string): Promise<void> {
    return this.editor.update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  }

  private commandSources(session: Session): CommandSources {
    const { extensions, hub } = session.resources.extensions;
    return { skills: () => extensions.skills(), commands: () => extensions.commands(), mcp: hub };
  }

  /** The commands the editor offers after `/` (all but /clear, which is the editor's New session). */
  private async announceCommands(session: Session): Promise<void> {
    const availableCommands = listCommands(this.commandSources(session))
      .filter((c) => c.name !== 'clear')
      .map((c) => {
        const hint = c.usage.slice(c.name.length + 2).trim();
        return { name: c.name, description: c.description, ...(hint !== '' ? { input: { hint } } : {}) };
      });
    await this.editor.update(session.id, { sessionUpdate: 'available_commands_update', availableCommands });
  }

  /** session/close: stops its prompt and ends what the session started (its MCP servers); the thread stays. */
  async closeSession(sessionId: string): Promise<void> {
    await this.close(this.get(sessionId));
  }

  /** Stops the session's prompt; its pending permission request is withdrawn, its command's process tree ended. */
  cancel(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (session !== undefined) void session.threads.stop(sessionId);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => this.close(s)));
  }

  /**
   * The editor went away (SPEC §16: runs outlive their client): a prompt being worked on goes
   * on to its end, then its session closes; idle sessions close now. What it would ask the
   * editor fails, and so is refused (permission-bridge.ts).
   */
  async detachAll(): Promise<void> {
    await Promise.all(
      [...this.sessions.values()].map(async (session) => {
        await session.running?.catch(() => undefined);
        if (this.sessions.get(session.id) === session) await this.close(session);
      }),
    );
  }

  /** Whether a session's prompt is being worked on. */
  busy(): boolean {
    return [...this.sessions.values()].some((s) => s.running !== undefined);
  }

  /** Whether this thread's prompt is being worked on here. */
  working(threadId: string): boolean {
    return this.sessions.get(threadId)?.running !== undefined;
  }

  /** Stops the thread's prompt when it is one of these sessions' (`deepdesk stop`); false when it is not. */
  async stop(threadId: string): Promise<boolean> {
    const session = this.sessions.get(threadId);
    if (session?.running === undefined) return false;
    await session.threads.stop(threadId);
    return true;
  }

  private async close(session: Session): Promise<void> {
    this.sessions.delete(session.id);
    await session.threads.stop(session.id);
    await session.running?.catch(() => undefined);
    await session.threads.dispose();
    await session.resources.close();
  }

  /** The folder a new session in the editor's folder works in: it, or its sandbox worktree (`--sandbox`). */
  private async workFolder(folder: string): Promise<string> {
    if (this.options.sandboxFolder === undefined) return folder;
    try {
      return await this.options.sandboxFolder(folder);
    } catch (err) {
      if (err instanceof ContractError && err.code === 'bad_request') throw RequestError.invalidParams(undefined, err.message);
      throw err;
    }
  }

  private get(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw RequestError.resourceNotFound(sessionId);
    return session;
  }

  private async open(threadId: string, folder: string, mcpServers: readonly McpServer[]): Promise<Session> {
    const log = (line: string) => this.options.log(line);
    const resources = await openFolderSession({
      place: { kind: 'local', path: folder },
      flags: { ...this.options.flags, extraMcpServers: editorMcpServers(mcpServers), trust: this.options.trusts(folder) },
      policy: { mode: 'saved', wording: 'command' },
      context: { ...this.options.context, notice: (problem) => log(problem.message) },
    });
    try {
      const { extensions } = resources;
      await extensions.mcp.start();
      for (const line of [...extensions.extensions.problemLines(), ...extensions.mcp.problemLines()]) log(line);
      const untrusted = await extensions.untrustedNotice();
      if (untrusted !== undefined) log(untrusted);
      const session: Session = {
        id: threadId,
        folder,
        resources,
        threads: resources.threads({
          // The editor answers this session's approvals (its RunSettings' broker); nothing waits here.
          approvals: new ApprovalService(this.options.db, async () => ({})),
          folderBackendFor: (id) => {
            const { place } = resources;
            // A sandbox folder's files and commands are the provider's: the editor's buffers and terminal are of this machine.
            if (place.provider !== undefined) return place.shell;
            const disk = new LocalShellBackend({ rootDir: folder, ...(place.sandbox ? { sandbox: place.sandbox } : {}) });
            return new EditorFsBackend(disk, resources.configFolder, this.editor.files(id), log, this.commandRunner(id, resources));
          },
          emit: (e) => {
            if (e.kind === 'thread-event' && e.threadId === threadId) session.onEvent?.(e.event);
          },
        }),
      };
      if (!this.threads.exists(threadId)) {
        this.threads.save(newThreadState(threadId), { folder });
        // Made by an editor: the window says where it came from.
        this.threads.setSource(threadId, { kind: 'acp' });
      }
      this.useSettings(session);
      this.sessions.set(threadId, session);
      return session;
    } catch (err) {
      await resources.close();
      throw err;
    }
  }

  /** The session's runs: the editor answers their approvals; `/model` sets their model. */
  private useSettings(session: Session, model?: ChatModel): void {
    const broker = permissionBridge({
      sessionId: session.id,
      paths: this.editorPaths(session),
      ask: (params, signal) => this.editor.requestPermission(params, signal),
      addRule: async (rule: PermissionRule) => void (await session.resources.settings.addRule(rule)),
      log: (line) => this.options.log(line),
      runsIn: () => {
        const { provider } = session.resources.place;
        return provider !== undefined ? runsInText(provider) : undefined;
      },
    });
    session.threads.useRunSettings(session.id, { broker, ...(model ? { model } : {}) });
  }

  /**
   * The editor's terminal for `execute`, only where there is no sandbox: a command that would
   * run sandboxed here never runs in a terminal whose containment nothing vouches for.
   */
  private commandRunner(sessionId: string, resources: FolderSession): CommandRunner | undefined {
    const create = this.editor.terminal(sessionId);
    if (create === undefined || resources.place.sandbox !== undefined) return undefined;
    return editorTerminalRunner(create, resources.configFolder);
  }

  /** Where the session's virtual paths live on disk: its folder, and the mounts as they are now. */
  private editorPaths(session: Session): EditorPaths {
    const { mounts } = session.resources;
    return { folder: session.resources.configFolder, mounts: () => mounts.realRoots() };
  }

  private modeState(session: Session): SessionModeState {
    return {
      currentModeId: session.resources.mode(),
      availableModes: APPROVAL_MODES.map((id) => ({ id, ...MODE_NAMES[id] })),
    };
  }
}

/** The folder's saved mode (an editor's sessions follow the folder's, as the window does). */
function modesOf(session: Session) {
  const { modes } = session.resources;
  if (modes === undefined) throw new Error('an editor session follows the folder\'s saved mode');
  return modes;
}

