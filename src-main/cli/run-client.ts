// A terminal following a run in the agent host (`deepdesk run`, `deepdesk attach`): its
// events as progress lines (or --json), its lines for the person on stderr, its approvals
// asked on the terminal — withdrawn when another client answers first — until it ends.

import type { GoalJson } from '../core/goals/goal';
import { goalCheckOf } from '../core/goals/goal-check';
import type { AgentEvent, ApprovalDecision, ApprovalRequest } from '../core/agent/types';
import type { ToolResultFacts } from '../core/tools/result-facts';
import { describeLinkTarget } from '../core/agent/permissions/link-target-text';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { askLine, writeContent } from './terminal-output';
import type { ApprovalPreview } from '../app/approvals/approval-preview';
import type { AgentEventTable } from '../app/contract/agent-events';
import type { AttachedRun, PendingQuestion, ThreadHistory } from '../app/host/run-views';
import type { RunEnd } from '../app/session/run-requests';
import type { HostClient } from '../clients/host-client/client';

export interface TerminalIo {
  stdin: NodeJS.ReadStream | NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export const processTerminalIo = (): TerminalIo => ({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });

/** A goal in one line: its state, why, and the host's latest verify results. */
export function goalLine(goal: GoalJson): string {
  const steps = goal.evidence?.steps.map((s) => `\`${s.command}\` exited ${s.exitCode ?? 'without a code'}${s.passed ? '' : ` (expected ${s.expectedExitCode})`}`) ?? [];
  const parts = [`goal ${goal.state}`, ...(goal.reason !== undefined ? [goal.reason] : []), ...(steps.length > 0 ? [`checks: ${steps.join(', ')}`] : [])];
  return terminalSafe(parts.join(' — '), { singleLine: true });
}

/** How following ended: the run's end, or the host gone from under it. */
export type Followed = { kind: 'ended'; end: RunEnd } | { kind: 'host-gone'; reason: string } | { kind: 'detached' };

/**
 * Which kinds `--json` prints (SPEC §5): `retry` and `tool_output` feed the window's countdown
 * and live tail, the others the window's conversation; one entry per kind of the contract's union.
 */
const IN_JSON: AgentEventTable<boolean> = {
  text: true,
  tool_call: true,
  tool_result: true,
  approval: true,
  todos: true,
  summarized: true,
  usage: true,
  checkpoint: true,
  error: true,
  user_message: false,
  queued: false,
  note: false,
  hook: true,
  rewound: false,
  retry: false,
  tool_output: false,
  goal: true,
  paused: true,
  done: true,
};

/** Whether this terminal can answer approvals (a person at stdin and stderr). */
export function interactiveTerminal(io: TerminalIo): boolean {
  return io.stderr.isTTY === true && (io.stdin as NodeJS.ReadStream).isTTY === true;
}

export interface Follower {
  /** Shows what an attach returned (events kept so far, pending approvals). */
  replay(attached: AttachedRun): void;
  /** Resolves when the run ends, the host goes, or `detach` is called. */
  readonly done: Promise<Followed>;
  detach(): void;
}

/** Starts listening for `threadId`'s events at once (they may come before the request that starts the run is answered). */
/**
 * `endAtPause`: a foreground `run` ends when a call pauses at a cap (SPEC §26): it exits with the
 * paused line (`--json`: a `done` of reason `budget`) and the thread stays paused in the host.
 */
export function followRun(client: HostClient, threadId: string, io: TerminalIo, options: { json: boolean; interactive: boolean; streamText?: boolean; endAtPause?: boolean }): Follower {
  let finish!: (followed: Followed) => void;
  const done = new Promise<Followed>((resolve) => (finish = resolve));
  let lastSeq = 0;
  let streamed = false;
  let goal: Extract<AgentEvent, { type: 'goal' }>['goal'] | undefined;
  const progress = progressPrinter(io);
  const show = (seq: number, event: AgentEvent) => {
    if (seq <= lastSeq) return;
    lastSeq = seq;
    if (event.type === 'goal' && event.parentToolCallId === undefined) goal = event.goal;
    const pausedAt = options.endAtPause === true && event.type === 'paused' ? event.line : undefined;
    // A goal paused with its run reads budget-limited meanwhile (SPEC §21, §26): the run's end says so.
    if (pausedAt !== undefined) queueMicrotask(() => end({ kind: 'ended', end: { state: 'budget', reason: 'budget', text: '', error: pausedAt, ...(goal !== undefined ? { goal } : {}) } }));
    if (options.json) {
      if (IN_JSON[event.type]) io.stdout.write(terminalSafeJson(event) + '\n');
      if (pausedAt !== undefined) io.stdout.write(terminalSafeJson({ type: 'done', threadId, text: '', reason: 'budget' }) + '\n');
      return;
    }
    // `attach` streams the agent's words as they come (`run` prints its answer once, at the end).
    if (options.streamText === true && event.type === 'text' && event.parentToolCallId === undefined) {
      writeContent(io.stdout, event.text);
      streamed = !event.text.endsWith('\n');
      return;
    }
    if (options.streamText === true && event.type === 'done' && streamed) {
      io.stdout.write('\n');
      streamed = false;
    }
    // What a hook did (a failed script, a refused message), and an agent starting afresh (SPEC §22), are the person's to know, terminal or not.
    if (event.type === 'hook') io.stderr.write(`deepdesk: ${terminalSafe(event.message, { singleLine: true })} (${terminalSafe(event.hook.command, { singleLine: true })})\n`);
    // The reviewer's breaker tripping (SPEC §23) is told to the person here too: they answer from now on.
    if (event.type === 'note' && (event.kind === 'resume' || event.kind === 'reviewer')) io.stderr.write(`deepdesk: ${terminalSafe(event.text, { singleLine: true })}\n`);
    // The goal's state as the host checks it (SPEC §21): one line each time it changes or is checked.
    if (event.type === 'goal' && event.parentToolCallId === undefined) io.stderr.write(`deepdesk: ${goalLine(event.goal)}\n`);
    // Subagents that did not all finish are said, whatever the answer says (SPEC §26 honest counts).
    if (event.type === 'done' && event.parentToolCallId === undefined && event.fanOut !== undefined && event.fanOut.finished < event.fanOut.total) io.stderr.write(`deepdesk: subagents: ${event.fanOut.line}\n`);
    progress(event);
  };
  const say = (line: string) => io.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`);

  // Approvals one at a time; one answered elsewhere is withdrawn from this terminal.
  const questions: PendingQuestion[] = [];
  let asking: { key: string; controller: AbortController } | undefined;
  const askNext = () => {
    if (asking !== undefined || !options.interactive) return;
    const next = questions.shift();
    if (next === undefined) return;
    const controller = new AbortController();
    asking = { key: next.key, controller };
    void askOnTerminal(next, io.stdin as NodeJS.ReadStream, io.stderr, controller.signal)
      .then(
        (decision) => {
          // Answered here: the question's withdrawal that follows is this answer, not another client's.
          asking = undefined;
          return client.request('runs.decide', { threadId, key: next.key, decision }).catch(() => undefined);
        },
        () => undefined,
      )
      .finally(() => {
        if (asking?.key === next.key) asking = undefined;
        askNext();
      });
  };
  const question = (pending: PendingQuestion) => {
    if (asking?.key === pending.key || questions.some((q) => q.key === pending.key)) return;
    questions.push(pending);
    askNext();
  };
  const gone = (key: string) => {
    const index = questions.findIndex((q) => q.key === key);
    if (index >= 0) questions.splice(index, 1);
    if (asking?.key === key) {
      asking.controller.abort();
      io.stderr.write('\n(answered elsewhere)\n');
    }
  };

  const stopEvents = client.onEvent((event, payload) => {
    const p = payload as { threadId?: unknown };
    if (p.threadId !== threadId) return;
    switch (event) {
      case 'run.event': {
        const { seq, event: agentEvent } = payload as { seq: number; event: AgentEvent };
        show(seq, agentEvent);
        break;
      }
      case 'run.say':
        say((payload as { line: string }).line);
        break;
      case 'run.approval':
        question(payload as PendingQuestion);
        break;
      case 'run.approvalGone':
        gone((payload as { key: string }).key);
        break;
      case 'run.end':
        end({ kind: 'ended', end: payload as RunEnd });
        break;
    }
  });
  const stopClose = client.onClose((reason) => end({ kind: 'host-gone', reason }));
  const end = (followed: Followed) => {
    stopEvents();
    stopClose();
    asking?.controller.abort();
    questions.length = 0;
    finish(followed);
  };
  return {
    done,
    replay(attached) {
      if (attached.dropped > 0) io.stderr.write(`deepdesk: (${attached.dropped} earlier events of this run are not kept)\n`);
      for (const line of attached.says) say(line);
      for (const { seq, event } of attached.events) show(seq, event);
      for (const pending of attached.approvals) question(pending);
      if (attached.end !== undefined) end({ kind: 'ended', end: attached.end });
    },
    detach: () => end({ kind: 'detached' }),
  };
}

/** One line on why a run did not complete. */
export function whyNotCompleted(end: RunEnd): string {
  if (end.reason === 'interrupted') return end.error ?? 'interrupted: the agent host stopped';
  if (end.reason === 'error' || end.reason === 'budget' || end.reason === 'quota') return (end.error ?? 'the agent failed').split('\n')[0] ?? '';
  if (end.reason === 'aborted') return 'stopped';
  return 'stopped after too many steps';
}

/** The run's answer on stdout (terminal-safe on a terminal). */
export function printAnswer(io: TerminalIo, text: string): void {
  writeContent(io.stdout, text.endsWith('\n') ? text : text + '\n');
}

async function askOnTerminal({ request, preview, runsIn }: PendingQuestion, input: NodeJS.ReadStream, output: NodeJS.WritableStream, signal: AbortSignal): Promise<ApprovalDecision> {
  // Everything here but our own words comes from the model: shown, never obeyed by the terminal.
  const via = describeLinkTarget(request.toolName, request.args, request.resolvedTarget);
  const shown = await callShown(request, preview);
  output.write(
    // Another agent of the thread asking over ACP (SPEC §22) is named first.
    `\n${request.agent !== undefined ? `${terminalSafe(request.agent, { singleLine: true })} asks: ` : ''}${terminalSafe(request.toolName, { singleLine: true })} needs approval: ${terminalSafe(request.reason)}\n` +
      (via !== null ? `${terminalSafe(via, { singleLine: true })}\n` : '') +
      `${terminalSafe(shown)}\n` +
      (runsIn !== undefined ? `${terminalSafe(runsIn, { singleLine: true })}\n` : '') +
      goalCheckLine(request.toolCallId),
  );
  const answer = (await askLine(input, output, 'Approve? [y]es / [n]o / or type a reply for the agent: ', { signal })).trim();
  if (/^(y|yes)$/i.test(answer)) return { type: 'approve' };
  if (answer === '' || /^(n|no)$/i.test(answer)) return { type: 'reject' };
  return { type: 'reject', message: answer };
}

/** The host's own run of a goal's verify step (SPEC §21) says so, as the window's card does: which step, and what refusing does. */
function goalCheckLine(toolCallId: string): string {
  const check = goalCheckOf(toolCallId);
  return check === undefined ? '' : `Goal check ${check.step} of ${check.of}: the host runs this to check the goal, as the agent's own commands run. Refuse it and the goal ends blocked: it is never granted without its checks.\n`;
}

/** Lines of an approval's diff shown on a terminal; a longer one ends with how many more there are. */
const DIFF_LINES = 400;

/** What a call would do, as the window's approval shows it: an edit's or a write's diff, a command, else its arguments. */
async function callShown(request: ApprovalRequest, preview: ApprovalPreview | undefined): Promise<string> {
  if (preview !== undefined && (request.toolName === 'edit_file' || request.toolName === 'write_file')) {
    // Loaded when a diff is shown: a run that asks nothing never loads the diff library.
    const { unifiedHunks } = await import('../core/text/unified-diff');
    const hunks = unifiedHunks(preview.before, preview.after);
    const shown = hunks.length > DIFF_LINES ? [...hunks.slice(0, DIFF_LINES), `… ${hunks.length - DIFF_LINES} more lines of the diff`] : hunks;
    return [`--- ${preview.path}`, `+++ ${preview.path}`, ...(shown.length > 0 ? shown : ['(no change)'])].join('\n');
  }
  if (request.toolName === 'execute' && typeof request.args.command === 'string') return `Command: ${request.args.command}`;
  return terminalSafeJson(request.args, 2);
}

/** A tool call in one line: its name and the start of its arguments. */
function toolLine(name: string, args: unknown): string {
  return `• ${terminalSafe(name, { singleLine: true })} ${truncate(terminalSafeJson(args), 100)}`;
}

/**
 * Without --json: a line of progress per tool call on a terminal's stderr, nothing otherwise.
 * Another agent may tell a call again with more of it (Claude Code tells its Bash as "Terminal",
 * then with its command): still one line, and a call told by its title alone waits for what it runs.
 */
function progressPrinter(io: TerminalIo): (event: AgentEvent) => void {
  if (!io.stderr.isTTY) return () => undefined;
  const shown = new Set<string>();
  // Why a rule or a hook refused a call: its approval event says it, before the result.
  const refusals = new Map<string, string>();
  let titleOnly: Extract<AgentEvent, { type: 'tool_call' }> | undefined;
  const show = (call: Extract<AgentEvent, { type: 'tool_call' }>) => {
    shown.add(call.id);
    io.stderr.write(`${toolLine(call.name, call.args)}\n`);
  };
  return (event) => {
    const waiting = titleOnly;
    titleOnly = undefined;
    if (waiting !== undefined && !(event.type === 'tool_call' && event.id === waiting.id)) show(waiting);
    if (event.type === 'tool_call' && !shown.has(event.id)) {
      if (isTitleOnly(event.args)) titleOnly = event;
      else show(event);
    } else if (event.type === 'approval' && event.status === 'denied') refusals.set(event.id, event.reason);
    else if (event.type === 'tool_result') {
      const line = notRunLine(event, refusals.get(event.id));
      if (line !== null) io.stderr.write(`${line}\n`);
    } else if (event.type === 'summarized') io.stderr.write(`${summarizedLine(event.summarizedMessages, event.archivePath)}\n`);
  };
}

/**
 * Under a call's line, when it did not run or did not finish: who refused it and why (SPEC
 * §23's deciders), else that it was stopped. A call that ran says nothing more.
 */
function notRunLine(result: Pick<ToolResultFacts, 'rejected' | 'decided' | 'interrupted'>, reason?: string): string | null {
  const { rejected } = result;
  if (rejected === undefined) return result.interrupted === true ? '  ✗ stopped before it finished' : null;
  const why = (text: string | undefined): string => (text !== undefined && text.trim() !== '' ? `: ${terminalSafe(text.trim(), { singleLine: true })}` : '');
  switch (rejected.by) {
    case 'reviewer':
      return `  ✗ not run: denied by the reviewer${why(rejected.message ?? result.decided?.review?.rationale)}`;
    case 'person':
      return rejected.answered === true ? '  ✗ not run: you answered instead' : `  ✗ not run: rejected by you${why(rejected.message)}`;
    case 'rule':
      return `  ✗ not run: refused by a rule${why(reason)}`;
    case 'hook':
      return `  ✗ not run: blocked by a hook${why(reason)}`;
    case 'mode':
      return '  ✗ not run: plan mode is read-only';
  }
}

const isTitleOnly = (args: unknown): boolean => typeof args === 'object' && args !== null && Object.keys(args).join() === 'title';

function summarizedLine(messages: number, archivePath: string): string {
  return `• history summarized (${messages} messages archived to ${terminalSafe(archivePath, { singleLine: true })})`;
}

/**
 * What `attach` shows of a thread before its events, compactly: the person's messages
 * quoted, the agent's words, a line a tool call, notices. Subagents' own items stay under
 * their task call (not shown).
 */
export function printHistory(io: TerminalIo, history: ThreadHistory, threadRef: string): void {
  const lines: string[] = [];
  if (history.earlier) lines.push(`… (earlier messages: deepdesk threads export ${threadRef} --format md)`);
  for (const item of history.items) {
    if (item.kind !== 'user' && item.kind !== 'summary' && item.kind !== 'notice' && item.parentToolCallId !== undefined) continue;
    if (item.kind === 'user') lines.push(item.text.trimEnd().replace(/^/gm, '> '));
    else if (item.kind === 'assistant') lines.push(item.text.trimEnd());
    else if (item.kind === 'tool') lines.push(toolLine(item.name, item.args), ...[notRunLine(item)].filter((line) => line !== null));
    else if (item.kind === 'summary') lines.push(summarizedLine(item.summarizedMessages, item.archivePath));
    else lines.push(`— ${item.text}`);
  }
  if (lines.length > 0) writeContent(io.stdout, lines.join('\n') + '\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}
