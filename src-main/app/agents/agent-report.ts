// What an agent's `initialize` reported (SPEC §22: kept in the data folder each time it starts, and shown in Settings › Agents).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentThread } from './agent-thread';

/** What an agent's `initialize` reported, as Settings › Agents shows it. */
export interface AgentReport {
  agentName?: string;
  agentVersion?: string;
  /** What it offers: load, resume, fork, close, images, audio, embedded context, MCP over http/sse, … */
  capabilities: string[];
  at: string;
}

function reportFile(dataDir: string, name: string): string {
  return join(dataDir, 'agents', 'reported', `${name}.json`);
}

/** Kept in the data folder each time the agent starts (SPEC §22: what `initialize` reports is kept and shown). */
export function keepReport(dataDir: string, name: string, thread: AgentThread): void {
  const init = thread.session.initializeResponse;
  const caps = init?.agentCapabilities;
  const prompt = (caps?.promptCapabilities ?? {}) as Record<string, unknown>;
  const mcp = (caps?.mcpCapabilities ?? {}) as Record<string, unknown>;
  const offered = [
    ...(caps?.loadSession === true ? ['load'] : []),
    ...Object.entries((caps?.sessionCapabilities ?? {}) as Record<string, unknown>).flatMap(([key, value]) => (value != null ? [key] : [])),
    ...['image', 'audio', 'embeddedContext'].filter((key) => prompt[key] === true),
    ...['http', 'sse'].filter((key) => mcp[key] === true).map((key) => `mcp-${key}`),
  ];
  const report: AgentReport = {
    ...(init?.agentInfo?.name ? { agentName: init.agentInfo.name } : {}),
    ...(init?.agentInfo?.version ? { agentVersion: init.agentInfo.version } : {}),
    capabilities: offered,
    at: new Date().toISOString(),
  };
  try {
    mkdirSync(join(dataDir, 'agents', 'reported'), { recursive: true, mode: 0o700 });
    writeFileSync(reportFile(dataDir, name), JSON.stringify(report, null, 2), { mode: 0o600 });
  } catch {
    // Shown when it can be kept; the agent runs all the same.
  }
}

/** What the agent's `initialize` last reported, when it has started here. */
export function agentReport(dataDir: string, name: string): AgentReport | undefined {
  try {
    const json = JSON.parse(readFileSync(reportFile(dataDir, name), 'utf8')) as AgentReport;
    return Array.isArray(json.capabilities) && typeof json.at === 'string' ? json : undefined;
  } catch {
    return undefined;
  }
}
