// The app behind the window: builds the services for one project folder and answers the
// contract's requests. Transports (Electron IPC, the web host) only carry messages to it.

import { basename } from 'node:path';
import type Database from 'better-sqlite3';
import { suggestAllowRule, type PermissionRule } from '../core/agent/permissions/rules';
import type { ApprovalDecision, ApprovalRequest } from '../core/agent/types';
import { createDefaultMounts } from '../core/backends/mounts';
import type { Backend } from '../core/backends/protocol';
import { openDatabase } from '../core/backends/store';
import { applyEdit } from '../core/backends/text';
import { collectResponse } from '../core/models/collect';
import { createChatModel, parseModelSpec } from '../core/models/create-model';
import { ModelConfigError } from '../core/models/errors';
import { DEFAULT_CONTEXT_WINDOW, contextWindowFor } from '../core/models/model-info';
import type { ChatModel } from '../core/models/types';
import { ApprovalService, type ApprovalExtras } from './approvals/approval-service';
import { ContractError, type methods, type EventFrame, type EventName, type EventPayload, type MethodName, type Result } from './contract';
import { databasePath } from './data-dir';
import type { AppHostApi } from './host-api';
import { detectLocalServers } from './local-servers';
import { MemoriesService } from './memories/memories-service';
import type { SecretStore } from './secret-store';
import { SettingsService } from './settings/settings-service';
import { TerminalService } from './terminal/terminal-service';
import { TerminalShellBackend } from './terminal/terminal-shell-backend';
import { ThreadService } from './threads/thread-service';
import { WorkspaceService } from './workspace/workspace-service';
import type { z } from 'zod';

export interface AppOptions {
  folder: string;
  dataDir: string;
  secrets: SecretStore;
  transport: 'electron' | 'web';
  version?: string;
  /** Session overrides from the command line (`deepdesk serve --model …`); not saved. */
  overrides?: { model?: string; baseUrl?: string; apiKey?: string; contextWindow?: number };
  /** Electron only: asks for a folder. */
  pickFolder?: () => Promise<string | null>;
  /** Electron only: reopens the app on the folder the person picked. */
  openFolder?: (folder: string) => void;
  env?: NodeJS.ProcessEnv;
}

export interface App extends AppHostApi {
  readonly folder: string;
  close(): Promise<void>;
}

type Handlers = { [M in MethodName]: (params: z.output<(typeof methods)[M]['params']>) => Promise<Result<M>> };

