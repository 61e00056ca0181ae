// The folder's MCP servers for the window (SPEC §10): which entries load (the person's
// mcp.json, the folder's .mcp.json once trusted, --mcp-config files), the hub that runs
// them, and the Settings region's edits. The trust question is the app's (app/trust/). Every change to one of the files
// (here, by `deepdesk mcp add` in another process, by a `git pull` of .mcp.json) reloads.

import { join } from 'node:path';
import { z } from 'zod';
import { entryProblem, readJsonObject, removeServerEntry, setServerDisabled, writeServerEntry } from '../../core/config/mcp-config';
import { recordShape, JsonFileStore, type JsonFileProblem } from '../../core/config/json-file-store';
import type { McpHubApi, McpServerState, McpStatus } from '../../core/extensions/mcp/types';
import { userMcpFile } from '../../core/config/kinds/mcp';
import { loadProjectConfiguration } from '../../core/extensions/mcp/project-configuration';
import type { TrustGate } from '../../core/trust/types';
import { mergeServers } from '../../core/config/mcp-config';
import type { McpServerConfig } from '../../core/config/mcp-config-types';
import { ContractError, type McpListDto, type McpServerDto } from '../contract';

const RELOAD_DEBOUNCE_MS = 150;

export interface McpServiceOptions {
  /** The project folder's real path. */
  folder: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  hub: McpHubApi;
  /** `--mcp-config FILE` of `deepdesk serve` (read on every reload). */
  cliFiles?: readonly string[];
  /** What the session trusts (trust.json, shared with the trust question, and `--trust`'s grants). */
  trust: TrustGate;
  /** Servers the client gives itself (an editor's), merged after the files (later wins). */
  extraServers?: readonly McpServerConfig[];
  onChange(): void;
  onProblem?(problem: JsonFileProblem): void;
  /** A problem of work done in the background (a sign-in), for the person. */
  onNotice?(message: string): void;
}

const folderStateSchema = z.object({ disabled: z.array(z.string()).optional() });

export class McpService {
  /** Per folder, the servers of its .mcp.json or of --mcp-config the person turned off. */
  private readonly folderState: JsonFileStore<Record<string, z.output<typeof folderStateSchema>>>;
  private problems: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private loading: Promise<void> = Promise.resolve();
  /** The starts and stops of the reloads so far, under way. */
  private readonly starting = new Set<Promise<void>>();
  private closed = false;
  private readonly stopHub: () => void;

  constructor(private readonly options: McpServiceOptions) {
    this.folderState = new JsonFileStore({
      path: join(options.dataDir, 'mcp-folders.json'),
      shape: recordShape(folderStateSchema),
      defaultsText: 'every MCP server of these folders is enabled again',
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
    });
    this.stopHub = options.hub.onChange(() => options.onChange());
  }

  get userFile(): string {
    return userMcpFile(this.options.dataDir);
  }

  /** Loads the configuration and starts the servers; resolves once they connected or failed. */
  async start(): Promise<void> {
    await this.reload();
    await this.settled();
  }

  /**
   * Reads the files again and brings the hub in line (serialised: one reload at a time).
   * Resolves once the hub has the new configuration (a server to start is listed `Starting`);
   * the servers start in the background, each change told by onChange, so a request that
   * reloads answers at once however slow a server is to start (issue 42).
   */
  reload(): Promise<void> {
    this.loading = this.loading.then(() => this.load()).catch((err: unknown) => {
      this.problems = [`MCP servers could not be loaded: ${err instanceof Error ? err.message : String(err)}`];
      this.options.onChange();
    });
    return this.loading;
  }

  /** Resolves when every reload so far is done, its servers connected or failed. */
  async settled(): Promise<void> {
    await this.loading;
    await Promise.all([...this.starting]);
  }

  private async load(): Promise<void> {
    if (this.closed) return;
    const loaded = await loadProjectConfiguration({
      folder: this.options.folder,
      dataDir: this.options.dataDir,
      env: this.options.env,
      mcpConfigFiles: this.options.cliFiles ?? [],
      trustForRun: false,
      store: this.options.trust,
    });
    this.problems = loaded.problems;
    const off = new Set(this.folderState.current()[this.options.folder]?.disabled ?? []);
    const configured = this.options.extraServers?.length ? mergeServers(loaded.servers, this.options.extraServers) : loaded.servers;
    const servers = configured.map((s) => (s.source.kind !== 'user' && off.has(s.name) ? { ...s, disabled: true } : s));
    const running = new Set(servers.map((s) => s.name));
    // configure sets the new slots before its first wait: what it returns is the starts and
    // stops, left to go on (a later reload keeps a server that is still starting as it is).
    const startsAndStops: Promise<void> = this.options.hub
      .configure(servers, loaded.untrusted.filter((s) => !running.has(s.name)))
      .catch(() => undefined)
      .then(() => {
        this.starting.delete(startsAndStops);
        this.options.onChange();
      });
    this.starting.add(startsAndStops);
    this.options.onChange();
  }

