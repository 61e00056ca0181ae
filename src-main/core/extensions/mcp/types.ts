// The MCP client side as the rest of Deepdesk sees it (SPEC §10).
import type { McpServerConfig } from '../../config/mcp-config-types';
import type { ToolOutput } from '../../tools/tool';

export type McpStatus = 'starting' | 'connected' | 'failed' | 'needs-sign-in' | 'not-trusted' | 'disabled';

export interface McpToolInfo {
  server: string;
  /** The server's own name for it. */
  name: string;
  /** `mcp__<server>__<tool>`, characters outside [A-Za-z0-9_-] as `_`, at most 64. */
  qualifiedName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server annotates it `readOnlyHint: true`. */
  readOnly: boolean;
}

export interface McpResourceInfo {
  server: string;
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

export interface McpPromptInfo {
  server: string;
  name: string;
  /** `mcp__<server>__<prompt>` (the slash command without its `/`). */
  qualifiedName: string;
  description?: string;
  arguments: { name: string; description?: string; required: boolean }[];
}

export interface McpServerState {
  name: string;
  config: McpServerConfig;
  status: McpStatus;
  /** Why it failed (one line), when it did. */
  error?: string;
  tools: McpToolInfo[];
  /** The tail of its stderr (stdio) or of its connection log (remote). */
  log: string;
}

/** The MCP servers of one folder: started, watched, called and stopped together. */
export interface McpHubApi {
  /** Starts what is new, stops what is gone or changed; resolves when every new server connected or failed. */
  configure(servers: readonly McpServerConfig[], untrusted: readonly McpServerConfig[]): Promise<void>;
  states(): McpServerState[];
  /** Called on any change of status, tools, resources or prompts. Returns unsubscribe. */
  onChange(listener: () => void): () => void;
  tools(): McpToolInfo[];
  callTool(qualifiedName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutput>;
  resources(): McpResourceInfo[];
  /** The resource as text for a message (SPEC §10 `@server:URI`). */
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<{ text: string; image?: { mimeType: string; data: string } }>;
  prompts(): McpPromptInfo[];
  /** The prompt's messages joined as the text of one user message. */
  getPrompt(qualifiedName: string, args: Record<string, string>, signal?: AbortSignal): Promise<string>;
  /** Runs the OAuth sign-in of a remote server that answered 401 (opens the browser). */
  signIn(server: string): Promise<void>;
  restart(server: string): Promise<void>;
  close(): Promise<void>;
}
