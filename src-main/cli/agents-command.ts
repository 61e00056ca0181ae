// `deepdesk agents`, `deepdesk attach THREAD` and `deepdesk stop THREAD` (SPEC §16): the runs
// of the data folder's agent host, one to follow (its approvals answered on this terminal;
// Ctrl-C detaches and the run goes on), one to stop.

import { resolveDataDir } from '../app/data-dir';
import type { AgentLine, AttachedRun, RunEnd } from '../app/host/runs';
import type { RunState } from '../app/session/run-records';
import { terminalSafe } from '../core/text/terminal-safe';
import { HostNotRunningError, type HostClient } from '../clients/host-client/client';
import { COMMAND_OPTIONS } from './command-table';
import { connectToHost, hostRequest } from './host-connection';
import { followRun, interactiveTerminal, printAnswer, whyNotCompleted, type TerminalIo } from './run-client';
import { table } from './table';
import { parseCommand, UsageError } from './usage';

const defaultIo = (): TerminalIo => ({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });

/** The states as SPEC §16 names them. */
const STATE_WORDS: Record<RunState, string> = { queued: 'Queued', working: 'Working', 'needs-you': 'Needs you', done: 'Done', stopped: 'Done', failed: 'Failed', interrupted: 'Failed' };

export async function agentsCommand(argv: string[], io: TerminalIo = defaultIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.agents);
  if (positionals.length > 0) throw new UsageError(`agents takes no arguments (got '${positionals[0]}')`);
  const dataDir = resolveDataDir(values['data-dir'], io.env);
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
    // The STATE column holds SPEC §16's words (and Queued, issue 40); `--json` tells an interrupted run apart.
    const rows = agents.map((a) => [a.threadId, STATE_WORDS[a.state], a.folder, a.title]);
    io.stdout.write(table([['ID', 'STATE', 'FOLDER', 'TITLE'], ...rows]));
    return 0;
  } finally {
    await host.close();
  }
}

export async function attachCommand(argv: string[], io: TerminalIo = defaultIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.attach);
  const threadId = onlyThread(positionals, 'attach');
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
        follower = followRun(host, threadId, io, { json: false, interactive, streamText: true });
        const attached = await hostRequest<AttachedRun>(host, 'runs.attach', { threadId, afterSeq: 0, interactive });
        const streamed = attached.end === undefined || attached.events.length > 0;
        follower.replay(attached);
        const followed = await follower.done;
        if (followed.kind === 'detached' || detaching) {
          await host.request('runs.detach', { threadId }).catch(() => undefined);
          io.stderr.write(`deepdesk: detached; the run goes on (deepdesk attach ${threadId})\n`);
          return 0;
        }
        if (followed.kind === 'host-gone') {
          io.stderr.write(`deepdesk: the agent host stopped (${terminalSafe(followed.reason, { singleLine: true })}); reconnecting…\n`);
          if (attempt >= 2) return 1;
          continue;
        }
        return reportEnd(io, followed.end, streamed);
      } finally {
        await host.close();
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function stopCommand(argv: string[], io: TerminalIo = defaultIo()): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.stop);
  const threadId = onlyThread(positionals, 'stop');
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  let host: HostClient;
  try {
    host = await connectToHost(dataDir, 'stop', io.env, false);
  } catch (err) {
    if (err instanceof HostNotRunningError) {
      io.stderr.write(`deepdesk stop: thread ${threadId} is not running (no agent host is)\n`);
      return 1;
    }
    throw err;
  }
  try {
    const end = await hostRequest<RunEnd>(host, 'runs.stop', { threadId });
    io.stdout.write(`Stopped ${threadId} (${STATE_WORDS[end.state]}).\n`);
    return 0;
  } catch (err) {
    if (err instanceof Error && (err as { code?: unknown }).code === 'not_found') {
      io.stderr.write(`deepdesk stop: ${terminalSafe(err.message, { singleLine: true })}\n`);
      return 1;
    }
    throw err;
  } finally {
    await host.close();
  }
}

function onlyThread(positionals: readonly string[], command: string): string {
  if (positionals.length !== 1 || positionals[0]!.trim() === '') throw new UsageError(`${command} needs one thread id, e.g. deepdesk ${command} 3f2a…  (deepdesk agents lists them)`);
  return positionals[0]!.trim();
}

function reportEnd(io: TerminalIo, end: RunEnd, streamed: boolean): number {
  if (end.reason === 'completed') {
    // A run that had ended before this attach: its answer was not streamed.
    if (!streamed && end.text !== '') printAnswer(io, end.text);
    return 0;
  }
  io.stderr.write(`deepdesk: ${terminalSafe(whyNotCompleted(end), { singleLine: true })}\n`);
  return 1;
}
