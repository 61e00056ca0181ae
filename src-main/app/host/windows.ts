// Windows in the agent host (SPEC §16): each client showing the window (`deepdesk serve`, for
// the browser tabs it serves) gets a window's folders of its own — its open folder, its recent
// folders — over the host's apps, one per folder and shared (app-pool.ts). Its requests are
// the contract's, checked again here (the client is another process); its events come back
// as `window.event`.

import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parseMountFlags } from '../../core/backends/mounts/mount-flags';
import { overSettingsFlagsSchema } from '../base/session-flag-schemas';
import { createApp } from '../window/folder-app';
import { parseRequest, type AgentProtocolStatus, type EventFrame, type NoticeDto, type Params, type PendingApproval, type Settings, type ThreadSummaryDto, type ThreadView } from '../contract';
import type { App } from '../window/folder-app';
import type { ApprovalDecision, ApprovalRequest } from '../../core/agent/types';
import type { HostRuns } from './runs';
import type { AttachedRun, PendingQuestion } from './run-views';
import type { HostCandidateSets } from '../session/candidate-sets';
import { createWindowFolders, type WindowFolders, type WindowFoldersOptions } from '../folders/window-folders';
import { DEFAULT_MODE } from '../../core/agent/permissions/modes';
import { openRemoteApp } from '../places/remote-folder';
import type { FileSecretStore } from '../settings/file-secret-store';
import { AppPool } from '../folders/app-pool';
import { asHostError, HostRequestError, type HostConnection } from '../base/host-service';
import { DesktopClients, desktopWindowParams } from './desktop-clients';

export const windowOpenParams = z.object({
  /** The folder to open at start (a checked path or an ssh:// URL), or null for `Open folder`. */
  folder: z.string().nullable(),
  /** `deepdesk serve`'s flags for this window's session (never saved). */
  overrides: overSettingsFlagsSchema,
  mounts: z.array(z.string()),
  mcpConfig: z.array(z.string()),
  cwd: z.string().min(1),
  env: z.record(z.string(), z.string()),
  /** The desktop app's window: its keys are in its keychain, its folder dialog and browser its own (desktop-clients.ts). */
  desktop: desktopWindowParams.optional(),
});
export type WindowOpenParams = z.output<typeof windowOpenParams>;

export const windowCallParams = z.object({ method: z.string(), params: z.unknown() });

export class HostWindows {
  private readonly windows = new Map<string, WindowFolders>();
  private readonly pool: AppPool;
  /** The data folder's own secrets (web windows' keys; every window's MCP sign-ins). */
  private readonly secrets: FileSecretStore;
  private readonly desktops = new DesktopClients();

  constructor(
    private readonly options: {
      dataDir: string;
      version: string;
      log: (line: string) => void;
      runs: HostRuns;
      /** The host's sets of candidates (app/session/candidate-sets.ts): the window's *Run N candidates…* starts one. */
      candidates?: HostCandidateSets;
      secrets: FileSecretStore;
      /** The host's Agent Protocol as Settings shows it: where it listens, its key (host-adapters.ts). */
      protocol?: { status(): AgentProtocolStatus; rotateKey(): AgentProtocolStatus };
      /** `host --reviewer`: under the window's own flags. */
      reviewer?: string;
    },
  ) {
    this.pool = new AppPool(options.log);
    this.secrets = options.secrets;
    // A window on a `deepdesk run`'s folder can answer its approvals.
    options.runs.answeredByWindowsOf((folder) => [...this.windows.values()].some((w) => w.shows(folder)));
    // A folder's app never keeps (nor saves over) a copy of a thread a `deepdesk run` changes or the Agent Protocol deletes.
    options.runs.onActivity((activity) => {
      if (activity.kind !== 'started' && activity.kind !== 'ended' && activity.kind !== 'deleted') return;
      for (const app of this.pool.apps()) if (app.folder === activity.folder) app.changedElsewhere(activity.threadId);
    });
  }

