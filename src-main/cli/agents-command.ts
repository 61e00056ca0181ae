// `deepdesk agents`, `deepdesk attach THREAD` and `deepdesk stop THREAD` (SPEC §16): the runs
// of the data folder's agent host, one to follow (what the thread did so far, then its events;
// its approvals answered on this terminal; Ctrl-C detaches and the run goes on), one to stop.
// THREAD is a thread's id or a beginning of it that names it alone (thread-ref.ts).

import { goalLine } from './run-client';
import { installAgentIfConfirmed } from './agent-install';
import { KNOWN_AGENTS, knownAgent } from '../app/agents/vendors/catalog';
import { resolveDataDir } from '../app/base/data-dir';
import { AGENT_STATE_WORDS } from '../app/contract';
import type { AgentLine, AttachedRun } from '../app/host/run-views';
import type { RunEnd } from '../app/session/run-requests';
import { HostRequestError } from '../app/base/host-service';
import { agentStateOf } from '../app/session/agent-board';
import type { RunState } from '../app/threads/run-records';
import { terminalSafe } from '../core/text/terminal-safe';
import { HostNotRunningError, type HostClient } from '../clients/host-client/client';
import { COMMAND_OPTIONS } from './command-table';
import { connectToHost, hostRequest } from './host-connection';
import { followRun, interactiveTerminal, printHistory, whyNotCompleted, processTerminalIo, type TerminalIo } from './run-client';
import { table } from './table';
import { parseCommand, UsageError } from './usage';

/** A run's state in SPEC §16's words (an interrupted run failed; `--json` tells them apart). */
function stateWord(state: RunState): string {
  return AGENT_STATE_WORDS[agentStateOf(state)];
}

export async function agentsCommand(argv: string[], io: TerminalIo = processTerminalIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.agents);
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  if (positionals[0] === 'install') return installCommand(positionals.slice(1), values.yes === true, dataDir, io);
  if (positionals.length > 0) throw new UsageError(`agents takes no arguments but install NAME (got '${positionals[0]}')`);
  if (values.yes === true) throw new UsageError('--yes goes with agents install NAME');
  const host = await connectToHost(dataDir, 'agents', io.env);
  try {
    const { agents } = await hostRequest<{ agents: AgentLine[] }>(host, 'runs.list', {});
    if (values.json) {
      io.stdout.write(JSON.stringify(agents) + '\n');
      return 0;
    }
    if (agents.length === 0) {
      io.stdout.write('No runs in the agent host yet: deepdesk run --detach "…" starts one.\n');
      return 0;
    }
    // Short ids, as git shows commits (attach and stop take them); on a terminal each row fits its width.
    // A GOAL column only when a thread listed has a goal (SPEC §21).
    const goals = agents.some((a) => a.goal !== undefined);
    // An AGENT column only when a thread listed is another agent's (SPEC §22).
    const others = agents.some((a) => a.agent !== undefined);
    const rows = agents.map((a) => [a.shortId, stateWord(a.state), ...(goals ? [a.goal?.state ?? '-'] : []), ...(others ? [a.agent ?? 'Deepdesk'] : []), a.folder, a.title]);
    const head = ['ID', 'STATE', ...(goals ? ['GOAL'] : []), ...(others ? ['AGENT'] : []), 'FOLDER', 'TITLE'];
    const at = 2 + (goals ? 1 : 0) + (others ? 1 : 0);
    const cut = { [at]: 'start' as const, [at + 1]: 'end' as const };
    const columns = (io.stdout as { isTTY?: boolean; columns?: number }).isTTY === true ? (io.stdout as { columns?: number }).columns : undefined;
    io.stdout.write(table([head, ...rows], columns !== undefined && columns > 0 ? { width: columns, cut } : undefined));
    return 0;
  } finally {
    await host.close();
  }
}

/** `deepdesk agents install NAME [--yes]`: a catalog agent into the data folder, on the person's confirmation. */
async function installCommand(names: string[], yes: boolean, dataDir: string, io: TerminalIo): Promise<number> {
  const catalog = KNOWN_AGENTS.map((a) => a.name).join(', ');
  if (names.length !== 1) throw new UsageError(`agents install takes one agent's name: ${catalog}`);
  const agent = knownAgent(names[0]!);
  if (agent === undefined) throw new UsageError(`agents install: ${names[0]} is not an agent of the catalog (${catalog}); a command of your own is added in Settings › Agents`);
  const outcome = await installAgentIfConfirmed(dataDir, agent, { io, yes, command: 'deepdesk agents install' });
  if (outcome === 'no terminal') io.stderr.write('deepdesk agents install: not installed: confirm with --yes (there is no terminal to ask on)\n');
  return outcome === 'installed' ? 0 : outcome === 'no terminal' ? 2 : 1;
}

