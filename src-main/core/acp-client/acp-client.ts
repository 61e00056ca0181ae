// Deepdesk as an ACP client of an external agent (SPEC §22): the agent's process speaks ACP on
// its stdio; its `fs/*` requests go through the thread's backend (virtual paths, writes through
// the backend's checks), its `terminal/*` run as Deepdesk's `execute` (sandboxed, mirrored).
// Its permission requests, writes and terminals are Deepdesk's operations (permission-map.ts)
// decided at the one decision point with the thread's mode and rules, as Deepdesk's own tools
// are (core/agent/decision.ts); a write or a command a permission request of the agent's was
// allowed for is not asked about again. A turn ends when the prompt was answered AND the
// session's updates have settled (some agents answer a few ms before their last message chunks).
import { asMemoryWriter } from '../memories/write-context';
import { Readable, Writable } from 'node:stream';
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type ClientConnection,
  type InitializeResponse,
  type SessionConfigOption,
  type CreateTerminalRequest,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type StopReason,
  type WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import type { Backend, ExecuteOptions, ExecuteResult } from '../backends/protocol';
import { withTargetGuard } from '../backends/target-guard';
import { decide, type CheckedTargets } from '../agent/decision';
import type { ApprovalMode } from '../agent/permissions/modes';
import type { ApprovalWhy } from '../agent/permissions/reason';
import type { PermissionRule } from '../agent/permissions/rules';
import type { ProcessExit, SupervisedProcess } from '../sandbox/supervisor';
import { hostToVirtual } from './paths';
import { commandLine, operationOfRequest, permissionAnswer, type AgentOperation, type KnownToolCall, type RequestShape } from './permission-map';
import { shellWord } from '../text/shell-quote';
import { AgentTerminals } from './terminals';

export type SessionUpdate = SessionNotification['update'];

/** What the agent said of a tool call so far, with what it says of it now. */
function toldMore(known: KnownToolCall, now: KnownToolCall): KnownToolCall {
  for (const key of ['kind', 'title', 'rawInput', 'locations', 'content'] as const) if (now[key] !== undefined && now[key] !== null) (known as Record<string, unknown>)[key] = now[key];
  return known;
}

/**
 * The model a session's configuration names: its option of category `model`, else the (unstable)
 * `models.currentModelId`; `default` (Claude Code's) is an alias that names no model.
 */
function modelOf(told: { configOptions?: SessionConfigOption[] | null; models?: { currentModelId?: unknown } | null }): string | undefined {
  const option = told.configOptions?.find((o) => o.category === 'model' && o.type === 'select')?.currentValue;
  const model = option ?? told.models?.currentModelId;
  // The agent's words: kept as data, and short.
  return typeof model === 'string' && model !== '' && model !== 'default' && model.length <= 200 ? model : undefined;
}

/** What an allowed permission request covers: a change to each of its paths, or its command line. */
function coverKeys(operation: AgentOperation): string[] {
  if (operation.command !== undefined) return [`execute\0${operation.command}`];
  return ['write_file', 'edit_file', 'delete_file'].includes(operation.tool) ? operation.paths.map((path) => `change\0${path}`) : [];
}

/** An agent's request the person is asked about. */
export interface AgentApprovalRequest {
  /** The agent's name, as the card, the `run` prompt and `attach` say it. */
  agent: string;
  /** The agent's id of the tool call it asks about. */
  toolCallId: string;
  operation: AgentOperation;
  /** Why it asks, or why it was answered without asking: in words, and as data. */
  reason: string;
  why?: ApprovalWhy;
  /** A sensitive write's diff (SPEC §23 (5)), what the reviewer is shown. */
  diff?: string;
}

/**
 * What the agent's requests in a turn work with: the thread's backend and `execute`, how they
 * are decided and asked, where its updates go. Handed to each `prompt` (the run's turn), or
 * given once in the options for every turn.
 */
