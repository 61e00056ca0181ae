// A thread's external agent (SPEC §22) from a folder session: the name (`run --agent NAME`,
// *New thread with…*, or the one the thread already has) resolved against the catalog and the
// commands added in Settings › Agents, and started for the thread with the session's rules,
// ledger, checkpoints and budget, the person's key and base URL for its provider.
import { existsSync } from 'node:fs';
import type { ThreadState } from '../../core/agent/types';
import type { RunBudgetScope } from '../usage/budget-tree';
import { DEFAULT_RULES } from '../../core/agent/permissions/rules';
import { ContractError } from '../contract';
import { agentScript, KNOWN_AGENTS } from '../agents/vendors/catalog';
import { ExternalAgentRunner, resolveAgent } from '../agents/agent-runner';
import type { FolderSession } from './folder-session';

export interface ExternalAgentRequest {
  /** The agent asked for (absent: the thread's own, when it has one). */
  name?: string;
  threadId: string;
  /** The thread as stored (a new one: undefined). */
  state?: ThreadState;
  dataDir: string;
  /** The client's environment: the provider's key and base URL. */
  env: NodeJS.ProcessEnv;
  /** A line for the person. */
  say?(line: string): void;
  /** `--max-cost` and the candidates' set the thread is one of (SPEC §21, §26). */
  budget?: RunBudgetScope;
}

/** The name of the thread's agent: the one asked for, else the thread's own; a thread keeps its agent. */
export function externalAgentName(request: Pick<ExternalAgentRequest, 'name' | 'state'>): string | undefined {
  const own = request.state?.externalAgent;
  if (request.name !== undefined && request.state !== undefined && request.state.messages.length > 0 && own?.name !== request.name) {
    throw new ContractError(own ? `this thread's agent is ${own.label}; it keeps it (start a new thread for ${request.name})` : `this thread is Deepdesk's own agent's; start a new thread for ${request.name}`, 'bad_request');
  }
  return request.name ?? own?.name;
}

/** The runner of the thread's agent; rejects with `bad_request` for an unknown or uninstalled agent, or a folder that is not on this computer. */
export async function externalAgentFor(session: FolderSession, name: string, request: ExternalAgentRequest): Promise<ExternalAgentRunner> {
  const settings = session.settings.raw();
  // A known agent runs from its installation in the data folder (shown read-only in its sandbox).
  const spec = resolveAgent(name, settings.agents?.added ?? [], request.dataDir);
  if (spec === undefined) {
    throw new ContractError(`there is no agent ${name}: ${KNOWN_AGENTS.map((a) => a.name).join(', ')} or one added in Settings › Agents`, 'bad_request');
  }
  const folder = session.place.localPath;
  if (folder === undefined || session.place.provider !== undefined) throw new ContractError(`${name} runs in a folder on this computer (a worktree too), not ${session.place.text}`, 'bad_request');
  let personKey: string | undefined;
  let upstream: string | undefined;
  if ('known' in spec) {
    const known = spec.known;
    if (!existsSync(agentScript(request.dataDir, known))) {
      throw new ContractError(`${known.label} is not installed: install it in Settings › Agents (${known.packageName}@${known.version} goes into the data folder)`, 'bad_request');
    }
    personKey = request.env[known.keyVariable]?.trim() || (await session.settings.apiKeyFor(known.priceProvider));
    upstream = request.env[known.baseUrlVariable]?.trim() || undefined;
    if (personKey === undefined && known.signInElsewhere !== undefined) {
      throw new ContractError(
        `${known.label} needs your key: set ${known.keyVariable} or its provider's key in Settings. Its own sign-in sends its calls to ${known.signInElsewhere}, which Deepdesk's metering proxy does not stand for`,
        'bad_request',
      );
    }
    if (personKey === undefined) request.say?.(`${known.label}: no ${known.keyVariable} here or in Settings, so it uses its own sign-in; its calls are recorded unpriced (a subscription's cost is not known here) and a budget cannot stop it by cost`);
  }
  return new ExternalAgentRunner({
    spec,
    threadId: request.threadId,
    folder,
    dataDir: request.dataDir,
    // The person's and the folder's rules first, then the defaults (writes and commands ask).
    rules: () => [...session.rules(), ...DEFAULT_RULES],
    telemetry: () => session.audit.telemetry(),
    checkpoints: session.recorder,
    prices: () => session.settings.raw().prices,
    ...(personKey !== undefined ? { personKey } : {}),
    ...(upstream !== undefined ? { upstream } : {}),
    budget: session.audit.budgets.agent(session.audit.budgets.run(request.threadId, folder, request.budget), name),
  });
}