  /** Opens this connection's window; its notices so far are returned (later ones come as events). */
  async open(connection: HostConnection, params: WindowOpenParams): Promise<{ notices: NoticeDto[] }> {
    if (this.windows.has(connection.id)) throw new HostRequestError('this connection already has a window', 'bad_request');
    const { dataDir, version } = this.options;
    const env = params.env;
    const mountFlags = parseMountFlags(params.mounts, params.cwd);
    const desktop = params.desktop;
    if (desktop !== undefined) this.desktops.add(connection);
    // One app per folder, shared by every window on it, so that each sees the runs going there
    // (a restarted `serve` included). The desktop app's windows have apps of their own: their
    // keys are in its keychain. An app built from other flags is shared only while a window
    // holds it or its runs go (AppPool): the window is told so.
    const transport = desktop !== undefined ? ('electron' as const) : ('web' as const);
    const configuration = appConfiguration(params, mountFlags);
    const poolKey = (folder: string) => (desktop !== undefined ? `desktop\0${desktop.secretsFile}\0${folder}` : folder);
    let host: WindowFolders | undefined;
    let sharedNotice: string | undefined;
    const lease = async (folder: string, make: () => Promise<App>): Promise<App> => {
      const app = await this.pool.lease(poolKey(folder), make, configuration);
      if (this.pool.builtFrom(poolKey(folder)) !== configuration) {
        const message = `${folder} is already open in the agent host with other settings (another window's \`serve\` flags or environment); they apply here until its windows close and its runs end.`;
        if (host !== undefined) host.notice(message);
        else sharedNotice = message;
      }
      return app;
    };
    const make = (folder: string, remote?: Parameters<Parameters<typeof openRemoteApp>[2]>[0]) =>
      createApp({
        folder,
        dataDir,
        secrets: desktop !== undefined ? this.desktops.secrets(desktop) : this.secrets,
        mcpTokens: this.secrets,
        ...(desktop !== undefined ? { openExternal: (url: string) => this.desktops.openExternal(url) } : {}),
        transport,
        version,
        overrides: { ...(this.options.reviewer !== undefined ? { reviewerChoice: this.options.reviewer } : {}), ...params.overrides },
        mcpConfigFiles: params.mcpConfig,
        mountFlags,
        env,
        ...(remote ? { remote } : {}),
      });
    try {
      host = await createWindowFolders({
        dataDir,
        transport,
        version,
        folder: params.folder,
        env,
        ...(desktop !== undefined ? { pickFolder: () => DesktopClients.pickFolder(connection) } : {}),
        openApp: (folder) => lease(folder, () => make(folder)),
        ...(this.options.candidates !== undefined ? { startCandidates: this.startCandidates(connection, this.options.candidates, params) } : {}),
        openRemoteApp: (location) => lease(location.url, () => openRemoteApp(location, { dataDir, env }, (remote) => make(location.url, remote))),
      });
    } catch (err) {
      throw asHostError(err);
    }
    if (sharedNotice !== undefined) host.notice(sharedNotice);
    if (connection.closed) {
      await host.close();
      throw new HostRequestError('the window went away while it was opening', 'failed');
    }
    this.windows.set(connection.id, host);
    const stopEvents = host.onEvent((frame) => connection.send('window.event', frame));
    // A `deepdesk run` in this window's folder shows here as it goes (its events, its approvals).
    const stopRuns = this.options.runs.onActivity((activity) => {
      if (!host.shows(activity.folder)) return;
      const frame = (event: string, payload: unknown) => connection.send('window.event', { event, payload });
      if (activity.kind === 'event') frame('thread.event', { threadId: activity.threadId, seq: activity.seq, event: activity.event });
      else if (activity.kind === 'approvals') frame('approvals.changed', { threadId: activity.threadId });
      else frame('threads.changed', {});
    });
    connection.onClose(() => {
      stopEvents();
      stopRuns();
      this.windows.delete(connection.id);
      // The window's lease on its folder's app ends; a working app stays until its runs end.
      void host.close().catch((err: unknown) => this.options.log(`closing a window failed: ${String(err)}`));
    });
    return { notices: (await host.handle('app.notices', {})) as NoticeDto[] };
  }

