// What a headless session (`run`, `acp`) needs around the agent for one project folder: the
// chat model from the command's flags, the sandbox, the MCP servers, skills and hooks through
// the one trust gate (SPEC §7, §9–§11). Each thing the person should know is one line to `say`.

import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import type { McpServerConfig } from '../../core/config/mcp-config-types';
import type { McpHubApi } from '../../core/extensions/mcp/types';
import { hooksSource } from '../../core/extensions/hooks/config';
import { loadClaudeRules, type ClaudeRules } from '../../core/config/claude-permissions';
import { createDefinitionsCatalog, type DefinitionsCatalog } from '../../core/extensions/definitions/catalog';
import { createSkillCatalog } from '../../core/extensions/skills/discover';
import { skillProblemLine } from '../../core/extensions/skills/trust-entries';
import type { MediaInputOverrides } from '../../core/media/override';
import type { PriceOverride } from '../../core/models/model-info';
import { createChatModel } from '../../core/models/create-model';
import { ModelConfigError } from '../../core/models/errors';
import type { ChatModel } from '../../core/models/types';
import { createSandbox } from '../../core/sandbox';
import type { Sandbox } from '../../core/sandbox/types';
import { folderTrust } from '../../core/trust/folder-trust';
import { trustGatedHub } from '../../core/extensions/mcp/gated-hub';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';
import { trustReport } from '../../core/trust/report';
import { SessionTrust } from '../../core/trust/session-trust';
import { TrustStore } from '../../core/trust/store';
import { startMcpServers } from './mcp-servers';
import { ContractError } from '../contract';

export interface ModelFlags {
  model: string | undefined;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  contextWindow?: number | undefined;
  mediaInput?: MediaInputOverrides | undefined;
  prices?: Readonly<Record<string, PriceOverride>> | undefined;
}

/** The chat model the flags name; a bad spec is bad usage (`bad_request`), a missing key an error (exit 1, SPEC §12). */
export function cliChatModel(flags: ModelFlags, env: NodeJS.ProcessEnv): ChatModel {
  const spec = flags.model ?? env.DEEPDESK_MODEL;
  if (spec === undefined || spec.trim() === '') throw new ContractError('no model configured: pass --model PROVIDER:MODEL (or set DEEPDESK_MODEL)', 'bad_request');
  try {
    return createChatModel({
      model: spec,
      env,
      ...(flags.mediaInput !== undefined ? { mediaInputOverrides: flags.mediaInput } : {}),
      ...(flags.prices !== undefined ? { priceOverrides: flags.prices } : {}),
      ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
      ...(flags.apiKey !== undefined ? { apiKey: flags.apiKey } : {}),
      ...(flags.contextWindow !== undefined ? { contextWindow: flags.contextWindow } : {}),
    });
  } catch (err) {
    if (err instanceof ModelConfigError && err.missing !== 'api-key') throw new ContractError(err.message, 'bad_request');
    throw err;
  }
}

export interface FolderExtensionsOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** `--mcp-config FILE` (repeatable). */
  mcpFiles: readonly string[];
  /**
   * `--trust`: the folder's configuration as it is now loads for this session only (nothing is
   * recorded; what changes or appears afterwards is not trusted by it).
   */
  trust: boolean;
  /** MCP servers given by the caller itself (an editor's), after the files' (later wins). */
  extraMcpServers?: readonly McpServerConfig[];
  /** One line for the person, without the `deepdesk: ` prefix. */
  say(line: string): void;
}

/** The MCP servers, skills and hooks of a local folder, through the one trust gate. */
export interface LocalFolderExtensions {
  /** The folder's real path (hooks and skills are keyed by it). */
  realFolder: string;
  /** The servers through the trust gate: a project server whose trust is revoked (or whose entry changed) is not offered from the next step. */
  mcp: McpHubApi;
  skills: ReturnType<typeof createSkillCatalog>;
  /** Custom commands and subagents (Claude Code's Markdown files). */
  definitions: DefinitionsCatalog;
  /** The permission rules of Claude Code's settings files in force now. */
  claudeRules: () => ClaudeRules;
  hooks: ReturnType<typeof hooksSource>;
  close(): Promise<void>;
}

/** For a remote folder (SPEC §13) only the person's own skills: the folder's configuration is not read. */
export type FolderExtensions =
  | LocalFolderExtensions
  | {
      realFolder?: undefined;
      mcp?: undefined;
      hooks?: undefined;
      skills: ReturnType<typeof createSkillCatalog>;
      definitions: DefinitionsCatalog;
      claudeRules: () => ClaudeRules;
      close(): Promise<void>;
    };

export interface FolderRuntimeOptions extends FolderExtensionsOptions {
  folder: string;
}

export interface FolderRuntime extends LocalFolderExtensions {
  /** Commands run inside it when there is one (SPEC §7). */
  sandbox: Sandbox | undefined;
}

/** A local folder's sandbox and extensions (acp's sessions). */
export async function openFolderRuntime(options: FolderRuntimeOptions): Promise<FolderRuntime> {
  const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: options.folder, dataDir: options.dataDir }));
  return { ...(await openLocalExtensions(options.folder, options)), sandbox };
}

/** `folder`: the local path, or undefined for a remote folder. */
export async function openFolderExtensions(folder: string | undefined, options: FolderExtensionsOptions): Promise<FolderExtensions> {
  if (folder !== undefined) return openLocalExtensions(folder, options);
  const skills = createSkillCatalog({ dataDir: options.dataDir, home: homedir(), isTrusted: () => true });
  for (const problem of skills.current().problems) options.say(skillProblemLine(problem));
  const definitions = createDefinitionsCatalog({ dataDir: options.dataDir, home: homedir(), isTrusted: () => true });
  // A remote folder's own settings are not read (SPEC §13): the person's rules only.
  return { skills, definitions, claudeRules: () => loadClaudeRules({ home: homedir(), isTrusted: () => false }), close: async () => undefined };
}

async function openLocalExtensions(folder: string, options: FolderExtensionsOptions): Promise<LocalFolderExtensions> {
  const { dataDir, env, say } = options;
  const realFolder = realpathSync(folder);
  const trustStore = new TrustStore(dataDir);
  try {
    // Trust is asked at every step (a revoke in another process applies from the next one);
    // `--trust` adds, for this session, what the folder holds now.
    const gate = new SessionTrust(trustStore);
    if (options.trust) gate.grant(realFolder, (await trustReport(realFolder, trustStore, env)).untrusted);
    const mcpServers = await startMcpServers({
      folder,
      dataDir,
      env,
      files: options.mcpFiles,
      trust: false,
      store: gate,
      say,
      ...(options.extraMcpServers ? { extraServers: options.extraMcpServers } : {}),
    });
    const { isTrusted, version } = folderTrust(gate, realFolder);
    const skills = createSkillCatalog({ dataDir, home: homedir(), folder: realFolder, isTrusted });
    for (const problem of skills.current().problems) say(skillProblemLine(problem));
    const definitions = createDefinitionsCatalog({ dataDir, home: homedir(), folder: realFolder, isTrusted });
    for (const problem of [...definitions.commands().problems, ...definitions.agents().problems]) say(problem);
    const hooks = hooksSource({ dataDir, home: homedir(), folder: realFolder, isTrusted, version });
    for (const problem of hooks().problems) say(problem);
    return {
      realFolder,
      mcp: trustGatedHub(mcpServers.hub, { folder: realFolder, gate }),
      skills,
      definitions,
      claudeRules: () => loadClaudeRules({ home: homedir(), folder: realFolder, isTrusted }),
      hooks,
      async close() {
        try {
          await mcpServers.close();
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
