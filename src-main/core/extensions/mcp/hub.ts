// The MCP servers of one folder (SPEC §10): started in parallel, listed (tools, resources,
// prompts, re-listed on list_changed), called with a per-entry timeout and Stop, and
// stopped or restarted when their entries change. A server that fails never blocks the others.
import { basename } from 'node:path';
import { packageRunnerOf } from '../../config/package-runners';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MCP_STARTUP_TIMEOUT_MS, type McpRemoteServerConfig, type McpServerConfig } from '../../config/mcp-config-types';
import { canonicalJson } from '../../text/canonical-json';
import { oneLine } from '../../text/markdown-code';
import { errorText, type ToolOutput } from '../../tools/tool';
import { qualifyAll, serverParts } from './naming';
import { memoryTokenStore, McpOAuthProvider, oauthKey, startRedirectListener, type McpTokenStore } from './oauth';
import { blockText, mcpResultOutput, type McpCallResult, type McpContentBlock } from './results';
import { loadedSdk, loadMcpSdk, type McpSdk } from './sdk';
import { startStdioServer, type StdioServerProcess } from './stdio-transport';
import type { ProcessExit } from '../../sandbox/supervisor-types';
import type { McpHubApi, McpPromptInfo, McpResourceInfo, McpServerState, McpStatus, McpToolInfo } from './types';
import { messageOf } from '../../fs/errno';

export interface McpHubOptions {
  /** The project folder (real path): stdio servers' cwd and, sandboxed, their writable folder. */
  folder: string;
  dataDir: string;
  /** Deepdesk's environment (scrubbed for each server by the stdio transport). */
  env: NodeJS.ProcessEnv;
  /** Opens the person's browser on the sign-in page. */
  openBrowser?: (url: string) => void | Promise<void>;
  /** The app's secret store, for OAuth tokens (kept in memory without it). */
  tokens?: McpTokenStore;
  clientInfo: { name: string; version: string };
  /** Overrides MCP_STARTUP_TIMEOUT_MS (tests). */
  startupTimeoutMs?: number;
}

const LOG_LINES = 50;
/** A guard against a server whose cursors never end; cursors seen before end the listing too. */
const MAX_PAGES = 10_000;

/** One configured server and whatever is running for it. */
interface Slot {
  config: McpServerConfig;
  /** What decides whether a changed entry restarts it. */
  key: string;
  /** The server's part of its tools' and prompts' names (naming.ts); null: another server's would be the same, so it is refused. */
  part: string | null;
  status: McpStatus;
  error?: string;
  tools: McpToolInfo[];
  resources: McpResourceInfo[];
  prompts: McpPromptInfo[];
  log: string[];
  client?: Client;
  process?: StdioServerProcess;
  /** The stderr tail of the process that ran last (kept once it is gone). */
  lastStderr?: string;
  /** Set once it is being stopped: its closing is then no failure. */
  stopping: boolean;
  /** Set when its start failed (a timeout): whatever that start still makes is ended at once. */
  abandoned: boolean;
  /** Re-lists under way after a list_changed notification (a call's result waits for them). */
  refreshing: Set<Promise<void>>;
  started?: Promise<void>;
}

export class McpHub implements McpHubApi {
  private slots = new Map<string, Slot>();
  private readonly listeners = new Set<() => void>();
  private readonly tokenStore: McpTokenStore;
  private toolIndex: Map<string, { slot: Slot; tool: McpToolInfo }> | null = null;
  private closed = false;

  constructor(private readonly options: McpHubOptions) {
    this.tokenStore = options.tokens ?? memoryTokenStore();
  }