  /** The window's *Run N candidates…*: the host's set (app/session/candidate-sets.ts), with this window's environment; its runs go on without the window. */
  private startCandidates(connection: HostConnection, sets: HostCandidateSets, window: WindowOpenParams): NonNullable<WindowFoldersOptions['startCandidates']> {
    return async (folder, p) => {
      // Settings' model for each candidate without one: the host's run takes it when the request names none.
      const models = Array.from({ length: p.count }, (_, i) => (p.models[i] === undefined || p.models[i] === '' ? null : p.models[i]!));
      // `serve`'s flags for the window's session (a base URL…) hold for its candidates too, but its model: each candidate's own, or Settings'/the flag's.
      const { model: flagModel, ...flags } = window.overrides;
      const each = flagModel !== undefined ? models.map((m) => m ?? flagModel) : models;
      const started = await sets.start(connection, {
        folder,
        count: p.count,
        models: each,
        // Each candidate's agent (none: Deepdesk's own) and its own instruction, as the dialog gave them.
        ...(p.agents !== undefined ? { agents: Array.from({ length: p.count }, (_, i) => p.agents![i] || null) } : {}),
        ...(p.prompts !== undefined ? { prompts: Array.from({ length: p.count }, (_, i) => p.prompts![i] || null) } : {}),
        request: {
          ...flags,
          prompt: '',
          goal: p.goal,
          ...(p.verify.length > 0 ? { verify: p.verify } : {}),
          ...(p.sandbox !== undefined ? { sandbox: { provider: p.sandbox.provider } } : {}),
          mode: DEFAULT_MODE,
          acceptDraft: true,
          cwd: window.cwd,
          env: window.env,
        },
        ...(p.budget !== undefined ? { budget: p.budget } : {}),
        approve: p.autoApprove ? 'auto' : 'ask',
        follow: false,
      });
      return { setId: started.setId, threadIds: started.threadIds };
    };
  }

  /** One request of the window's contract, checked as the web host checks it. */
  async call(connection: HostConnection, method: string, params: unknown): Promise<unknown> {
    const host = this.windows.get(connection.id);
    if (host === undefined) throw new HostRequestError('open a window first (window.open)', 'bad_request');
    try {
      const request = parseRequest({ id: 0, method, params });
      // The host's own: its listeners and its key (no folder's app knows them).
      if (request.method === 'agentProtocol.status' || request.method === 'agentProtocol.rotateKey') {
        const protocol = this.options.protocol;
        if (protocol === undefined) throw new HostRequestError('this agent host serves no Agent Protocol', 'failed');
        return request.method === 'agentProtocol.status' ? protocol.status() : protocol.rotateKey();
      }
      const ran = await this.runsCall(host, request.method, request.params);
      if (ran !== NOT_A_RUN) return ran;
      // The folder's app reads a thread a `deepdesk run` is working on from what it saved.
      const threadId = (request.params as { threadId?: unknown }).threadId;
      if (typeof threadId === 'string' && this.options.runs.going(threadId) !== undefined) {
        for (const app of this.pool.apps()) if (host.shows(app.folder)) app.changedElsewhere(threadId);
      }
      const result = (await host.handle(request.method, request.params)) ?? null;
      return await this.withRuns(request.method, result);
    } catch (err) {
      throw asHostError(err);
    }
  }

  busy(): boolean {
    return this.pool.busy();
  }

  /** The threads working (or waiting for the person) in the windows' folders' apps: what quitting the desktop app asks about. */
  async workingThreads(): Promise<string[]> {
    return (await this.appsWorking()).map(({ thread }) => thread.id);
  }

