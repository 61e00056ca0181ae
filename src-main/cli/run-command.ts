// `deepdesk run [options] "prompt"` (SPEC §5, §16): the agent headless, to completion. The run
// itself is the agent host's (started on demand); this command checks its flags, asks the
// host to start it, follows it on the terminal and prints its final answer. With --detach it
// prints the thread's id and returns while the run goes on (`deepdesk attach ID` follows it).
// With --worktree [NAME] it first makes a git worktree of the folder (here, in the CLI) and the
// run's thread works there.

import { config as zodConfig } from 'zod/mini';
import { checkedModelSpec } from '../app/base/flag-checks';
import { nameProblem } from '../app/worktrees/worktree-names';
import { APPROVAL_MODES, DEFAULT_MODE, isApprovalMode } from '../core/agent/permissions/mode-names';
import { terminalSafe } from '../core/text/terminal-safe';
import { randomUuid } from '../core/fs/random-uuid';
import { resolveDataDir } from '../app/base/data-dir';
import type { HeadlessRunRequest } from '../app/session/headless-run';
import { dollarCap } from '../app/contract/budget-caps';
import { folderLocationText } from '../app/places/folder-location';


import { folderLocation } from './folder-flag';
import { COMMAND_OPTIONS } from './command-table';
import { badRequestAsUsage, parseCommand, positiveAmount, sessionFlagsOf, UsageError } from './usage';
import { connectToHost, definedEnv, hostRequest } from './host-connection';
import { followRun, interactiveTerminal, printAnswer, whyNotCompleted, type TerminalIo } from './run-client';

const RUN_OPTIONS = COMMAND_OPTIONS.run;

// A run's client checks a handful of frames and exits: zod's compiled fast path (a `new
// Function` per object schema, at its first parse) costs it more than it saves. The same
// checks are made either way; the agent host, which lives on, keeps compiling them.
zodConfig({ jitless: true });

type ApproveMode = 'ask' | 'auto' | 'deny';

export type RunIo = TerminalIo;

// stdin is read only when asked for: Node makes its stream at the first touch, and a run whose
// stderr is no terminal never asks the person anything.
const defaultIo = (): RunIo => ({
  get stdin() {
    return process.stdin;
  },
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});

/**
 * The run's flags. `--worktree` takes an optional NAME, which parseArgs cannot say: `--worktree=NAME`;
 * `--worktree NAME "prompt"` when NAME is a valid worktree name and a prompt still follows;
 * otherwise `--worktree` alone, read as `--worktree=` (a made-up name).
 */
export function parseRunArgs(argv: string[]) {
  const end = argv.indexOf('--');
  const at = argv.findIndex((arg, i) => arg === '--worktree' && (end < 0 || i < end));
  if (at < 0) return parseCommand(argv, RUN_OPTIONS);
  const next = argv[at + 1];
  if (next !== undefined && nameProblem(next) === undefined) {
    try {
      const named = parseCommand([...argv.slice(0, at), `--worktree=${next}`, ...argv.slice(at + 2)], RUN_OPTIONS);
      if (named.positionals.join(' ').trim() !== '') return named;
    } catch {
      // Read with NAME as the prompt instead, below.
    }
  }
  return parseCommand([...argv.slice(0, at), '--worktree=', ...argv.slice(at + 1)], RUN_OPTIONS);
}

