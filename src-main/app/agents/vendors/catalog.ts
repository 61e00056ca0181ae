// THE catalog of other vendors' agents (SPEC §22): one module per vendor, chosen by id; a new
// vendor is one module and one row here. Each is installed into the data folder by version (never
// the project), and keeps a private home there (its login copy and its own state).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { claudeCode } from './claude-code';
import { codex } from './codex';
import { gemini } from './gemini';
import { opencode } from './opencode';
import { addedVendor, type AddedAgent } from './generic';
import type { AgentVendor, KnownAgent } from './vendor';

export type { AddedAgent, AgentVendor, KnownAgent };

export const KNOWN_AGENTS: readonly KnownAgent[] = [claudeCode, codex, gemini, opencode];

/** Agents Deepdesk does not run whose configuration in a project folder steers them (in an editor, or the person's own terminal). */
const OTHER_AGENTS_CONFIG = ['/.cursor', '/.zed', '/.continue', '/.goose', '/.windsurfrules'];

/** Every agent's configuration in a project folder, by its vendor: a write there is sensitive (SPEC §23 (5)). */
export const AGENT_CONFIG_PATHS: readonly string[] = [...KNOWN_AGENTS.flatMap((a) => a.configPaths ?? []), ...OTHER_AGENTS_CONFIG];

export function knownAgent(name: string): KnownAgent | undefined {
  return KNOWN_AGENTS.find((a) => a.name === name);
}

/** The vendor of a known agent or of a command the person added (every vendor's quirks at once). */
export function vendorOf(agent: { known: KnownAgent } | { added: AddedAgent }): AgentVendor {
  return 'known' in agent ? agent.known : addedVendor(agent.added, KNOWN_AGENTS);
}

/** Where a known agent is installed in the data folder, by version (never the project). */
export function installDir(dataDir: string, agent: Pick<KnownAgent, 'name' | 'version'>): string {
  return join(dataDir, 'agents', 'installed', `${agent.name}@${agent.version}`);
}

export interface InstalledAgent {
  dir: string;
  script: string;
  version: string;
}

/** The installed agent at its pinned version, or undefined. */
export function installedAgent(dataDir: string, agent: KnownAgent): InstalledAgent | undefined {
  const dir = installDir(dataDir, agent);
  const script = agentScript(dataDir, agent, dir);
  if (!existsSync(script)) return undefined;
  return { dir, script, version: agent.version };
}

/** An agent's private home in the data folder (its login copy and its own state: sessions it can load after a restart). */
export function privateHome(dataDir: string, name: string): string {
  return join(dataDir, 'agents', 'homes', name);
}

/** The installed program of a known agent. */
export function agentScript(dataDir: string, agent: KnownAgent, root: string = installDir(dataDir, agent)): string {
  return join(root, 'node_modules', ...agent.packageName.split('/'), agent.script);
}

/** How a known agent installed at `root` is started: its script with Node, or its own program. */
export function agentCommand(dataDir: string, agent: KnownAgent, root?: string): { command: string; args: string[] } {
  const script = agentScript(dataDir, agent, root);
  return agent.native === true ? { command: script, args: [...(agent.args ?? [])] } : { command: process.execPath, args: [script, ...(agent.args ?? [])] };
}