  /** A window's request about a thread a `deepdesk run` is working on: answered by that run. */
  private async runsCall(host: WindowFolders, method: string, params: unknown): Promise<unknown> {
    const threadId = (params as { threadId?: unknown }).threadId;
    if (typeof threadId !== 'string') return NOT_A_RUN;
    const going = this.options.runs.going(threadId);
    if (going === undefined) return NOT_A_RUN;
    switch (method) {
      case 'threads.send':
      case 'threads.retry':
      case 'threads.allowOnce':
      case 'threads.compact':
      case 'threads.sendQueuedNow':
      case 'threads.delete':
        throw new HostRequestError('this thread is working in a `deepdesk run`: wait for it, or Stop it', 'failed');
      case 'threads.prepare':
        // Its agent is the run's, already going.
        return { ok: true };
      case 'threads.stop':
        await this.options.runs.stop(threadId);
        return { ok: true };
      case 'approvals.decide': {
        const p = params as Params<'approvals.decide'>;
        // Ids are the model's words: two questions that fit them both are answered by neither.
        const fits = going.questions.filter((q) => q.request.toolCallId === p.toolCallId && q.request.parentToolCallId === p.parentToolCallId);
        const question = fits.length === 1 ? fits[0] : undefined;
        if (question === undefined) throw new HostRequestError('that approval is no longer pending', 'not_found');
        if (p.decision.type === 'approve' && p.decision.alwaysAllow) {
          // Saved as the window's own "Always allow" is: the run reads the person's rules at every call.
          const settings = (await host.handle('settings.get', {})) as Settings;
          await host.handle('settings.update', { rules: [...settings.rules, p.decision.alwaysAllow] });
        }
        const decision: ApprovalDecision = p.decision.type === 'approve' ? { type: 'approve' } : p.decision.type === 'edit' ? { type: 'edit', args: p.decision.args } : p.decision;
        this.options.runs.answer(threadId, question.key, decision);
        return { ok: true };
      }
      default:
        return NOT_A_RUN;
    }
  }

  /**
   * A `deepdesk run`'s question as the window shows a pending approval of its own (as
   * ApprovalService records one), with what it shows beside it (the diff, "Always allow", where a command runs).
   */
  private async pendingOf(folder: string, request: ApprovalRequest): Promise<PendingApproval> {
    const app = this.pool.apps().find((a) => a.folder === folder);
    const extras = await app?.describeApproval(request).catch(() => undefined);
    const { callPath: _callPath, ...shown } = request;
    return { ...shown, ...extras, createdAt: new Date().toISOString() };
  }

  /** What the folder's app says of threads, with the `deepdesk run`s going on them. */
  private async withRuns(method: string, result: unknown): Promise<unknown> {
    if (method === 'threads.list') {
      return (result as ThreadSummaryDto[]).map((t) => {
        const going = this.options.runs.going(t.id);
        return going === undefined ? t : { ...t, running: true, pendingApprovals: going.questions.length };
      });
    }
    if (method === 'threads.get') {
      const view = result as ThreadView;
      const going = this.options.runs.going(view.thread.id);
      if (going === undefined) return view;
      return {
        ...view,
        thread: { ...view.thread, running: true, pendingApprovals: going.questions.length },
        approvals: await Promise.all(going.questions.map((q) => this.pendingOf(going.folder, q.request))),
        eventSeq: going.seq,
      };
    }
    return result;
  }

  /**
   * Follows a window's thread that is working or waiting for the person, as `deepdesk attach`
   * follows a run: its events as `run.event`, its approvals as `run.approval` (withdrawn with
   * `run.approvalGone` when answered anywhere), `run.end` when it stops working. Undefined when
   * no window's app has it going.
   */
  async attach(connection: HostConnection, threadId: string): Promise<AttachedRun | undefined> {
    const app = await this.appWorkingOn(threadId);
    if (app === undefined) return undefined;
    let asked = new Map<string, PendingApproval>();
    let ended = false;
    const tell = (event: string, payload: unknown) => connection.send(event, { threadId, ...(payload as object) });
    const refresh = async (): Promise<void> => {
      const view = (await app.handle('threads.get', { threadId, refresh: true })) as ThreadView;
      const now = new Map(view.approvals.map((a) => [approvalKey(a), a]));
      for (const [key, approval] of now) if (!asked.has(key)) tell('run.approval', questionOf(key, approval));
      for (const key of asked.keys()) if (!now.has(key)) tell('run.approvalGone', { key });
      asked = now;
      if (!ended && !view.thread.running && view.approvals.length === 0) {
        ended = true;
        stop();
        // As its run's record says: stopped in the window, failed, or done.
        tell('run.end', this.options.runs.recordedEnd(threadId) ?? { state: 'done', reason: 'completed', text: '' });
      }
    };
    const stop = app.onEvent((frame: EventFrame) => {
      const payload = frame.payload as { threadId?: string; seq?: number; event?: unknown };
      if (frame.event === 'thread.event' && payload.threadId === threadId) tell('run.event', { seq: payload.seq, event: payload.event });
      else if ((frame.event === 'approvals.changed' && payload.threadId === threadId) || frame.event === 'threads.changed') void refresh().catch(() => undefined);
    });
    connection.onClose(stop);
    const view = (await app.handle('threads.get', { threadId })) as ThreadView;
    asked = new Map(view.approvals.map((a) => [approvalKey(a), a]));
    return {
      threadId,
      folder: app.folder,
      state: view.approvals.length > 0 ? 'needs-you' : 'working',
      history: this.options.runs.history(threadId),
      events: [],
      dropped: 0,
      says: [],
      approvals: [...asked].map(([key, approval]) => questionOf(key, approval)),
    };
  }