  async configure(servers: readonly McpServerConfig[], untrusted: readonly McpServerConfig[]): Promise<void> {
    if (this.closed) return;
    const next = new Map<string, Slot>();
    const starting: Slot[] = [];
    const stopping: Slot[] = [];
    const parts = serverParts([...servers, ...untrusted].map((c) => c.name));
    for (const config of servers) {
      const key = slotKey(config);
      const part = parts.get(config.name) ?? null;
      const old = this.slots.get(config.name);
      // An entry listed as not trusted before is started once it is trusted (`disabled` is in the key).
      if (old !== undefined && old.key === key && old.part === part && old.status !== 'not-trusted') {
        next.set(config.name, old);
        continue;
      }
      if (old !== undefined) stopping.push(old);
      const slot = newSlot(config, part, config.disabled ? 'disabled' : part === null ? 'failed' : 'starting');
      if (part === null && !config.disabled) {
        slot.error = `its tools would be named like another MCP server's (${config.name} cleans to the same name); rename one of them`;
        appendLog(slot, `failed: ${slot.error}`);
      }
      next.set(config.name, slot);
      if (slot.status === 'starting') starting.push(slot);
    }
    for (const config of untrusted) {
      if (next.has(config.name)) continue;
      const old = this.slots.get(config.name);
      if (old !== undefined) stopping.push(old);
      next.set(config.name, newSlot(config, parts.get(config.name) ?? null, 'not-trusted'));
    }
    for (const [name, old] of this.slots) if (!next.has(name) && !stopping.includes(old)) stopping.push(old);
    this.slots = next;
    this.changed();
    await Promise.all([...stopping.map((s) => this.stopSlot(s)), ...starting.map((s) => this.startSlot(s))]);
  }

