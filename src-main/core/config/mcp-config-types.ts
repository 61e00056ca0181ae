// What an MCP server entry is once read (SPEC §10), whichever file it came from.

/** Where an entry came from: the person's `<data-dir>/mcp.json`, the folder's `.mcp.json`, or `--mcp-config FILE`. */
export interface ConfigSource {
  kind: 'user' | 'project' | 'cli';
  /** Absolute path of the file. */
  file: string;
}

interface McpServerBase {
  /** The entry's key in `mcpServers`. */
  name: string;
  source: ConfigSource;
  /** Per-call timeout in milliseconds (the entry's `timeout`, Claude Code's unit); default 60 000. */
  timeoutMs: number;
  /** Set in the person's mcp.json (`"disabled": true`, or turned off in Settings). */
  disabled: boolean;
  /** sha256 of the entry exactly as written (before `${VAR}` expansion): what trust is recorded against. */
  digest: string;
}

export interface McpStdioServerConfig extends McpServerBase {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  /** false only when the entry says `"sandbox": false`. */
  sandbox: boolean;
  allowedDomains: string[];
  /** Folders its sandbox lets it read though they lie in the data folder: an installed plugin's own, for the server it ships. */
  readable?: string[];
}

export interface McpRemoteServerConfig extends McpServerBase {
  type: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;

/** One clear error line's parts: `FILE: FIELD: MESSAGE` (the field where one is wrong). */
export interface ConfigProblem {
  file: string;
  /** e.g. `mcpServers.github.command`. */
  field?: string;
  message: string;
}

export function problemLine(problem: ConfigProblem): string {
  return `${problem.file}: ${problem.field ? `${problem.field}: ` : ''}${problem.message}`;
}

export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
export const MCP_STARTUP_TIMEOUT_MS = 30_000;
