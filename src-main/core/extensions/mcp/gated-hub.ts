// The folder's MCP servers through the trust gate at every step (SPEC §9): a project server
// is offered to the agent (its tools, resources and prompts) and called only while its entry
// in `.mcp.json`, with what it runs, is still the one that was trusted. A revoke (here or in
// another process), a changed entry or a changed script takes effect before the next model
// call, even before the reload that stops the server has happened; `onStale` asks for it.

import type { McpServerConfig } from '../../config/mcp-config-types';
import type { McpHubApi } from './types';
import { errorText } from '../../tools/tool';
import { pathsStamp } from '../../config/entry-files';
import { mcpKind, projectMcpFile, projectServerItems } from '../../config/kinds/mcp';
import type { TrustGate } from '../../trust/types';

export interface TrustGatedHubOptions {
  /** The folder's real path. */
  folder: string;
  gate: TrustGate;
  /** A server of the folder is no longer trusted: stop it (a reload). */
  onStale?(server: string): void;
}

export function trustGatedHub(hub: McpHubApi, options: TrustGatedHubOptions): McpHubApi {
  const file = projectMcpFile(options.folder);
  let stamp: string | undefined;
  let allowed = new Map<string, boolean>();

  /** Whether a project server, as the hub runs it, is still trusted with what it runs; other sources need no trust. */
  const loaded = (config: McpServerConfig | undefined): boolean => {
    if (config === undefined) return false;
    if (config.source.kind !== 'project') return true;
    const now = stampNow();
    if (now !== stamp) {
      allowed = new Map();
      stamp = now;
    }
    const known = allowed.get(`${config.name}\0${config.digest}`);
    if (known !== undefined) return known;
    const item = projectServerItems(options.folder, {}).items.find((i) => i.value.name === config.name);
    const ok = item !== undefined && item.value.digest === config.digest && options.gate.isTrusted(options.folder, item.entry);
    allowed.set(`${config.name}\0${config.digest}`, ok);
    if (!ok) options.onStale?.(config.name);
    return ok;
  };
  const stampNow = (): string => {
    const files = mcpKind.entryFiles?.(options.folder) ?? [];
    return JSON.stringify([pathsStamp([file]), pathsStamp(files), options.gate.version()]);
  };
  const configOf = (server: string): McpServerConfig | undefined => hub.states().find((s) => s.name === server)?.config;
  const serverLoaded = (server: string): boolean => loaded(configOf(server));

  return {
    configure: (servers, untrusted) => hub.configure(servers, untrusted),
    states: () => hub.states(),
    onChange: (listener) => hub.onChange(listener),
    tools: () => hub.tools().filter((tool) => serverLoaded(tool.server)),
    callTool: (qualifiedName, args, signal) => {
      const tool = hub.tools().find((t) => t.qualifiedName === qualifiedName);
      if (tool !== undefined && !serverLoaded(tool.server)) return Promise.resolve(errorText(`the MCP server ${tool.server} is no longer trusted in this folder; its tools cannot be called`));
      return hub.callTool(qualifiedName, args, signal);
    },
    resources: () => hub.resources().filter((resource) => serverLoaded(resource.server)),
    readResource: (server, uri, signal) => {
      if (!serverLoaded(server)) return Promise.reject(new Error(`the MCP server ${server} is not trusted in this folder`));
      return hub.readResource(server, uri, signal);
    },
    prompts: () => hub.prompts().filter((prompt) => serverLoaded(prompt.server)),
    getPrompt: (qualifiedName, args, signal) => {
      const prompt = hub.prompts().find((p) => p.qualifiedName === qualifiedName);
      if (prompt !== undefined && !serverLoaded(prompt.server)) return Promise.reject(new Error(`the MCP server ${prompt.server} is not trusted in this folder`));
      return hub.getPrompt(qualifiedName, args, signal);
    },
    signIn: (server) => (serverLoaded(server) || configOf(server)?.source.kind !== 'project' ? hub.signIn(server) : Promise.reject(new Error(`the MCP server ${server} is not trusted in this folder`))),
    // A server that is no longer trusted is not started again with what it runs now.
    restart: (server) => (serverLoaded(server) || configOf(server)?.source.kind !== 'project' ? hub.restart(server) : Promise.resolve(options.onStale?.(server))),
    close: () => hub.close(),
  };
}