  states(): McpServerState[] {
    return [...this.slots.values()].map((slot) => ({
      name: slot.config.name,
      config: slot.config,
      status: slot.status,
      ...(slot.error !== undefined ? { error: slot.error } : {}),
      tools: slot.tools,
      log: logTail(slot),
    }));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  tools(): McpToolInfo[] {
    return [...this.index().values()].map((entry) => entry.tool);
  }

  resources(): McpResourceInfo[] {
    return [...this.slots.values()].flatMap((slot) => (slot.status === 'connected' ? slot.resources : []));
  }

  prompts(): McpPromptInfo[] {
    return [...this.slots.values()].flatMap((slot) => (slot.status === 'connected' ? slot.prompts : []));
  }

  async callTool(qualifiedName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutput> {
    const entry = this.index().get(qualifiedName);
    if (entry === undefined) return errorText(`no connected MCP server offers a tool '${qualifiedName}'`);
    const { slot, tool } = entry;
    const client = slot.client;
    if (client === undefined) return errorText(`MCP server ${slot.config.name} is not connected`);
    const timeoutMs = slot.config.timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('timed out')), timeoutMs);
    try {
      const result = (await client.callTool({ name: tool.name, arguments: args }, undefined, {
        signal: AbortSignal.any([signal, timeout.signal]),
        // Ours fires first and says so in the entry's terms; the SDK's is a backstop.
        timeout: timeoutMs + 5_000,
      })) as McpCallResult;
      // A list_changed that the call caused is picked up before the model sees the result.
      await Promise.all([...slot.refreshing]);
      return await this.accepted(slot, qualifiedName, mcpResultOutput(result));
    } catch (err) {
      if (signal.aborted) return errorText(`${qualifiedName} was cancelled`);
      if (timeout.signal.aborted) return errorText(`MCP tool ${qualifiedName} timed out after ${seconds(timeoutMs)} s`);
      return errorText(`MCP tool ${qualifiedName} failed: ${messageOf(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A result is accepted only once what the server did meanwhile was checked (SPEC §7): what
   * git would run outside the sandbox is undone and said after the result; a check that
   * could not be made, or a change that could not be undone, refuses the result.
   */
  private async accepted(slot: Slot, qualifiedName: string, output: ToolOutput): Promise<ToolOutput> {
    try {
      const blockedLine = await this.checkedEffects(slot);
      return blockedLine === undefined ? output : { ...output, text: `${output.text}\n${blockedLine}` };
    } catch (err) {
      return errorText(`MCP tool ${qualifiedName}: ${messageOf(err)}; its result was not accepted`);
    }
  }

  /** A stdio server's effects checked (see accepted): the blocked line; throws when they could not be checked or undone. */
  private async checkedEffects(slot: Slot): Promise<string | undefined> {
    const proc = slot.process;
    if (proc === undefined) return undefined;
    let found;
    try {
      found = await proc.checkEffects();
    } catch (err) {
      appendLog(slot, `could not check what it changed: ${logLine(messageOf(err))}`);
      throw new Error(`what the server changed in the folder could not be checked (${logLine(messageOf(err))})`, { cause: err });
    }
    if (found.unremoved.length > 0) throw new Error(`the server made changes git would run outside the sandbox that could not be undone (${found.unremoved.join(', ')})`);
    return found.blockedLine;
  }

  async readResource(server: string, uri: string, signal?: AbortSignal): Promise<{ text: string; image?: { mimeType: string; data: string } }> {
    const client = this.connectedClient(server);
    const result = await client.readResource({ uri }, signal ? { signal } : undefined);
    // Accepted, as a tool's result is, once what the server did meanwhile was checked (said in its log).
    await this.checkedEffects(this.slots.get(server)!);
    const parts: string[] = [];
    let image: { mimeType: string; data: string } | undefined;
    for (const content of result.contents) {
      if ('text' in content && typeof content.text === 'string') parts.push(content.text);
      else if ('blob' in content && typeof content.blob === 'string') {
        if (image === undefined && content.mimeType?.startsWith('image/')) image = { mimeType: content.mimeType, data: content.blob };
        else parts.push(blockText({ type: 'resource', resource: content }, null).text ?? '');
      }
    }
    return { text: parts.join('\n'), ...(image ? { image } : {}) };
  }

  async getPrompt(qualifiedName: string, args: Record<string, string>, signal?: AbortSignal): Promise<string> {
    const prompt = this.prompts().find((p) => p.qualifiedName === qualifiedName);
    if (prompt === undefined) throw new Error(`no connected MCP server offers a prompt '${qualifiedName}'`);
    const client = this.connectedClient(prompt.server);
    const result = await client.getPrompt({ name: prompt.name, arguments: args }, signal ? { signal } : undefined);
    await this.checkedEffects(this.slots.get(prompt.server)!);
    return result.messages.map((m) => blockText(m.content as McpContentBlock, null).text ?? '').join('\n\n');
  }

  async signIn(server: string): Promise<void> {
    const slot = this.slots.get(server);
    if (slot === undefined) throw new Error(`no MCP server named ${server}`);
    if (slot.config.type === 'stdio') throw new Error(`MCP server ${server} runs on this machine and needs no sign-in`);
    const config = slot.config;
    let provider: McpOAuthProvider | undefined;
    const { auth } = await loadMcpSdk();
    const listener = await startRedirectListener(() => provider?.expectedState);
    try {
      provider = new McpOAuthProvider(this.tokenStore, oauthKey(server, config.url), {
        clientName: this.options.clientInfo.name,
        redirectUrl: listener.url,
        onRedirect: async (url) => {
          appendLog(slot, `sign-in: opening ${url.origin}${url.pathname} in the browser`);
          if (this.options.openBrowser === undefined) throw new Error(`no browser to sign in with; open ${url.href}`);
          await this.options.openBrowser(url.href);
        },
      });
      const first = await auth(provider, { serverUrl: config.url });
      if (first === 'REDIRECT') {
        const code = await listener.code;
        await auth(provider, { serverUrl: config.url, authorizationCode: code });
      }
      appendLog(slot, 'sign-in: signed in');
    } finally {
      listener.close();
    }
    await this.restart(server);
  }

  async restart(server: string): Promise<void> {
    const old = this.slots.get(server);
    if (old === undefined || this.closed) return;
    await this.stopSlot(old);
    if (this.slots.get(server) !== old) return;
    // A server refused for its name stays refused (its error with it).
    const status: McpStatus = old.status === 'not-trusted' ? 'not-trusted' : old.config.disabled ? 'disabled' : old.part === null ? 'failed' : 'starting';
    const slot = newSlot(old.config, old.part, status);
    if (status === 'failed' && old.error !== undefined) slot.error = old.error;
    slot.log = old.log;
    slot.lastStderr = old.lastStderr;
    this.slots.set(server, slot);
    this.changed();
    if (status === 'starting') await this.startSlot(slot);
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = [...this.slots.values()];
    await Promise.all(slots.map((s) => this.stopSlot(s)));
    this.changed();
  }

  private connectedClient(server: string): Client {
    const slot = this.slots.get(server);
    if (slot === undefined) throw new Error(`no MCP server named ${server}`);
    if (slot.status !== 'connected' || slot.client === undefined) throw new Error(`MCP server ${server} is not connected (${slot.status})`);
    return slot.client;
  }

  private index(): Map<string, { slot: Slot; tool: McpToolInfo }> {
    if (this.toolIndex === null) {
      this.toolIndex = new Map();
      // Server parts are unique (naming.ts), so no two servers' tools share a name.
      for (const slot of this.slots.values()) {
        if (slot.status !== 'connected') continue;
        for (const tool of slot.tools) this.toolIndex.set(tool.qualifiedName, { slot, tool });
      }
    }
    return this.toolIndex;
  }

  private changed(): void {
    this.toolIndex = null;
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  private isCurrent(slot: Slot): boolean {
    return !slot.stopping && !slot.abandoned && this.slots.get(slot.config.name) === slot;
  }

  private startSlot(slot: Slot): Promise<void> {
    slot.started = this.connect(slot);
    return slot.started;
  }

  private async connect(slot: Slot): Promise<void> {
    const timeoutMs = this.options.startupTimeoutMs ?? MCP_STARTUP_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not start within ${seconds(timeoutMs)} s`)), timeoutMs);
    });
    try {
      await Promise.race([this.open(slot), timedOut]);
      if (!this.isCurrent(slot)) return;
      await Promise.race([this.listAll(slot), timedOut]);
      if (!this.isCurrent(slot)) return;
      slot.status = 'connected';
      slot.error = undefined;
      this.changed();
    } catch (err) {
      if (!this.isCurrent(slot)) return;
      slot.abandoned = true;
      if (needsSignIn(err)) {
        slot.status = 'needs-sign-in';
        slot.error = 'the server asks to sign in';
      } else {
        slot.status = 'failed';
        slot.error = logLine(await this.failure(slot, messageOf(err)));
      }
      appendLog(slot, `${slot.status}: ${slot.error}`);
      await this.release(slot);
      this.changed();
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts the server (stdio) or reaches it (remote) and runs the MCP handshake. */
  private async open(slot: Slot): Promise<void> {
    const config = slot.config;
    const sdk = await loadMcpSdk();
    if (config.type === 'stdio') {
      const proc = await startStdioServer(config, { folder: this.options.folder, dataDir: this.options.dataDir, env: this.options.env });
      // Stopped or given up on while it started: nobody else will end it.
      if (!this.isCurrent(slot)) {
        await proc.stop().catch(() => undefined);
        return;
      }
      slot.process = proc;
      void proc.exited.then((exit) => this.died(slot, proc.protocolError() ?? exitText(exit)));
      await this.handshake(sdk, slot, proc.transport);
      return;
    }
    appendLog(slot, `connecting to ${config.url}`);
    const provider = await this.storedAuth(config);
    if (config.type === 'sse') {
      await this.handshake(sdk, slot, sseTransport(sdk, config, provider));
      return;
    }
    try {
      await this.handshake(sdk, slot, httpTransport(sdk, config, provider));
    } catch (err) {
      if (needsSignIn(err) || !this.isCurrent(slot)) throw err;
      // Older servers speak only HTTP+SSE.
      appendLog(slot, `streamable HTTP failed (${logLine(messageOf(err))}); trying SSE`);
      try {
        await this.handshake(sdk, slot, sseTransport(sdk, config, provider));
      } catch (sseErr) {
        if (needsSignIn(sseErr)) throw sseErr;
        throw new Error(`${logLine(messageOf(err))} (and over SSE: ${logLine(messageOf(sseErr))})`, { cause: sseErr });
      }
    }
  }

  /** Stored OAuth tokens for this server, if it was signed in to (nothing opens a browser here). */
  private async storedAuth(config: McpRemoteServerConfig): Promise<McpOAuthProvider | undefined> {
    const provider = new McpOAuthProvider(this.tokenStore, oauthKey(config.name, config.url), { clientName: this.options.clientInfo.name });
    return (await provider.hasTokens()) ? provider : undefined;
  }

  private async handshake(sdk: McpSdk, slot: Slot, transport: Transport): Promise<void> {
    const client = new sdk.Client(this.options.clientInfo, { capabilities: {} });
    client.onerror = (err) => appendLog(slot, `error: ${logLine(messageOf(err))}`);
    client.onclose = () => {
      const proc = slot.process;
      if (proc === undefined) this.died(slot, 'the connection closed');
      else void proc.exited.then((exit) => this.died(slot, proc.protocolError() ?? exitText(exit)));
    };
    slot.client = client;
    await client.connect(transport);
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => this.refresh(slot, 'tools'));
    client.setNotificationHandler(sdk.ResourceListChangedNotificationSchema, () => this.refresh(slot, 'resources'));
    client.setNotificationHandler(sdk.PromptListChangedNotificationSchema, () => this.refresh(slot, 'prompts'));
  }

  /** A connected server went away: failed, with its last words. */
  private died(slot: Slot, why: string): void {
    if (!this.isCurrent(slot) || slot.status !== 'connected') return;
    slot.status = 'failed';
    slot.error = logLine(withLastLine(why, slot.process?.logTail()));
    appendLog(slot, why);
    void this.release(slot).then(() => this.changed());
    this.changed();
  }

  /** Why a start failed, with how the process ended and its last stderr line when it did end. */
  private async failure(slot: Slot, message: string): Promise<string> {
    const proc = slot.process;
    if (proc === undefined) return message;
    const exit = await Promise.race([proc.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 200).unref())]);
    const broken = proc.protocolError();
    if (broken !== undefined) return broken;
    const why = exit === null ? message : `${message}; ${exitText(exit)}`;
    // What the sandbox refused it (a host, a path) is most often why, and says how to allow it.
    const blocked = await this.checkedEffects(slot).catch(() => undefined);
    const refused = blocked === undefined ? '' : `; ${blocked} (to allow it: its entry's "allowedDomains" for a host, or "sandbox": false)`;
    const tail = proc.logTail();
    // Nothing printed at all: say what was run, for the person to try it themselves; a package
    // runner that did not finish was most likely still fetching its package.
    const config = slot.config;
    const runner = config.type === 'stdio' && packageRunnerOf(config.command, config.args) !== undefined;
    const fetching = runner && message.startsWith('did not start') && config.type === 'stdio' ? `; ${basename(config.command)} may still have been fetching its package (the sandbox lets it reach ${config.allowedDomains.join(', ') || 'no host'})` : '';
    const ran = tail.trim() === '' && config.type === 'stdio' ? `; it printed nothing (it ran: ${[config.command, ...config.args].join(' ')})` : '';
    return withLastLine(`${why}${refused}${fetching}${ran}`, tail);
  }

  private async listAll(slot: Slot): Promise<void> {
    await Promise.all([this.list(slot, 'tools'), this.list(slot, 'resources'), this.list(slot, 'prompts')]);
  }

  private refresh(slot: Slot, what: 'tools' | 'resources' | 'prompts'): void {
    const run = this.list(slot, what)
      .then(() => {
        if (this.isCurrent(slot) && slot.status === 'connected') this.changed();
      })
      .catch((err: unknown) => appendLog(slot, `re-listing ${what} failed: ${logLine(messageOf(err))}`))
      .finally(() => slot.refreshing.delete(run));
    slot.refreshing.add(run);
  }

  private async list(slot: Slot, what: 'tools' | 'resources' | 'prompts'): Promise<void> {
    const client = slot.client;
    const caps = client?.getServerCapabilities();
    if (client === undefined || caps?.[what] === undefined) return;
    const server = slot.config.name;
    if (what === 'tools') {
      const tools = await pages((cursor) => client.listTools(cursor ? { cursor } : {}).then((r) => ({ items: r.tools, next: r.nextCursor })));
      const names = qualifyAll(slot.part!, tools.map((t) => t.name));
      slot.tools = tools.map((t, i) => ({
        server,
        name: t.name,
        qualifiedName: names[i]!,
        description: t.description ?? t.title ?? '',
        inputSchema: t.inputSchema as Record<string, unknown>,
        readOnly: t.annotations?.readOnlyHint === true,
      }));
    } else if (what === 'resources') {
      const resources = await pages((cursor) => client.listResources(cursor ? { cursor } : {}).then((r) => ({ items: r.resources, next: r.nextCursor })));
      slot.resources = resources.map((r) => ({
        server,
        uri: r.uri,
        name: r.name,
        ...(r.description !== undefined ? { description: r.description } : {}),
        ...(r.mimeType !== undefined ? { mimeType: r.mimeType } : {}),
      }));
    } else {
      const prompts = await pages((cursor) => client.listPrompts(cursor ? { cursor } : {}).then((r) => ({ items: r.prompts, next: r.nextCursor })));
      const names = qualifyAll(slot.part!, prompts.map((p) => p.name));
      slot.prompts = prompts.map((p, i) => ({
        server,
        name: p.name,
        qualifiedName: names[i]!,
        ...(p.description !== undefined ? { description: p.description } : {}),
        arguments: (p.arguments ?? []).map((a) => ({ name: a.name, ...(a.description !== undefined ? { description: a.description } : {}), required: a.required === true })),
      }));
    }
  }

  private async stopSlot(slot: Slot): Promise<void> {
    slot.stopping = true;
    await this.release(slot);
  }

  /** Closes the connection and ends the server's process tree. */
  private async release(slot: Slot): Promise<void> {
    const { client, process } = slot;
    slot.client = undefined;
    slot.process = undefined;
    if (process !== undefined) slot.lastStderr = process.logTail();
    if (client !== undefined) client.onclose = undefined;
    await client?.close().catch(() => undefined);
    await process?.stop().catch(() => undefined);
    // With what its last check at its end found (what was undone, or could not be).
    if (process !== undefined) slot.lastStderr = process.logTail();
  }
}

