// The MCP servers of a command-line session (`run`, `mcp ls`): the folder's configuration
// through the trust gate, the servers started (and waited for), one stderr line for each
// thing the person should know (untrusted configuration, a bad file, a failed server).

import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { mergeServers } from '../../core/config/mcp-config';
import type { McpServerConfig } from '../../core/config/mcp-config-types';
import { McpHub } from '../../core/extensions/mcp/hub';
import { loadProjectConfiguration } from '../../core/extensions/mcp/project-configuration';
import type { TrustGate } from '../../core/trust/types';
import { untrustedNotice } from '../../core/trust/report';
import { openWithSystem } from '../open-external';
import { FileSecretStore } from '../settings/file-secret-store';
import { packageVersion } from '../package-version';

export interface CliMcpOptions {
  folder: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** `--mcp-config FILE` (repeatable). */
  files: readonly string[];
  /** `--trust`: the folder's untrusted entries load for this run only. */
  trust: boolean;
  /** One line for the person (stderr), without the `deepdesk: ` prefix. */
  say(line: string): void;
  /** The session's trust (its store, and what `--trust` added), when it has one open already. */
  store?: TrustGate;
  /** Servers the caller gives itself (an ACP editor's), merged after the files (later wins). */
  extraServers?: readonly McpServerConfig[];
}

export interface CliMcpServers {
  hub: McpHub;
  /** Ends the servers (and closes what the session opened for them). */
  close(): Promise<void>;
}

export async function startMcpServers(options: CliMcpOptions): Promise<CliMcpServers> {
  const folder = realpathSync(options.folder);
  const loaded = await loadProjectConfiguration({
    folder,
    dataDir: options.dataDir,
    env: options.env,
    mcpConfigFiles: options.files.map((f) => resolve(f)),
    trustForRun: options.trust,
    ...(options.store ? { store: options.store } : {}),
  });
  for (const problem of loaded.problems) options.say(problem);
  const notice = options.trust ? undefined : untrustedNotice(loaded.report);
  if (notice !== undefined) options.say(notice.replace(/^deepdesk: /, ''));
  const secrets = new FileSecretStore(options.dataDir);
  const hub = new McpHub({
    folder,
    dataDir: options.dataDir,
    env: options.env,
    tokens: secrets,
    openBrowser: openWithSystem,
    clientInfo: { name: 'deepdesk', version: packageVersion() },
  });
  const servers = options.extraServers?.length ? mergeServers(loaded.servers, options.extraServers) : loaded.servers;
  const running = new Set(servers.map((s) => s.name));
  await hub.configure(servers, loaded.untrusted.filter((s) => !running.has(s.name)));
  for (const state of hub.states()) {
    if (state.status === 'failed') options.say(`MCP server ${state.name} failed: ${state.error ?? 'it did not start'}`);
    else if (state.status === 'needs-sign-in') options.say(`MCP server ${state.name} needs sign-in: sign in from Settings › MCP servers (the app or deepdesk serve)`);
  }
  return {
    hub,
    async close() {
      await hub.close();
      secrets.close();
    },
  };
}