  /** Reloads a moment later (changes come in bursts: a checkout, an editor's save). */
  scheduleReload(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.reload();
    }, RELOAD_DEBOUNCE_MS);
  }

  /** What did not load or start, one line each, for a command's session (the window lists them in Settings). */
  problemLines(): string[] {
    const lines = [...this.problems];
    for (const state of this.options.hub.states()) {
      if (state.status === 'failed') lines.push(`MCP server ${state.name} failed: ${state.error ?? 'it did not start'}`);
      else if (state.status === 'needs-sign-in') lines.push(`MCP server ${state.name} needs sign-in: sign in from Settings › MCP servers (the app or deepdesk serve)`);
    }
    return lines;
  }

  list(): McpListDto {
    // Each file read once for the entries as written (what Edit starts from).
    const written = new Map<string, Map<string, Record<string, unknown>>>();
    const entryOf = (file: string, name: string): Record<string, unknown> => {
      let entries = written.get(file);
      if (entries === undefined) written.set(file, (entries = writtenEntries(file)));
      return entries.get(name) ?? {};
    };
    return { servers: this.options.hub.states().map((s) => this.toDto(s, entryOf(s.config.source.file, s.name))), problems: [...this.problems] };
  }

  private toDto(state: McpServerState, entry: Record<string, unknown>): McpServerDto {
    const { config } = state;
    const status = state.status;
    return {
      name: state.name,
      type: config.type,
      source: config.source.kind,
      file: config.source.file,
      status,
      statusText: statusText(status, state.tools.length),
      target: config.type === 'stdio' ? [config.command, ...config.args].join(' ') : config.url,
      ...(config.type === 'stdio' ? { sandboxed: config.sandbox } : {}),
      ...(state.error !== undefined ? { error: state.error } : {}),
      tools: state.tools.map((t) => ({ name: t.name, qualifiedName: t.qualifiedName, description: t.description, readOnly: t.readOnly })),
      log: state.log,
      entry,
    };
  }

  async save(name: string, entry: Record<string, unknown>, previousName?: string): Promise<McpListDto> {
    const problem = checkEntry(name, entry);
    if (problem) throw new ContractError(problem, 'bad_request');
    writeServerEntry(this.userFile, name, entry);
    if (previousName !== undefined && previousName !== name) removeServerEntry(this.userFile, previousName);
    await this.reload();
    return this.list();
  }

  async remove(name: string): Promise<McpListDto> {
    const state = this.stateOf(name);
    if (state.config.source.kind !== 'user') throw new ContractError(`${name} comes from ${state.config.source.file}; remove it there (or turn it off here)`, 'bad_request');
    removeServerEntry(this.userFile, name);
    await this.reload();
    return this.list();
  }

  async setEnabled(name: string, enabled: boolean): Promise<McpListDto> {
    const state = this.stateOf(name);
    if (state.config.source.kind === 'user') setServerDisabled(this.userFile, name, !enabled);
    else {
      this.folderState.update((all) => {
        const entry = all[this.options.folder] ?? {};
        const disabled = new Set(entry.disabled ?? []);
        if (enabled) disabled.delete(name);
        else disabled.add(name);
        return { ...all, [this.options.folder]: { ...entry, disabled: [...disabled].sort() } };
      });
    }
    await this.reload();
    return this.list();
  }

  /** Starts the sign-in (the browser opens; the person may take minutes there) and answers at once; the server restarts when it is done. */
  async signIn(name: string): Promise<McpListDto> {
    const state = this.stateOf(name);
    if (state.config.type === 'stdio') throw new ContractError(`MCP server ${name} runs on this machine and needs no sign-in`, 'bad_request');
    this.options.hub.signIn(name).then(
      () => this.options.onChange(),
      (err: unknown) => {
        this.options.onNotice?.(`Signing in to MCP server ${name} did not finish: ${err instanceof Error ? err.message : String(err)}. Try Sign in again in Settings › MCP servers.`);
        this.options.onChange();
      },
    );
    return this.list();
  }

  /** Answers once the server is stopped and listed `Starting`; it starts in the background. */
  async restart(name: string): Promise<McpListDto> {
    this.stateOf(name);
    let stopListening = (): void => undefined;
    const starting = new Promise<void>((resolve) => {
      stopListening = this.options.hub.onChange(() => {
        if (this.options.hub.states().find((s) => s.name === name)?.status === 'starting') resolve();
      });
    });
    try {
      await Promise.race([this.options.hub.restart(name), starting]);
    } finally {
      stopListening();
    }
    return this.list();
  }

  private stateOf(name: string): McpServerState {
    const state = this.options.hub.states().find((s) => s.name === name);
    if (!state) throw new ContractError(`there is no MCP server named ${name}`, 'not_found');
    return state;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopHub();
    await this.loading.catch(() => undefined);
    await this.options.hub.close();
    this.folderState.close();
  }
}

const STATUS_TEXT: Record<McpStatus, string> = {
  starting: 'Starting',
  connected: 'Connected',
  failed: 'Failed',
  'needs-sign-in': 'Needs sign-in',
  'not-trusted': 'Not trusted',
  disabled: 'Disabled',
};

export function statusText(status: McpStatus, tools: number): string {
  return status === 'connected' ? `Connected · ${tools} ${tools === 1 ? 'tool' : 'tools'}` : STATUS_TEXT[status];
}


/** A file's entries as written (`${VAR}`s unexpanded), the malformed ones too: what Edit starts from. */
function writtenEntries(file: string): Map<string, Record<string, unknown>> {
  const entries = new Map<string, Record<string, unknown>>();
  // Unreadable now (a FIFO, not JSON, …): Edit starts empty.
  const read = readJsonObject(file, 'user');
  const servers = 'value' in read ? read.value.mcpServers : undefined;
  if (typeof servers !== 'object' || servers === null) return entries;
  for (const [name, entry] of Object.entries(servers)) {
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) entries.set(name, entry as Record<string, unknown>);
  }
  return entries;
}

/** What is wrong with an entry the window sends, as one line naming the field, or null. */
function checkEntry(name: string, entry: Record<string, unknown>): string | null {
  const problem = entryProblem('mcp.json', name, entry);
  return problem === undefined ? null : `${problem.field ? `${problem.field}: ` : ''}${problem.message}`;
}
