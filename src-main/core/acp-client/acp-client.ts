// Deepdesk as an ACP client of an external agent (SPEC §22): the agent's process speaks ACP on
// its stdio; its `fs/*` requests go through the thread's backend (virtual paths, writes through
// the backend's checks), its `terminal/*` run as Deepdesk's `execute` (sandboxed, mirrored),
// its `session/request_permission` meets the person's rules and then the person
// (permission-map.ts), and a turn ends when the prompt was answered AND the session's updates
// have settled (some agents answer a few ms before their last message chunks).
import { Readable, Writable } from 'node:stream';
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type AgentCapabilities,
  type ClientConnection,
  type Implementation,
  type InitializeResponse,
  type SessionNotification,
  type StopReason,
} from '@agentclientprotocol/sdk';
import type { Backend, ExecuteOptions, ExecuteResult } from '../backends/protocol';
import type { PermissionRule } from '../agent/permissions/rules';
import type { SupervisedProcess } from '../sandbox/supervisor';
import { hostToVirtual } from './paths';
import { decideByRules, operationOfRequest, permissionAnswer, type AgentOperation, type KnownToolCall } from './permission-map';
import { shellWord } from '../text/shell-quote';

export type SessionUpdate = SessionNotification['update'];

/** An agent's request the person is asked about. */
export interface AgentApprovalRequest {
  /** The agent's name, as the card, the `run` prompt and `attach` say it. */
  agent: string;
  /** The agent's id of the tool call it asks about. */
  toolCallId: string;
  operation: AgentOperation;
  /** Why it asks (the rules' words). */
  reason: string;
}

export interface AcpClientOptions {
  /** The agent's name (the catalog's). */
  agent: string;
  /** The thread's place on disk (real path): the agent's cwd; `/` of the backend. */
  folder: string;
  /** The thread's backend: the agent's reads and writes. */
  backend: Backend;
  /** Deepdesk's `execute` for the thread (sandboxed, mirrored in the Terminal). */
  execute(command: string, options: ExecuteOptions): Promise<ExecuteResult>;
  /** The person's rules in force (their own first, then the defaults). */
  rules(): readonly PermissionRule[];
  /** Asks the person (the approval card, `run`'s prompt, `attach`); true allows once. */
  ask(request: AgentApprovalRequest, signal: AbortSignal): Promise<boolean>;
  /** Each session update, in arrival order. */
  onUpdate?(update: SessionUpdate): void;
  /** A permission answered by the rules (without asking), for the thread's history. */
  onRuled?(request: AgentApprovalRequest, answer: 'allow' | 'deny'): void;
  /** How long the updates must be quiet after the prompt's answer for the turn to end (default 150 ms, at most 3 s in all). */
  settleMs?: number;
}

export interface TurnResult {
  stopReason: StopReason;
  /** Every update of the turn, in order. */
  updates: SessionUpdate[];
}

interface Terminal {
  output: string;
  exit?: { exitCode: number | null; signal: string | null };
  done: Promise<void>;
  abort: AbortController;
}

const MAX_SETTLE_MS = 3000;

export class AcpClientSession {
  private connection: ClientConnection | undefined;
  private initialized: InitializeResponse | undefined;
  private sessionId: string | undefined;
  private readonly toolCalls = new Map<string, KnownToolCall>();
  private readonly terminals = new Map<string, Terminal>();
  private terminalCount = 0;
  private lastUpdateAt = 0;
  private turnUpdates: SessionUpdate[] | undefined;
  private readonly closing = new AbortController();

  constructor(
    private readonly process: SupervisedProcess,
    private readonly options: AcpClientOptions,
  ) {}

  /** What `initialize` reported (kept and shown: load, resume, fork, models, usage…). */
  get capabilities(): AgentCapabilities | undefined {
    return this.initialized?.agentCapabilities;
  }

  get agentInfo(): Implementation | undefined {
    return this.initialized?.agentInfo ?? undefined;
  }

  get initializeResponse(): InitializeResponse | undefined {
    return this.initialized;
  }

  get id(): string | undefined {
    return this.sessionId;
  }

