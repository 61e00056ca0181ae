// Installing a known agent from the command line (SPEC §22), for `deepdesk agents install NAME`
// and `run --agent NAME` when it is not installed yet: the same confirmation as Settings › Agents
// (`--yes`, or `y` on a terminal), npm's progress as it goes, and what happened at the end.

// The asking and the install are loaded only when an agent is not installed: a run with an
// installed agent checks a path and goes on.
import { installedAgent, knownAgent, type KnownAgent } from '../app/agents/vendors/catalog';
import { terminalSafe } from '../core/text/terminal-safe';
import type { InstallOutcome, PluginAsk } from './plugin-install';

/** Installs `agent` once the person confirms; `failed` has said why on stderr. */
export async function installAgentIfConfirmed(dataDir: string, agent: KnownAgent, ask: PluginAsk): Promise<InstallOutcome | 'failed'> {
  const { io } = ask;
  const [{ confirmed, sayLine }, { installAgent }] = await Promise.all([import('./plugin-install'), import('../app/agents/agent-install')]);
  const what = `${agent.packageName}@${agent.version}`;
  if (installedAgent(dataDir, agent) !== undefined) {
    sayLine(io, `${agent.label} ${agent.version} is installed.`);
    return 'installed';
  }
  const answer = await confirmed(ask, `Install ${agent.label} (${what}) from the npm registry into Deepdesk's data folder? No install scripts run. [y/N] `);
  if (answer === 'no terminal') return answer;
  if (answer === 'no') {
    sayLine(io, 'Not installed.');
    return 'declined';
  }
  sayLine(io, `Installing ${what} (a large agent takes minutes)…`);
  // npm's requests of the registry as they come, where a person watches.
  const watched = (io.stderr as { isTTY?: boolean }).isTTY === true;
  try {
    await installAgent(dataDir, agent, watched ? { progress: (line) => io.stderr.write(`  ${terminalSafe(line, { singleLine: true })}\n`) } : {});
  } catch (err) {
    io.stderr.write(`${ask.command}: ${agent.label} could not be installed: ${terminalSafe(err instanceof Error ? err.message : String(err), { singleLine: true })}\n`);
    return 'failed';
  }
  sayLine(io, `${agent.label} ${agent.version} is installed.`);
  return 'installed';
}

/** `run --agent NAME`: a catalog agent not installed yet is offered for install first; the exit code when the run cannot go on. */
export async function agentForRun(dataDir: string, name: string, ask: PluginAsk): Promise<number | undefined> {
  const agent = knownAgent(name);
  if (agent === undefined || installedAgent(dataDir, agent) !== undefined) return undefined;
  const outcome = await installAgentIfConfirmed(dataDir, agent, ask);
  if (outcome === 'installed') return undefined;
  if (outcome === 'no terminal') ask.io.stderr.write(`deepdesk run: ${agent.label} is not installed, and there is no terminal to ask on: confirm its install with --yes, or install it first (deepdesk agents install ${agent.name})\n`);
  return outcome === 'no terminal' ? 2 : 1;
}