export async function attachCommand(argv: string[], io: TerminalIo = processTerminalIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.attach);
  const ref = onlyThread(positionals, 'attach');
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  const interactive = interactiveTerminal(io);
  let detaching = false;
  let follower: ReturnType<typeof followRun> | undefined;
  const onSignal = () => {
    detaching = true;
    follower?.detach();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    // A host that dies is told in one line; the next one says what became of the run.
    for (let attempt = 0; ; attempt++) {
      const host = await connectToHost(dataDir, 'attach', io.env);
      try {
        const threadId = await resolveThread(host, ref);
        if (threadId === undefined) {
          io.stderr.write(`deepdesk attach: no thread '${terminalSafe(ref, { singleLine: true })}' (deepdesk agents lists the runs)\n`);
          return 1;
        }
        follower = followRun(host, threadId, io, { json: false, interactive, streamText: true });
        const attached = await hostRequest<AttachedRun>(host, 'runs.attach', { threadId, afterSeq: 0, interactive });
        // The goal's state first (docs/goals.md), then what the thread did so far.
        if (attempt === 0 && attached.goal !== undefined) io.stderr.write(`deepdesk: ${goalLine(attached.goal)}\n`);
        if (attempt === 0) printHistory(io, attached.history, ref);
        follower.replay(attached);
        const followed = await follower.done;
        if (followed.kind === 'detached' || detaching) {
          await host.request('runs.detach', { threadId }).catch(() => undefined);
          io.stderr.write(`deepdesk: detached; the run goes on (deepdesk attach ${ref})\n`);
          return 0;
        }
        if (followed.kind === 'host-gone') {
          io.stderr.write(`deepdesk: the agent host stopped (${terminalSafe(followed.reason, { singleLine: true })}); reconnecting…\n`);
          if (attempt >= 2) return 1;
          continue;
        }
        // A thread that was not running: its history is all there is to show.
        if (attempt === 0 && attached.end !== undefined) {
          io.stderr.write(`deepdesk: thread ${terminalSafe(ref, { singleLine: true })} is not running (${endWords(followed.end)})\n`);
          return 0;
        }
        return reportEnd(io, followed.end);
      } finally {
        await host.close();
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function stopCommand(argv: string[], io: TerminalIo = processTerminalIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.stop);
  const ref = onlyThread(positionals, 'stop');
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  let host: HostClient;
  try {
    host = await connectToHost(dataDir, 'stop', io.env, false);
  } catch (err) {
    if (err instanceof HostNotRunningError) {
      io.stderr.write(`deepdesk stop: thread ${terminalSafe(ref, { singleLine: true })} is not running (no agent host is)\n`);
      return 1;
    }
    throw err;
  }
  try {
    const threadId = await resolveThread(host, ref);
    if (threadId === undefined) {
      io.stderr.write(`deepdesk stop: no thread '${terminalSafe(ref, { singleLine: true })}' (deepdesk agents lists the runs)\n`);
      return 1;
    }
    const end = await hostRequest<RunEnd>(host, 'runs.stop', { threadId });
    io.stdout.write(end.state === 'stopped' ? `Stopped ${threadId}.\n` : `${threadId} ended before it could be stopped (${endWords(end)}).\n`);
    return 0;
  } catch (err) {
    if (err instanceof HostRequestError && err.code === 'not_found') {
      io.stderr.write(`deepdesk stop: ${terminalSafe(err.message, { singleLine: true })}\n`);
      return 1;
    }
    throw err;
  } finally {
    await host.close();
  }
}

function onlyThread(positionals: readonly string[], command: string): string {
  if (positionals.length !== 1 || positionals[0]!.trim() === '') throw new UsageError(`${command} needs one thread id, e.g. deepdesk ${command} 3f2a91c0  (deepdesk agents lists them)`);
  return positionals[0]!.trim();
}

/** The thread `ref` names (its id or a unique beginning of it), undefined when none; several are bad usage (exit 2, naming them). */
async function resolveThread(host: HostClient, ref: string): Promise<string | undefined> {
  try {
    return (await hostRequest<{ threadId: string }>(host, 'threads.resolve', { ref })).threadId;
  } catch (err) {
    if (err instanceof HostRequestError && err.code === 'not_found') return undefined;
    throw err;
  }
}

/** How a run ended, in SPEC §16's word, with why when it failed. */
function endWords(end: RunEnd): string {
  return end.state === 'failed' || end.state === 'interrupted' ? `${stateWord(end.state)}: ${terminalSafe(whyNotCompleted(end), { singleLine: true })}` : stateWord(end.state);
}

/** A run that ended while this terminal followed it: a failure is told and exits 1; a stop is said. */
function reportEnd(io: TerminalIo, end: RunEnd): number {
  if (end.reason === 'completed') return 0;
  io.stderr.write(`deepdesk: ${terminalSafe(whyNotCompleted(end), { singleLine: true })}\n`);
  return end.state === 'stopped' ? 0 : 1;
}