  /** Connects and initializes; resolves with what the agent reported. */
  async initialize(timeoutMs = 60_000): Promise<InitializeResponse> {
    const app = client({ name: 'deepdesk' })
      .onNotification(methods.client.session.update, ({ params }) => this.update(params))
      .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
        const known = { ...this.toolCalls.get(params.toolCall.toolCallId) };
        for (const key of ['kind', 'title', 'rawInput', 'locations'] as const) {
          const value = params.toolCall[key];
          if (value !== undefined && value !== null) (known as Record<string, unknown>)[key] = value;
        }
        const operation = operationOfRequest(known, this.options.folder);
        const ruled = decideByRules(operation, this.options.rules());
        if (ruled.answer !== 'ask') {
          this.options.onRuled?.({ agent: this.options.agent, toolCallId: params.toolCall.toolCallId, operation, reason: ruled.reason }, ruled.answer);
          return permissionAnswer(params.options, ruled.answer === 'allow');
        }
        const allowed = await this.options.ask({ agent: this.options.agent, toolCallId: params.toolCall.toolCallId, operation, reason: ruled.reason }, signal).catch(() => false);
        return permissionAnswer(params.options, allowed);
      })
      .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
        const path = this.virtual(params.path);
        const read = await this.options.backend.readRaw(path);
        if (read.error !== undefined || !read.data) throw RequestError.resourceNotFound(params.path);
        let content = Buffer.from(read.data).toString('utf8');
        if (params.line != null || params.limit != null) {
          const lines = content.split('\n');
          const start = Math.max(0, (params.line ?? 1) - 1);
          content = lines.slice(start, params.limit != null ? start + params.limit : undefined).join('\n');
        }
        return { content };
      })
      .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
        const path = this.virtual(params.path);
        const operation: AgentOperation = { tool: 'write_file', paths: [path], outside: [], title: `Write ${params.path}` };
        const ruled = decideByRules(operation, this.options.rules());
        if (ruled.answer === 'deny') throw RequestError.invalidParams(undefined, `refused: ${ruled.reason}`);
        const wrote = await this.options.backend.write(path, params.content);
        if (wrote.error !== undefined) throw RequestError.internalError(undefined, wrote.error);
        return {};
      })
      .onRequest(methods.client.terminal.create, ({ params }) => {
        const command = params.args && params.args.length > 0 ? [params.command, ...params.args].map((w) => shellWord(w)).join(' ') : params.command;
        const env = (params.env ?? []).map((v) => `${v.name}=${shellWord(v.value)}`).join(' ');
        const cwd = params.cwd ? this.virtual(params.cwd) : '/';
        const line = `${cwd !== '/' ? `cd ${shellWord(this.options.folder + cwd)} && ` : ''}${env ? `env ${env} ` : ''}${command}`;
        const terminalId = `term_${++this.terminalCount}`;
        const abort = new AbortController();
        const terminal: Terminal = { output: '', abort, done: Promise.resolve() };
        terminal.done = this.options
          .execute(line, { signal: abort.signal, onData: (chunk) => (terminal.output += chunk) })
          .then((result) => {
            terminal.output = result.output;
            terminal.exit = { exitCode: result.exitCode, signal: null };
          })
          .catch((err: unknown) => {
            terminal.output += `\n${err instanceof Error ? err.message : String(err)}`;
            terminal.exit = { exitCode: null, signal: null };
          });
        this.terminals.set(terminalId, terminal);
        return { terminalId };
      })
      .onRequest(methods.client.terminal.output, ({ params }) => {
        const t = this.terminal(params.terminalId);
        return { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) };
      })
      .onRequest(methods.client.terminal.waitForExit, async ({ params }) => {
        const t = this.terminal(params.terminalId);
        await t.done;
        return t.exit ?? { exitCode: null, signal: null };
      })
      .onRequest(methods.client.terminal.kill, async ({ params }) => {
        const t = this.terminal(params.terminalId);
        t.abort.abort();
        await t.done;
        return {};
      })
      .onRequest(methods.client.terminal.release, ({ params }) => {
        const t = this.terminals.get(params.terminalId);
        t?.abort.abort();
        this.terminals.delete(params.terminalId);
        return {};
      });
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
    return made.sessionId;
  }

  /** Continues a session after a restart: `session/load` or `session/resume` where the agent offers one; false where it offers neither. */
  async continueSession(sessionId: string): Promise<boolean> {
    const caps = this.capabilities;
    if (caps?.loadSession === true) {
      await this.withinExit(this.agent().request(methods.agent.session.load, { sessionId, cwd: this.options.folder, mcpServers: [] }), 120_000, 'session/load');
    } else if (caps?.sessionCapabilities?.resume != null) {
      await this.withinExit(this.agent().request(methods.agent.session.resume, { sessionId, cwd: this.options.folder, mcpServers: [] }), 120_000, 'session/resume');
    } else return false;
    this.sessionId = sessionId;
    return true;
  }

  /** One turn: the prompt, then the updates settled. */
  async prompt(text: string): Promise<TurnResult> {
    const sessionId = this.requireSession();
    const updates: SessionUpdate[] = [];
    this.turnUpdates = updates;
    try {
      const answer = await this.withinExit(this.agent().request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }), undefined, 'session/prompt');
      await this.settle();
      return { stopReason: answer.stopReason, updates };
    } finally {
      this.turnUpdates = undefined;
    }
  }

  /** `session/cancel` (the turn then answers `cancelled`). */
  async cancel(): Promise<void> {
    if (!this.sessionId || !this.connection) return;
    await this.connection.agent.notify(methods.agent.session.cancel, { sessionId: this.sessionId }).catch(() => undefined);
  }

  /** Cancel, then the process tree (SPEC §22 `stop`). */
  async stop(graceMs = 1000): Promise<void> {
    await this.cancel();
    await Promise.race([this.process.exited, new Promise((r) => setTimeout(r, graceMs).unref())]);
    this.closing.abort();
    for (const t of this.terminals.values()) t.abort.abort();
    await this.process.stop();
    this.connection?.close();
  }

  private update(notification: SessionNotification): void {
    if (this.sessionId !== undefined && notification.sessionId !== this.sessionId) return;
    const update = notification.update;
    this.lastUpdateAt = Date.now();
    if (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') {
      const known = this.toolCalls.get(update.toolCallId) ?? {};
      for (const key of ['kind', 'title', 'rawInput', 'locations'] as const) {
        const value = update[key];
        if (value !== undefined && value !== null) (known as Record<string, unknown>)[key] = value;
      }
      this.toolCalls.set(update.toolCallId, known);
    }
    this.turnUpdates?.push(update);
    this.options.onUpdate?.(update);
  }

  /** Resolves once no update came for `settleMs` (at most MAX_SETTLE_MS in all). */
  private async settle(): Promise<void> {
    const quiet = this.options.settleMs ?? 150;
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

  private terminal(id: string): Terminal {
    const t = this.terminals.get(id);
    if (!t) throw RequestError.invalidParams(undefined, `no terminal ${id}`);
    return t;
  }

  private agent(): ClientConnection['agent'] {
    if (!this.connection) throw new Error('not initialized');
    return this.connection.agent;
  }

  private requireSession(): string {
    if (!this.sessionId) throw new Error('no session');
    return this.sessionId;
  }

  /** The request's answer, or an error naming the agent's exit (with its log's last lines) or the time out. */
  private async withinExit<T>(request: Promise<T>, timeoutMs: number | undefined, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const exited = this.process.exited.then((exit) => {
      throw new Error(`${this.options.agent} ended (${exit.signal ?? `code ${exit.code}`}) before answering ${what}${this.logSuffix()}`);
    });
    exited.catch(() => undefined);
    const timedOut =
      timeoutMs === undefined
        ? new Promise<never>(() => undefined)
        : new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`${this.options.agent} did not answer ${what} in ${Math.round(timeoutMs / 1000)} s${this.logSuffix()}`)), timeoutMs);
          });
    try {
      return await Promise.race([request, exited, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private logSuffix(): string {
    const tail = this.process.logTail().trim().split('\n').slice(-8).join('\n');
    return tail ? `:\n${tail}` : '';
  }
}