export async function runCommand(argv: string[], io: RunIo = defaultIo()): Promise<number> {
  const { values, positionals } = parseRunArgs(argv);
  const prompt = positionals.join(' ').trim();
  const printRequest = values['print-request'] === true;
  const flags = sessionFlagsOf('run', values);
  const goal = flags.goal;
  if (goal !== undefined && printRequest) throw new UsageError('--goal runs to a verdict: it takes no --print-request');
  if (flags.verify !== undefined && goal === undefined) throw new UsageError('--verify goes with --goal');
  if (values.yes === true && goal === undefined && flags.externalAgent === undefined) throw new UsageError('--yes goes with --goal (accepting its draft) or --agent (installing it)');
  if (flags.prompts !== undefined && flags.candidates === undefined) throw new UsageError("--prompt is a candidate's own instruction: it goes with --candidates (a single run's prompt is its words)");
  if (prompt === '' && !printRequest && goal === undefined) throw new UsageError('run needs a prompt, e.g. deepdesk run "explain this project"');
  if (printRequest && (values.detach === true || values.worktree !== undefined)) throw new UsageError('--print-request shows the request and starts no run: it takes no --detach or --worktree');
  const worktree = values.worktree;
  if (worktree !== undefined) {
    if (values.thread !== undefined) throw new UsageError('--worktree starts a new thread in a new worktree; it cannot continue --thread');
    const problem = worktree === '' ? undefined : nameProblem(worktree);
    if (problem !== undefined) throw new UsageError(`--worktree: ${problem}`);
  } else if (values['carry-changes'] === true) {
    throw new UsageError('--carry-changes goes with --worktree');
  }
  const sandbox = flags.sandbox;
  if (sandbox !== undefined) {
    if (worktree !== undefined) throw new UsageError('--sandbox makes the thread its own worktree: it takes no --worktree');
    if (printRequest) throw new UsageError('--print-request shows the request and starts no run: it takes no --sandbox');
  }
  const approve = (values.approve ?? 'ask') as ApproveMode;
  if (!['ask', 'auto', 'deny'].includes(approve)) throw new UsageError(`--approve must be ask, auto or deny (got '${values.approve}')`);
  const mode = values.mode ?? DEFAULT_MODE;
  if (!isApprovalMode(mode)) throw new UsageError(`--mode must be ${APPROVAL_MODES.join(', ')} (got '${values.mode}')`);
  const location = folderLocation(values.folder);
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  const maxCost = positiveAmount('--max-cost', values['max-cost']);
  // A spec given is checked before the host starts; none given, the host takes Settings' model (or says there is none).
  const spec = flags.model ?? (io.env.DEEPDESK_MODEL?.trim() || undefined);
  if (spec !== undefined) badRequestAsUsage(() => checkedModelSpec(spec));
  const detach = values.detach === true;
  const json = values.json === true;
  const request = (folder: string, threadId: string | undefined): HeadlessRunRequest => ({
    folder,
    prompt,
    ...(threadId !== undefined ? { threadId } : {}),
    ...flags,
    mode,
    ...(maxCost !== undefined ? { budget: dollarCap(maxCost)! } : {}),
    // A drafted goal is shown on the terminal to accept; with --yes, detached or with no terminal it is accepted (SPEC §21).
    ...(goal !== undefined && (values.yes === true || detach || !interactiveTerminal(io)) ? { acceptDraft: true } : {}),
    cwd: process.cwd(),
    env: definedEnv(io.env),
  });
  if (flags.candidates !== undefined) {
    if (goal === undefined) throw new UsageError('--candidates N pursues a goal: it needs --goal TEXT');
    if (printRequest || detach || worktree !== undefined || values.thread !== undefined || sandbox?.id !== undefined) {
      throw new UsageError('--candidates makes a worktree (or a sandbox) per candidate and follows them to the ranking: it takes no --print-request, --detach, --worktree, --thread or --sandbox-id');
    }
    if (location.kind !== 'local') throw new UsageError(`--candidates: worktrees need a local git repository, not ${location.url}`);
    // Loaded only for a set: its ranking reads the app's host modules, which a plain run never needs.
    const { modelFlags, repeatedFlag, runCandidates } = await import('./run-candidates');
    const models = modelFlags(argv);
    for (const m of models) badRequestAsUsage(() => checkedModelSpec(m));
    const agents = repeatedFlag(argv, 'agent');
    const prompts = repeatedFlag(argv, 'prompt');
    const { agentForRun } = await import('./agent-install');
    for (const name of new Set(agents)) {
      const refused = await agentForRun(dataDir, name, { io, yes: values.yes === true, command: 'deepdesk run' });
      if (refused !== undefined) return refused;
    }
    return runCandidates({
      count: flags.candidates,
      models,
      agents,
      prompts,
      folder: location.path,
      dataDir,
      json,
      ...(maxCost !== undefined ? { budget: dollarCap(maxCost)! } : {}),
      approve,
      io,
      request: (folder, model) => {
        // The set's budget is the host's (one for all); each candidate has its own model, if given.
        const { budget: _own, candidates: _count, model: _given, externalAgent: _agent, prompts: _prompts, ...one } = request(folder, undefined);
        return { ...one, ...(model !== undefined ? { model } : {}), acceptDraft: true };
      },
    });
  }
  if (printRequest) {
    const { printRequestCommand } = await import('./print-request');
    return printRequestCommand(request(folderLocationText(location), values.thread), { dataDir, json, io });
  }
  // Another agent's install is looked at (a module loaded, a file read) while the host is reached.
  const connecting = flags.externalAgent !== undefined && worktree === undefined ? connectToHost(dataDir, 'run', io.env) : undefined;
  // Its failure is told where it is awaited, below: not as a rejection nobody handled meanwhile.
  connecting?.catch(() => undefined);
  if (flags.externalAgent !== undefined) {
    const { agentForRun } = await import('./agent-install');
    let refused: number | undefined = 1;
    try {
      refused = await agentForRun(dataDir, flags.externalAgent, { io, yes: values.yes === true, command: 'deepdesk run' });
    } finally {
      if (refused !== undefined) await connecting?.then((host) => host.close(), () => undefined);
    }
    if (refused !== undefined) return refused;
  }
  // Not node:crypto's: loading it would cost the run's start more than the id (random-uuid.ts).
  const threadId = values.thread ?? randomUuid();
  const interactive = !detach && interactiveTerminal(io);
  let folder = folderLocationText(location);
  if (worktree !== undefined) {
    if (location.kind !== 'local') throw new UsageError(`--worktree: worktrees need a local git repository, not ${location.url}`);
    const { worktreeForRun } = await import('./worktrees-command');
    const made = await worktreeForRun({
      dataDir,
      folder: location.path,
      ...(worktree !== '' ? { name: worktree } : {}),
      carry: values['carry-changes'] === true,
      nameHint: prompt,
      mayAsk: interactive,
      io,
    });
    folder = made.threadFolder;
  }

  const host = await (connecting ?? connectToHost(dataDir, 'run', io.env));
  const follower = detach ? undefined : followRun(host, threadId, io, { json, interactive, endAtPause: true });
  // Detached, the lines said while the run starts (a server that failed, a skill left out) are still the person's.
  const stopSays = detach
    ? host.onEvent((event, payload) => {
        const said = payload as { threadId?: string; line?: string };
        if (event === 'run.say' && said.threadId === threadId) io.stderr.write(`deepdesk: ${terminalSafe(String(said.line), { singleLine: true })}\n`);
      })
    : undefined;
  const onSignal = () => {
    // The first Ctrl-C stops the run (its commands' process trees too); a second one leaves at once.
    if (stopping) process.exit(130);
    stopping = true;
    void host.request('runs.stop', { threadId }).catch(() => undefined);
  };
  let stopping = false;
  if (!detach) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  try {
    await hostRequest(host, 'runs.start', {
      request: request(folder, threadId),
      approve,
      interactive,
      detach,
    });
    if (follower === undefined) {
      io.stdout.write(`${threadId}\n`);
      return 0;
    }
    const followed = await follower.done;
    if (followed.kind === 'host-gone') {
      io.stderr.write(`deepdesk run: the agent host stopped (${terminalSafe(followed.reason, { singleLine: true })}); the run was interrupted — deepdesk agents lists it\n`);
      return 1;
    }
    if (followed.kind === 'detached') return 0;
    const { end } = followed;
    if (end.goal !== undefined) {
      // A goal's run exits 0 only when the host granted it (SPEC §21), and names the state otherwise.
      const { state, reason } = end.goal;
      if (state === 'achieved') {
        if (!json) printAnswer(io, end.text);
        io.stderr.write(`deepdesk run: goal achieved${reason !== undefined ? ` — ${terminalSafe(reason, { singleLine: true })}` : ''}\n`);
        return 0;
      }
      io.stderr.write(`deepdesk run: goal ${state}${reason !== undefined ? ` — ${terminalSafe(reason, { singleLine: true })}` : ''}\n`);
      for (const claim of end.goal.contradictedClaims) {
        io.stderr.write(`deepdesk run: contradicted claim: the agent said "${terminalSafe(claim.claim.slice(0, 200), { singleLine: true })}" while ${claim.failingSteps.map((s) => `\`${terminalSafe(s.command, { singleLine: true })}\` exited ${s.exitCode ?? 'without a code'}`).join(', ')}\n`);
      }
      return 1;
    }
    if (end.reason === 'completed') {
      if (!json) printAnswer(io, end.text);
      return 0;
    }
    io.stderr.write(`deepdesk run: ${terminalSafe(whyNotCompleted(end))}\n`);
    return 1;
  } finally {
    stopSays?.();
    follower?.detach();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await host.close();
  }
}
