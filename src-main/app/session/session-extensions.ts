// A folder session's extensions (SPEC §9–§11), one stack for every client: the trust gate (the
// data folder's trust.json, plus what `--trust` grants for this session), the person's and the
// folder's skills, commands, subagents, hooks and Claude Code rules (ExtensionsService, with
// the switches of Settings), and the MCP servers (McpService over a hub the gate filters at
// every use). The window's Settings regions and watchers sit on top of this same stack.

import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { McpServerConfig } from '../../core/config/mcp-config-types';
import { McpHub } from '../../core/extensions/mcp/hub';
import type { McpHubApi } from '../../core/extensions/mcp/types';
import { trustGatedHub } from '../../core/extensions/mcp/gated-hub';
import { trustReport, untrustedNotice } from '../../core/trust/report';
import { SessionTrust } from '../../core/trust/session-trust';
import { TrustStore } from '../../core/trust/store';
import type { JsonFileProblem } from '../../core/config/json-file-store';
import { ExtensionsService } from '../extensions/extensions-service';
import { McpService } from '../mcp/mcp-service';
import { openWithSystem } from '../base/open-external';
import { holdDataFolderSecrets } from '../settings/data-folder-secrets';
import type { McpTokenStore } from '../../core/extensions/mcp/oauth';

export interface SessionExtensionsOptions {
  /** Where the folder's own configuration is read: its real path, or an empty stand-in for a remote folder. */
  configFolder: string;
  /** The folder's configuration is its own (a local folder): hooks run, `--trust` may grant. */
  local: boolean;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** Where MCP sign-in tokens are kept (the data folder's store, shared by every client). */
  mcpTokens: McpTokenStore;
  version: string;
  openBrowser: (url: string) => void | Promise<void>;
  /** `--mcp-config FILE`s (read on every reload). */
  mcpConfigFiles: readonly string[];
  /** MCP servers the client gives itself (an editor's), after the files' (later wins). */
  extraMcpServers?: readonly McpServerConfig[];
  /** `--trust`: the folder's configuration as it is now loads for this session only. */
  trust: boolean;
  onChange: { extensions(): void; mcp(): void };
  onProblem(problem: JsonFileProblem): void;
  onNotice(message: string): void;
}

export interface SessionExtensions {
  /** trust.json: what the person trusted (the window's trust question writes here). */
  trustStore: TrustStore;
  extensions: ExtensionsService;
  mcp: McpService;
  /** The servers as the agent and slash commands see them: a project server whose trust is revoked, or whose entry changed, is gone from the next use. */
  hub: McpHubApi;
  /** The folder's configuration that is not trusted, in one line (`--trust`, `deepdesk trust`), or undefined. */
  untrustedNotice(): Promise<string | undefined>;
  close(): Promise<void>;
}

export async function openSessionExtensions(options: SessionExtensionsOptions): Promise<SessionExtensions> {
  const { configFolder: folder, dataDir, env } = options;
  const trustStore = new TrustStore(dataDir, { onProblem: options.onProblem });
  const gate = new SessionTrust(trustStore);
  try {
    if (options.trust && options.local) gate.grant(folder, (await trustReport(folder, trustStore, env)).untrusted);
    const rawHub = new McpHub({ folder, dataDir, env, tokens: options.mcpTokens, openBrowser: options.openBrowser, clientInfo: { name: 'deepdesk', version: options.version } });
    const hub: McpHubApi = trustGatedHub(rawHub, { folder, gate, onStale: () => mcp.scheduleReload() });
    const mcp: McpService = new McpService({
      folder,
      dataDir,
      env,
      hub,
      trust: gate,
      cliFiles: options.mcpConfigFiles,
      ...(options.extraMcpServers ? { extraServers: options.extraMcpServers } : {}),
      onChange: options.onChange.mcp,
      onProblem: options.onProblem,
      onNotice: options.onNotice,
    });
    const extensions = new ExtensionsService({ folder, dataDir, trust: gate, onChange: options.onChange.extensions, onProblem: options.onProblem });
    // A trust given or revoked elsewhere (`deepdesk trust --revoke`, a window): the servers, hooks and skills follow at once.
    trustStore.onChange(() => {
      void mcp.reload();
      extensions.reload();
    });
    return {
      trustStore,
      extensions,
      mcp,
      hub,
      async untrustedNotice() {
        if (options.trust || !options.local) return undefined;
        return untrustedNotice(await trustReport(folder, gate, env))?.replace(/^deepdesk: /, '');
      },
      async close() {
        extensions.close();
        try {
          await mcp.close();
        } finally {
          trustStore.close();
        }
      },
    };
  } catch (err) {
    trustStore.close();
    throw err;
  }
}

/** A command's look at a local folder's MCP servers (`deepdesk mcp ls`, `mcp tools`): the session's stack, its servers started and waited for, each problem one line. */
export async function openCommandExtensions(options: { folder: string; dataDir: string; env: NodeJS.ProcessEnv; mcpConfigFiles: readonly string[]; trust: boolean; version: string; say(line: string): void }): Promise<SessionExtensions> {
  const tokens = holdDataFolderSecrets(options.dataDir);
  try {
    const opened = await openSessionExtensions({
      configFolder: realpathSync(options.folder),
      local: true,
      dataDir: options.dataDir,
      env: options.env,
      mcpTokens: tokens.store,
      version: options.version,
      openBrowser: openWithSystem,
      mcpConfigFiles: options.mcpConfigFiles.map((file) => resolve(file)),
      trust: options.trust,
      onChange: { extensions: () => undefined, mcp: () => undefined },
      onProblem: (problem) => options.say(problem.message),
      onNotice: options.say,
    });
    await opened.mcp.start();
    for (const line of opened.mcp.problemLines()) options.say(line);
    const untrusted = await opened.untrustedNotice();
    if (untrusted !== undefined) options.say(untrusted);
    return {
      ...opened,
      async close() {
        try {
          await opened.close();
        } finally {
          tokens.release();
        }
      },
    };
  } catch (err) {
    tokens.release();
    throw err;
  }
}