export async function createApp(options: AppOptions): Promise<App> {
  const env = options.env ?? process.env;
  const db: Database.Database = openDatabase(databasePath(options.dataDir));
  const listeners = new Set<(frame: EventFrame) => void>();
  const send = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    for (const l of listeners) l({ event, payload });
  };

  const settings = new SettingsService(options.dataDir, options.secrets, env);
  settings.onChange((s) => send('settings.changed', withOverrides(s)));
  const overrides = options.overrides ?? {};
  const withOverrides = <T extends { model: string; baseUrl: string; contextWindow?: number }>(s: T): T => ({
    ...s,
    ...(overrides.model ? { model: overrides.model } : {}),
    ...(overrides.baseUrl ? { baseUrl: overrides.baseUrl } : {}),
    ...(overrides.contextWindow ? { contextWindow: overrides.contextWindow } : {}),
  });

  const shared = createDefaultMounts({ folder: options.folder, db, execute: false });
  const terminals = new TerminalService({ rootDir: options.folder });
  // The window acknowledges what it rendered, so a flood of output cannot outrun it.
  terminals.onData((threadId, data) => send('terminal.data', { threadId, data }), { acks: true });

  const approvals = new ApprovalService(db, (request) => describeApproval(request, shared.backend));
  approvals.onChange((threadId) => send('approvals.changed', { threadId }));

  const modelFor = async (spec: string, baseUrl?: string, apiKey?: string): Promise<ChatModel> => {
    const { provider } = parseModelSpec(spec);
    const key = apiKey ?? overrides.apiKey ?? (await settings.apiKeyFor(provider));
    const current = withOverrides(settings.raw());
    return createChatModel({
      model: spec,
      env,
      ...(baseUrl ? { baseUrl } : {}),
      ...(key ? { apiKey: key } : {}),
      ...(current.contextWindow ? { contextWindow: current.contextWindow } : {}),
    });
  };

  const threads = new ThreadService({
    db,
    folder: options.folder,
    approvals,
    createModel: async () => {
      const current = withOverrides(settings.raw());
      if (current.model.trim() === '') throw new ContractError('No model is configured yet. Open Settings and choose a provider and model.', 'failed');
      try {
        return await modelFor(current.model, current.baseUrl || undefined);
      } catch (err) {
        if (err instanceof ModelConfigError) throw new ContractError(`${err.message}. Check Settings.`, 'failed');
        throw err;
      }
    },
    rules: () => settings.raw().rules as PermissionRule[],
    subagents: () => settings.raw().subagents,
    contextWindow: () => withOverrides(settings.raw()).contextWindow,
    folderBackendFor: (threadId) => new TerminalShellBackend({ rootDir: options.folder, terminal: terminals.terminalFor(threadId) }),
    emit: (e) => {
      if (e.kind === 'thread-event') send('thread.event', { threadId: e.threadId, seq: e.seq, event: e.event as unknown as EventPayload<'thread.event'>['event'] });
      else if (e.kind === 'threads-changed') send('threads.changed', {});
      else send('memories.changed', {});
    },
  });

  const workspace = new WorkspaceService({ folder: options.folder, backend: shared.folder, onChange: (paths) => send('files.changed', { paths }) });
  await workspace.start();
  const memories = new MemoriesService(shared.memories, () => send('memories.changed', {}));

  const ok = { ok: true as const };
  const handlers: Handlers = {
    'app.info': async () => ({
      folder: options.folder,
      folderName: basename(options.folder),
      version: options.version ?? '0.0.0',
      transport: options.transport,
      canPickFolder: options.pickFolder !== undefined,
    }),
    'app.pickFolder': async () => {
      const folder = options.pickFolder ? await options.pickFolder() : null;
      if (folder !== null && folder !== options.folder) setImmediate(() => options.openFolder?.(folder));
      return { folder };
    },

    'settings.get': async () => withOverrides(await settings.get()),
    'settings.update': async (patch) => withOverrides(await settings.update(patch)),
    'settings.setApiKey': async ({ provider, key }) => withOverrides(await settings.setApiKey(provider, key)),
    'settings.testConnection': async ({ model, baseUrl, apiKey }) => testConnection(() => modelFor(model, baseUrl, apiKey)),
    'settings.detectLocalServers': () => detectLocalServers(),

    'threads.list': async () => threads.list(),
    'threads.create': async ({ title }) => threads.create(title),
    'threads.get': async ({ threadId }) => {
      const view = threads.get(threadId);
      return view.contextWindow > 0 ? view : { ...view, contextWindow: contextWindowNow() };
    },
    'threads.rename': async ({ threadId, title }) => (threads.rename(threadId, title), ok),
    'threads.delete': async ({ threadId }) => {
      await threads.delete(threadId);
      terminals.close(threadId);
      return ok;
    },
    'threads.send': async ({ threadId, text }) => (await threads.send(threadId, text), ok),
    'threads.stop': async ({ threadId }) => (await threads.stop(threadId), ok),
    'threads.retry': async ({ threadId }) => (await threads.retry(threadId), ok),
    'threads.readArchive': async ({ threadId, path }) => ({ text: await threads.readThreadFile(threadId, path) }),

    'approvals.decide': async ({ threadId, toolCallId, decision }) => {
      if (decision.type === 'approve' && decision.alwaysAllow) {
        const rule = decision.alwaysAllow;
        await settings.update({ rules: [...settings.raw().rules, rule] });
      }
      const core: ApprovalDecision =
        decision.type === 'approve' ? { type: 'approve' } : decision.type === 'edit' ? { type: 'edit', args: decision.args } : decision;
      if (!approvals.resolve(threadId, toolCallId, core)) throw new ContractError('that approval is no longer pending', 'not_found');
      return ok;
    },

    'files.list': ({ path }) => workspace.list(path),
    'files.read': ({ path }) => workspace.read(path),
    'files.search': ({ query, limit }) => workspace.search(query, limit),

    'memories.list': ({ query }) => memories.list(query),
    'memories.read': ({ path }) => memories.read(path),
    'memories.write': async ({ path, text }) => (await memories.write(path, text), ok),
    'memories.delete': async ({ path }) => (await memories.delete(path), ok),

    'terminal.attach': async ({ threadId }) => ({ buffer: terminals.attach(threadId) }),
    'terminal.detach': async ({ threadId }) => (terminals.detach(threadId), ok),
    'terminal.input': async ({ threadId, data }) => (terminals.input(threadId, data), ok),
    'terminal.resize': async ({ threadId, cols, rows }) => (terminals.resize(threadId, cols, rows), ok),
    'terminal.ack': async ({ threadId, bytes }) => (terminals.ack(threadId, bytes), ok),
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
    async handle(method, params) {
      const handler = handlers[method] as (p: unknown) => Promise<unknown>;
      return handler(params);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await threads.dispose();
      terminals.dispose();
      await workspace.dispose();
      db.close();
    },
  };
}

/** The diff preview and the suggested "always allow" rule shown in the approval dialog. */
async function describeApproval(request: ApprovalRequest, backend: Backend): Promise<ApprovalExtras> {
  const extras: ApprovalExtras = { suggestedRule: suggestAllowRule({ tool: request.toolName, args: request.args }) };
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

async function testConnection(make: () => Promise<ChatModel>): Promise<{ ok: boolean; message: string }> {
  try {
    const model = await make();
    const started = Date.now();
    const response = await collectResponse(
      model.stream({ system: 'You are a connection test.', messages: [{ role: 'user', content: 'Reply with the single word OK.' }], tools: [], maxOutputTokens: 16, signal: AbortSignal.timeout(30_000) }),
    );
    return { ok: true, message: `Connected to ${model.id} in ${Date.now() - started} ms: "${response.text.trim().slice(0, 60)}"` };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