  /** Answers a window's thread's approval (by the key `attach` gave it); false when no window's app has it. */
  async answer(threadId: string, key: string, decision: ApprovalDecision): Promise<boolean> {
    const app = await this.appWorkingOn(threadId);
    if (app === undefined) return false;
    const view = (await app.handle('threads.get', { threadId, refresh: true })) as ThreadView;
    const fits = view.approvals.filter((a) => approvalKey(a) === key);
    const approval = fits.length === 1 ? fits[0] : undefined;
    if (approval === undefined) throw new HostRequestError('that approval is no longer pending', 'not_found');
    await app.handle('approvals.decide', {
      threadId,
      toolCallId: approval.toolCallId,
      ...(approval.parentToolCallId !== undefined ? { parentToolCallId: approval.parentToolCallId } : {}),
      decision:
        decision.type === 'approve'
          ? { type: 'approve', answeredIn: 'terminal' }
          : { type: 'reject', answeredIn: 'terminal', ...(decision.type === 'reject' && decision.message !== undefined ? { message: decision.message } : {}) },
    });
    return true;
  }

  /** Whether a window's app has the thread working or waiting for the person. */
  async working(threadId: string): Promise<boolean> {
    return (await this.appWorkingOn(threadId)) !== undefined;
  }

  private async appWorkingOn(threadId: string): Promise<App | undefined> {
    return (await this.appsWorking()).find(({ thread }) => thread.id === threadId)?.app;
  }

  /** The folders' apps' threads that are working or waiting for the person. */
  private async appsWorking(): Promise<Array<{ app: App; thread: ThreadSummaryDto }>> {
    const working: Array<{ app: App; thread: ThreadSummaryDto }> = [];
    for (const app of this.pool.apps()) {
      const threads = (await app.handle('threads.list', {}).catch(() => [])) as ThreadSummaryDto[];
      for (const thread of threads) if (thread.running || thread.pendingApprovals > 0) working.push({ app, thread });
    }
    return working;
  }

  /** Stops a window's thread that is working; false when no window's app has it working. */
  async stop(threadId: string): Promise<boolean> {
    const app = (await this.appsWorking()).find(({ thread }) => thread.id === threadId && thread.running)?.app;
    if (app === undefined) return false;
    await app.handle('threads.stop', { threadId });
    return true;
  }

  async close(): Promise<void> {
    const windows = [...this.windows.values()];
    this.windows.clear();
    await Promise.all(windows.map((w) => w.close().catch(() => undefined)));
    await this.pool.closeAll();
  }
}

/** What a window's folder app is built from, besides the folder (a window that differs is told it shares another's). */
function appConfiguration(params: WindowOpenParams, mounts: ReturnType<typeof parseMountFlags>): string {
  const parts = {
    overrides: Object.entries(params.overrides).sort(([a], [b]) => (a < b ? -1 : 1)),
    mounts: mounts.map(({ prefix, source }) => ({ prefix, source })),
    mcpConfig: params.mcpConfig,
    env: Object.entries(params.env).sort(([a], [b]) => (a < b ? -1 : 1)),
  };
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

const NOT_A_RUN = Symbol('not a run');

/** A window's pending approval as `attach` is asked it, with the diff the window shows. */
function questionOf(key: string, { preview, ...request }: PendingApproval): PendingQuestion {
  return { key, request, ...(preview !== undefined ? { preview } : {}) };
}

function approvalKey(approval: Pick<PendingApproval, 'toolCallId' | 'parentToolCallId'>): string {
  return JSON.stringify([approval.parentToolCallId ?? null, approval.toolCallId]);
}