function newSlot(config: McpServerConfig, part: string | null, status: McpStatus): Slot {
  return { config, key: slotKey(config), part, status, tools: [], resources: [], prompts: [], log: [], stopping: false, abandoned: false, refreshing: new Set() };
}

/** An entry restarts when what it was written as or what it expanded to changed (not where it was read from). */
function slotKey(config: McpServerConfig): string {
  const { source: _source, ...rest } = config;
  return canonicalJson(rest);
}

function httpTransport(sdk: McpSdk, config: McpRemoteServerConfig, provider: McpOAuthProvider | undefined): Transport {
  return new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, ...(provider ? { authProvider: provider } : {}) });
}

function sseTransport(sdk: McpSdk, config: McpRemoteServerConfig, provider: McpOAuthProvider | undefined): Transport {
  return new sdk.SSEClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers },
    // The event stream's GET carries the entry's headers too.
    eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...config.headers } }) },
    ...(provider ? { authProvider: provider } : {}),
  });
}

async function pages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next?: string | undefined }>): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const { items, next } = await page(cursor);
    all.push(...items);
    if (next === undefined || next === '' || seen.has(next)) break;
    seen.add(next);
    cursor = next;
  }
  return all;
}

function needsSignIn(err: unknown): boolean {
  if (loadedSdk !== undefined && err instanceof loadedSdk.UnauthorizedError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return code === 401;
}

function appendLog(slot: Slot, line: string): void {
  slot.log.push(line);
  if (slot.log.length > LOG_LINES) slot.log.splice(0, slot.log.length - LOG_LINES);
}

function logTail(slot: Slot): string {
  const stderr = slot.process?.logTail() ?? slot.lastStderr ?? '';
  return [stderr, slot.log.join('\n')].filter((t) => t !== '').join('\n');
}

function exitText(exit: ProcessExit): string {
  if (exit.signal !== null) return `the server was killed (${exit.signal})`;
  return exit.code !== null ? `the server exited with code ${exit.code}` : 'the server exited';
}

/** Lines that say why a program failed (a refused connection, a path it could not write), as package runners print them. */
const TELLING = /\b(?:ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EACCES|EROFS|EPERM|E404|E401|E403)\b|\b40[134]\b.*(?:Forbidden|Unauthorized|Not Found)|permission denied|read-only file system|no such file|not found|cannot find module/i;
/** What a package runner adds after its error, saying nothing of it. */
const FILLER = /A complete log of this run can be found in|^npm (?:error|ERR!)\s*$/;
const SANDBOX_ERRNO = /\b(?:ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EACCES|EROFS|EPERM|E403)\b|Forbidden|permission denied|read-only file system/i;

/** The failure with the line of its output that says most about it (the last telling line, else the last). */
function withLastLine(why: string, stderr: string | undefined): string {
  const lines = (stderr ?? '').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !FILLER.test(l));
  const telling = lines.filter((l) => TELLING.test(l)).slice(-2).join('; ');
  const line = telling !== '' ? telling : lines.at(-1);
  if (line === undefined) return why;
  const hint = SANDBOX_ERRNO.test(line) && !why.includes('to allow it') ? ' (in the sandbox a server reaches only its entry\'s "allowedDomains" and writes only the folder and its temp folder; "sandbox": false runs it outside)' : '';
  return `${why} (its ${telling !== '' ? 'output' : 'last output'}: ${line})${hint}`;
}

/** `60`, `1.5`: the timeout as the error message says it. */
export function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

const logLine = (text: string): string => oneLine(text, 300);