export interface AgentTurnBinding {
  /** The thread's backend: the agent's reads and writes. */
  backend: Backend;
  /** Deepdesk's `execute` for the thread (sandboxed, mirrored in the Terminal). */
  execute(command: string, options: ExecuteOptions): Promise<ExecuteResult>;
  /** The thread's approval mode (default `ask`). */
  mode?(): ApprovalMode;
  /**
   * Whether `execute` runs its commands in the sandbox (default: yes — the agent is never
   * started outside one, and its terminals run in the thread's, where it runs).
   */
  sandboxAvailable?(): boolean;
  /** A reviewer answers the thread's questions: its sensitive writes then ask it (SPEC §23 (5)). */
  reviewing?(): boolean;
  /** Asks whoever answers the thread (its reviewer, the person: the approval card, `run`'s prompt, `attach`); true allows once, a text refuses saying why. */
  ask(request: AgentApprovalRequest, signal: AbortSignal): Promise<boolean | string>;
  /** Each session update, in arrival order. */
  onUpdate?(update: SessionUpdate): void;
  /** A request answered without asking (by the rules, the mode), for the thread's history. */
  onRuled?(request: AgentApprovalRequest, answer: 'allow' | 'deny'): void;
}

export interface AcpClientOptions extends Partial<AgentTurnBinding> {
  /** The agent's name (the catalog's). */
  agent: string;
  /** The thread's place on disk (real path): the agent's cwd; `/` of the backend. */
  folder: string;
  /** The thread its questions belong to. */
  threadId?: string;
  /** The person's rules in force (their own first, then the defaults). */
  rules(): readonly PermissionRule[];
  /** How this agent's permission requests name the command and the paths (its vendor's module; default the protocol's own fields). */
  describeRequest?: RequestShape;
  /** Other agents' configuration in a folder (their vendors'): a write there is sensitive. */
  agentConfig?: readonly string[];
}

/** How an earlier session fared after a restart: continued, or a new one because the agent offers no way back or refused it. */
export type SessionContinuation = 'continued' | 'not offered' | 'refused';

export interface TurnResult {
  stopReason: StopReason;
  /** Every update of the turn, in order. */
  updates: SessionUpdate[];
}

const MAX_SETTLE_MS = 3000;

/**
 * Variables the sandbox reads to decide what it hides from a command (its home's secrets, the
 * host's agent sockets): an agent's terminal may not set them.
 */
const CONTAINMENT_VARIABLES = new Set(['HOME', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'XDG_RUNTIME_DIR']);

type Verdict = { allowed: true; guard: CheckedTargets } | { allowed: false; reason: string };

export class AcpClientSession {
  private connection: ClientConnection | undefined;
  private initialized: InitializeResponse | undefined;
  private sessionId: string | undefined;
  private sessionModel: string | undefined;
  private usageReported = false;
  private readonly toolCalls = new Map<string, KnownToolCall>();
  private readonly terminals = new AgentTerminals();
  /** The turn under way's binding (else the options'). */
  private bound: AgentTurnBinding | undefined;
  private writeCount = 0;
  private readCount = 0;
  /** What a permission request was allowed for (`change PATH`, `execute COMMAND`): its write or terminal is not asked again, once. */
  private readonly allowedOnce = new Set<string>();
  private lastUpdateAt = 0;
  private turnUpdates: SessionUpdate[] | undefined;
  /** The prompt under way settled (answered or failed), while a turn is. */
  private answering: Promise<void> | undefined;
  private readonly closing = new AbortController();

  constructor(
    private readonly process: SupervisedProcess,
    private readonly options: AcpClientOptions,
  ) {}

  /** What `initialize` reported (kept and shown: load, resume, fork, models, usage…). */
  get initializeResponse(): InitializeResponse | undefined {
    return this.initialized;
  }

  get id(): string | undefined {
    return this.sessionId;
  }

