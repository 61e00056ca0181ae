// The MCP servers an editor passes in session/new and session/load, as §10 server entries:
// they are the person's own configuration (as `--mcp-config` is), so they need no trust,
// and a stdio server runs inside the sandbox like any other.

import { createHash } from 'node:crypto';
import type { McpServer } from '@agentclientprotocol/sdk';
import { DEFAULT_MCP_TIMEOUT_MS, type McpServerConfig } from '../../../core/config/mcp-config-types';

const EDITOR_SOURCE = { kind: 'cli', file: '(the editor, over ACP)' } as const;

export function editorMcpServers(servers: readonly McpServer[]): McpServerConfig[] {
  return servers.map((server): McpServerConfig => {
    const base = {
      name: server.name,
      source: EDITOR_SOURCE,
      timeoutMs: DEFAULT_MCP_TIMEOUT_MS,
      disabled: false,
      digest: createHash('sha256').update(JSON.stringify(server)).digest('hex'),
    };
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      return { ...base, type: server.type, url: server.url, headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) };
    }
    const stdio = server as Extract<McpServer, { command: string }>;
    return {
      ...base,
      type: 'stdio',
      command: stdio.command,
      args: [...stdio.args],
      env: Object.fromEntries(stdio.env.map((v) => [v.name, v.value])),
      sandbox: true,
      allowedDomains: [],
    };
  });
}
