// Other agents in the window (SPEC §22): Settings › Agents (the catalog with versions, installing
// one on the person's confirmation, what `initialize` reported, adding a command) and the threads
// whose agent is another one (*New thread with…*): each gets its runner when it is made or first
// sent to (its process is started ahead while the person types: threads.prepare), and its process
// tree ends when the thread is deleted or the folder closes.
import type { ExternalAgentDto } from '../contract';
import { ContractError } from '../contract';
import { installedAgent, KNOWN_AGENTS, knownAgent } from '../agents/vendors/catalog';
import { installAgent } from '../agents/agent-install';
import { agentStandInModel, type ExternalAgentRunner } from '../agents/agent-runner';
import { agentReport } from '../agents/agent-report';
import { externalAgentFor } from '../session/external-agent';
import type { FolderSession } from '../session/folder-session';
import type { ThreadService } from '../session/thread-service';
import type { WindowAgents } from './handlers';

export function windowAgents(options: { dataDir: string; env: NodeJS.ProcessEnv; session: FolderSession; threads: () => ThreadService; say(line: string): void; progress(name: string, line: string, done: boolean): void }): WindowAgents {
  const { dataDir, session } = options;
  const runners = new Map<string, Promise<ExternalAgentRunner>>();
  const installing = new Map<string, Promise<unknown>>();

  const list = (): ExternalAgentDto[] => {
    const added = session.settings.raw().agents?.added ?? [];
    const report = (name: string) => {
      const r = agentReport(dataDir, name);
      return r ? { reported: r } : {};
    };
    return [
      ...KNOWN_AGENTS.map((a) => ({ name: a.name, label: a.label, kind: 'known' as const, packageName: a.packageName, version: a.version, installed: installedAgent(dataDir, a) !== undefined, installing: installing.has(a.name), ...report(a.name) })),
      ...added.map((a) => ({ name: a.name, label: a.label ?? a.name, kind: 'added' as const, installed: true, command: [a.command, ...a.args].join(' '), ...report(a.name) })),
    ];
  };

  /** The thread's runner, made once: a request while it is made waits for it; one that failed is made again next time. */
  const start = (threadId: string, name: string): Promise<ExternalAgentRunner> => {
    const making = externalAgentFor(session, name, { name, threadId, dataDir, env: options.env, say: options.say }).then((runner) => {
      options.threads().useRunSettings(threadId, { externalAgent: runner, model: agentStandInModel(runner.spec) });
      return runner;
    });
    runners.set(threadId, making);
    void making.catch(() => {
      if (runners.get(threadId) === making) runners.delete(threadId);
    });
    return making;
  };

  const ready = async (threadId: string): Promise<ExternalAgentRunner | undefined> => {
    if (runners.has(threadId)) return runners.get(threadId);
    // Its agent is saved with it from when it was made (ThreadService.useRunSettings).
    const name = options.threads().store.externalAgent(threadId)?.name;
    return name === undefined ? undefined : start(threadId, name);
  };
  /** Ends the threads' agents, their whole process trees (a runner still being made, once made). */
  const end = async (threadIds: string[]): Promise<void> => {
    const ending = threadIds.map((id) => runners.get(id));
    for (const id of threadIds) runners.delete(id);
    await Promise.all(ending.map((r) => r?.then((runner) => runner.close(), () => undefined)));
  };

  return {
    handlers: {
      'externalAgents.list': async () => list(),
      'externalAgents.install': async ({ name }) => {
        const known = knownAgent(name);
        if (known === undefined) throw new ContractError(`${name} is not an agent of the catalog`, 'bad_request');
        // Minutes for a large agent: the window hears npm's progress and, at the end, what happened.
        const going = installing.get(name) ?? installAgent(dataDir, known, { progress: (line) => options.progress(name, line, false) });
        installing.set(name, going);
        try {
          await going;
        } catch (err) {
          const why = `${known.label} could not be installed: ${err instanceof Error ? err.message : String(err)}`;
          if (installing.delete(name)) options.progress(name, why, true);
          throw new ContractError(why, 'failed');
        }
        if (installing.delete(name)) options.progress(name, `${known.label} ${known.version} is installed.`, true);
        return list();
      },
      'externalAgents.add': async (agent) => {
        if (knownAgent(agent.name) !== undefined) throw new ContractError(`${agent.name} is the catalog's; give the command another name`, 'bad_request');
        const added = (session.settings.raw().agents?.added ?? []).filter((a) => a.name !== agent.name);
        await session.settings.update({ agents: { added: [...added, agent] } });
        return list();
      },
    },
    async created(threadId, name) {
      await start(threadId, name);
    },
    async ready(threadId) {
      await ready(threadId);
    },
    async prepare(threadId) {
      // Fails silently: the turn starts the agent again and reports what failed.
      const runner = await ready(threadId).catch(() => undefined);
      runner?.prepare(options.threads().store.externalAgent(threadId));
    },
    forget: (threadId) => end([threadId]),
    close: () => end([...runners.keys()]),
  };
}