  /** The model the agent says its session uses, when it says (SPEC §24: its steps carry it). */
  get model(): string | undefined {
    return this.sessionModel;
  }

  /** Whether the agent has said how full its context is (`usage_update`): Claude Code's adapter never does. */
  get reportsUsage(): boolean {
    return this.usageReported;
  }

  /** What one of its terminals printed so far (undefined: no such terminal). */
  terminalOutput(terminalId: string): string | undefined {
    try {
      return this.terminals.output(terminalId).output;
    } catch {
      return undefined;
    }
  }

  /** What Deepdesk learnt of the session elsewhere (its context from the metering proxy), told as the agent's own updates are. */
  tell(update: SessionUpdate): void {
    (this.bound ?? this.options).onUpdate?.(update);
  }

  /** Connects and initializes; resolves with what the agent reported. */
  async initialize(timeoutMs = 60_000): Promise<InitializeResponse> {
    const app = client({ name: 'deepdesk' })
      .onNotification(methods.client.session.update, ({ params }) => this.update(params))
      .onRequest(methods.client.session.requestPermission, ({ params, signal }) => this.permission(params, signal))
      .onRequest(methods.client.fs.readTextFile, ({ params }) => this.readText(params))
      .onRequest(methods.client.fs.writeTextFile, ({ params, signal }) => this.writeText(params, signal))
      .onRequest(methods.client.terminal.create, ({ params, signal }) => this.createTerminal(params, signal))
      .onRequest(methods.client.terminal.output, ({ params }) => this.terminals.output(params.terminalId))
      .onRequest(methods.client.terminal.waitForExit, ({ params }) => this.terminals.waitForExit(params.terminalId))
      .onRequest(methods.client.terminal.kill, ({ params }) => this.terminals.kill(params.terminalId))
      .onRequest(methods.client.terminal.release, ({ params }) => this.terminals.release(params.terminalId));
    this.connection = app.connect(ndJsonStream(Writable.toWeb(this.process.stdin) as WritableStream<Uint8Array>, Readable.toWeb(this.process.stdout) as ReadableStream<Uint8Array>));
    this.initialized = await this.withinExit(
      this.connection.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: { name: 'deepdesk', version: '1' },
      }),
      timeoutMs,
      'initialize',
    );
    return this.initialized;
  }

  /** A new session in the folder. */
  async newSession(): Promise<string> {
    const made = await this.withinExit(this.agent().request(methods.agent.session.new, { cwd: this.options.folder, mcpServers: [] }), 120_000, 'session/new');
    this.sessionId = made.sessionId;
    this.sessionModel = modelOf(made);
    return made.sessionId;
  }

  /** Continues a session after a restart: `session/load` or `session/resume` where the agent offers one and answers it with no error. */
  async continueSession(sessionId: string): Promise<SessionContinuation> {
    const caps = this.initialized?.agentCapabilities;
    const method = caps?.loadSession === true ? methods.agent.session.load : caps?.sessionCapabilities?.resume != null ? methods.agent.session.resume : undefined;
    if (method === undefined) return 'not offered';
    try {
      this.sessionModel = modelOf(await this.withinExit(this.agent().request(method, { sessionId, cwd: this.options.folder, mcpServers: [] }), 120_000, method));
    } catch (err) {
      // An error it answered (a session it no longer has); its exit or silence is not a refusal.
      if (typeof (err as { code?: unknown } | null)?.code === 'number') return 'refused';
      throw err;
    }
    this.sessionId = sessionId;
    return 'continued';
  }

  /** One turn: the prompt, then the updates settled; its requests work with `binding` (default the options'). */
  async prompt(text: string, binding?: AgentTurnBinding): Promise<TurnResult> {
    const sessionId = this.sessionId;
    if (!sessionId) throw new Error('no session');
    const updates: SessionUpdate[] = [];
    this.turnUpdates = updates;
    this.bound = binding;
    try {
      const asked = this.agent().request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
      this.answering = asked.then(
        () => undefined,
        () => undefined,
      );
      const answer = await this.withinExit(asked, undefined, 'session/prompt');
      await this.settle();
      // Where its turn is accepted, what its own process planted for git outside the sandbox is undone first (as an MCP server's answer).
      const found = await this.process.checkEffects();
      if (found.unremoved.length > 0) throw new Error(`${this.options.agent} made changes git would run outside the sandbox that could not be undone (${found.unremoved.join(', ')})`);
      return { stopReason: answer.stopReason, updates };
    } finally {
      this.turnUpdates = undefined;
      this.answering = undefined;
      this.bound = undefined;
    }
  }

  /** `session/cancel` (the turn then answers `cancelled`). */
  async cancel(): Promise<void> {
    if (!this.sessionId || !this.connection) return;
    await this.connection.agent.notify(methods.agent.session.cancel, { sessionId: this.sessionId }).catch(() => undefined);
  }

  /** Cancel, then the process tree (SPEC §22 `stop`): a turn under way is given `graceMs` to answer its cancel; then its input closes (the agent may exit by itself), then signals. */
  async stop(graceMs = 1000): Promise<void> {
    const answering = this.answering;
    await this.cancel();
    if (answering !== undefined) await Promise.race([answering, this.process.exited, new Promise((r) => setTimeout(r, graceMs).unref())]);
    this.closing.abort();
    this.terminals.abortAll();
    await this.process.stop();
    this.connection?.close();
  }

  /**
   * The operation decided with the thread's mode and rules, each of its paths (the strictest
   * answer wins); what asks asks whoever answers the thread, naming the agent, unless `allowedBefore` (a
   * permission request of the agent's was allowed for it). Answers given without asking are told.
   */
  private async decided(operation: AgentOperation, toolCallId: string, signal: AbortSignal, allowedBefore: boolean, content?: string): Promise<Verdict> {
    const o = this.turn();
    const { agent, threadId = '', agentConfig } = this.options;
    const context = { threadId, mode: o.mode?.() ?? 'ask', rules: this.options.rules(), sandboxAvailable: o.sandboxAvailable?.() ?? true, backend: o.backend, agent, reviewing: o.reviewing?.() === true, ...(agentConfig ? { agentConfig } : {}) };
    const args = content !== undefined ? { ...operation.args, content } : operation.args;
    const each = operation.tool !== 'execute' && operation.paths.length > 1 ? operation.paths.map((file_path) => ({ ...args, file_path })) : [args];
    const outside = operation.tool !== 'execute' ? operation.outside : [];
    const all = await Promise.all(each.map((args) => decide({ id: toolCallId, tool: operation.tool, args, outside }, context)));
    const decided = (['deny', 'refuse', 'ask'] as const).map((d) => all.find((a) => a.decision === d)).find((a) => a !== undefined) ?? all[0]!;
    const diff = decided.decision === 'ask' ? decided.question.diff : undefined;
    const request: AgentApprovalRequest = { agent, toolCallId, operation, reason: decided.reason, why: decided.why, ...(diff !== undefined ? { diff } : {}) };
    // An allowed permission request never showed the write's effect: a sensitive write is asked about with its diff.
    if (decided.decision === 'ask' && (!allowedBefore || diff !== undefined)) {
      const answer = await o.ask(request, signal).catch(() => false);
      return answer === true ? { allowed: true, guard: decided.guard } : { allowed: false, reason: answer || 'the person did not allow it' };
    }
    if (decided.decision === 'ask' || decided.decision === 'allow') {
      if (!allowedBefore) o.onRuled?.(request, 'allow');
      return { allowed: true, guard: decided.guard };
    }
    o.onRuled?.(request, 'deny');
    return { allowed: false, reason: decided.reason };
  }

  private update(notification: SessionNotification): void {
    if (this.sessionId !== undefined && notification.sessionId !== this.sessionId) return;
    const update = notification.update;
    this.lastUpdateAt = Date.now();
    if (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') {
      this.toolCalls.set(update.toolCallId, toldMore(this.toolCalls.get(update.toolCallId) ?? {}, update));
    }
    if (update.sessionUpdate === 'config_option_update') this.sessionModel = modelOf(update) ?? this.sessionModel;
    if (update.sessionUpdate === 'usage_update') this.usageReported = true;
    this.turnUpdates?.push(update);
    (this.bound ?? this.options).onUpdate?.(update);
  }

  /** Resolves once no update came for 150 ms after the prompt's answer (at most MAX_SETTLE_MS in all). */
  private async settle(): Promise<void> {
    const quiet = 150;
    const until = Date.now() + MAX_SETTLE_MS;
    for (;;) {
      const since = Date.now() - this.lastUpdateAt;
      if (since >= quiet || Date.now() >= until) return;
      await new Promise((r) => setTimeout(r, Math.min(quiet - since, until - Date.now()) + 1));
    }
  }

  private virtual(path: string): string {
    const virtual = hostToVirtual(this.options.folder, path);
    if (virtual === undefined) throw RequestError.invalidParams(undefined, `${path} is outside the folder`);
    return virtual;
  }

  /** What the turn under way works with (the options' outside a turn, when they give it). */
  private turn(): AgentTurnBinding {
    const bound = this.bound ?? this.options;
    if (bound.backend === undefined || bound.execute === undefined || bound.ask === undefined) throw RequestError.invalidRequest(undefined, 'no turn is going');
    return bound as AgentTurnBinding;
  }

  private async permission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const told = toldMore({ ...this.toolCalls.get(params.toolCall.toolCallId) }, params.toolCall);
    const operation = operationOfRequest(told, this.options.folder, this.options.describeRequest);
    // The text a write will leave, when the agent shows it: a sensitive write is reviewed by its effect.
    const written = told.content?.find((c) => c.type === 'diff')?.newText;
    const verdict = await this.decided(operation, params.toolCall.toolCallId, signal, false, operation.paths.length === 1 ? written : undefined);
    if (verdict.allowed) for (const key of coverKeys(operation)) this.allowedOnce.add(key);
    return permissionAnswer(params.options, verdict.allowed);
  }

  private async readText(params: ReadTextFileRequest): Promise<{ content: string }> {
    const path = this.virtual(params.path);
    const read = await this.turn().backend.readRaw(path);
    if (read.error !== undefined || !read.data) throw RequestError.resourceNotFound(params.path);
    let content = Buffer.from(read.data).toString('utf8');
    if (params.line != null || params.limit != null) {
      const lines = content.split('\n');
      const start = Math.max(0, (params.line ?? 1) - 1);
      content = lines.slice(start, params.limit != null ? start + params.limit : undefined).join('\n');
    }
    // Told as a call of its own (`fs_read_N`, `fs_write_N`), so the thread's record has every read and write.
    this.update({ sessionId: params.sessionId, update: { sessionUpdate: 'tool_call', toolCallId: `fs_read_${++this.readCount}`, kind: 'read', title: `Read ${path}`, rawInput: { file_path: path }, status: 'completed' } });
    return { content };
  }

  private async writeText(params: WriteTextFileRequest, signal: AbortSignal): Promise<Record<string, never>> {
    const path = this.virtual(params.path);
    const operation: AgentOperation = { tool: 'write_file', args: { file_path: path }, paths: [path], outside: [], title: `Write ${params.path}` };
    // Decided on where the path leads now; a link met when the backend writes is decided again there.
    const callId = `write_${++this.writeCount}`;
    const verdict = await this.decided(operation, callId, signal, this.allowedOnce.delete(`change\0${path}`), params.content);
    if (!verdict.allowed) throw RequestError.invalidParams(undefined, `refused: ${verdict.reason}`);
    // Another agent's context is not seen here: a memory it writes waits for the person (SPEC §25).
    const writer = { writer: { kind: 'other-agent' as const, thread: this.options.threadId ?? '', vendor: this.options.agent }, sources: () => [`${this.options.agent}'s context`], personText: () => '' };
    const wrote = await asMemoryWriter(writer, () => withTargetGuard(verdict.guard, () => this.turn().backend.write(path, params.content)));
    if (wrote.error !== undefined) throw RequestError.internalError(undefined, wrote.error);
    this.update({ sessionId: params.sessionId, update: { sessionUpdate: 'tool_call', toolCallId: `fs_${callId}`, kind: 'edit', title: `Write ${path}`, rawInput: { file_path: path }, status: 'completed' } });
    return {};
  }

  private async createTerminal(params: CreateTerminalRequest, signal: AbortSignal): Promise<{ terminalId: string }> {
    const cwd = params.cwd ? this.virtual(params.cwd) : '/';
    // The line the person is shown is the line that runs; the environment is the process's.
    const line = `${cwd !== '/' ? `cd ${shellWord(this.options.folder + cwd)} && ` : ''}${params.args && params.args.length > 0 ? commandLine([params.command, ...params.args]) : params.command}`;
    const env = Object.fromEntries((params.env ?? []).filter((v) => !CONTAINMENT_VARIABLES.has(v.name)).map((v) => [v.name, v.value]));
    const terminalId = this.terminals.newId();
    const operation: AgentOperation = { tool: 'execute', args: { command: line }, paths: [], outside: [], command: line, title: line };
    const verdict = await this.decided(operation, terminalId, signal, this.allowedOnce.delete(`execute\0${line}`));
    if (!verdict.allowed) throw RequestError.invalidParams(undefined, `refused: ${verdict.reason}`);
    return { terminalId: this.terminals.create(terminalId, line, env, this.turn().execute) };
  }

  private agent(): ClientConnection['agent'] {
    if (!this.connection) throw new Error('not initialized');
    return this.connection.agent;
  }

  /** The request's answer, or an error naming the agent's exit (with its log's last lines) or the time out. */
  private async withinExit<T>(request: Promise<T>, timeoutMs: number | undefined, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    // Its last word first (a one-line report shows only that), then the rest of its log's tail.
    const exitError = (exit: ProcessExit): Error => {
      const tail = this.process.logTail().trim().split('\n').slice(-8);
      const last = tail.at(-1)?.trim();
      const said = last ? `, its last words: "${last}"` : ' without a word on its stderr';
      return new Error(`${this.options.agent} exited (${exit.signal ?? `code ${exit.code}`}) before answering ${what}${said}. The thread's next message starts it again.${last ? `\n${tail.join('\n')}` : ''}`);
    };
    const exited = this.process.exited.then((exit) => {
      throw exitError(exit);
    });
    exited.catch(() => undefined);
    // The connection closing (or a write finding no reader) is how its exit shows first: said as the exit once it is known.
    const said = request.catch(async (err: unknown) => {
      // An error the agent answered (JSON-RPC's numeric code) is its own, said as it is.
      if (typeof (err as { code?: unknown } | null)?.code === 'number') throw err;
      const exit = await Promise.race([this.process.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 10_000).unref())]);
      throw exit === undefined ? err : exitError(exit);
    });
    const timedOut =
      timeoutMs === undefined
        ? new Promise<never>(() => undefined)
        : new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`${this.options.agent} did not answer ${what} in ${Math.round(timeoutMs / 1000)} s${this.logSuffix()}`)), timeoutMs);
          });
    try {
      return await Promise.race([said, exited, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private logSuffix(): string {
    const tail = this.process.logTail().trim().split('\n').slice(-8).join('\n');
    return tail ? `:\n${tail}` : '';
  }
}
