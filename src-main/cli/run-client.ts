// A terminal following a run in the agent host (`deepdesk run`, `deepdesk attach`): its
// events as progress lines (or --json), its lines for the person on stderr, its approvals
// asked on the terminal — withdrawn when another client answers first — until it ends.

import type { AgentEvent, ApprovalDecision, ApprovalRequest } from '../core/agent/types';
import { describeLinkTarget } from '../core/agent/permissions/link-target-text';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { askLine, writeContent } from './terminal-output';
import type { AttachedRun, RunEnd } from '../app/host/runs';
import type { HostClient } from '../clients/host-client/client';

export interface TerminalIo {
  stdin: NodeJS.ReadStream | NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** How following ended: the run's end, or the host gone from under it. */
export type Followed = { kind: 'ended'; end: RunEnd } | { kind: 'host-gone'; reason: string } | { kind: 'detached' };

/** `retry` and `tool_output` feed the window's countdown and live tail; not among the --json event types (SPEC §5). */
const WINDOW_ONLY_EVENTS = new Set<string>(['retry', 'tool_output', 'note', 'rewound', 'queued', 'user_message']);

/** Whether this terminal can answer approvals (a person at stdin and stderr). */
export function interactiveTerminal(io: TerminalIo): boolean {
  return (io.stdin as NodeJS.ReadStream).isTTY === true && io.stderr.isTTY === true;
}

export interface Follower {
  /** Shows what an attach returned (events kept so far, pending approvals). */
  replay(attached: AttachedRun): void;
  /** Resolves when the run ends, the host goes, or `detach` is called. */
  readonly done: Promise<Followed>;
  detach(): void;
}

/** Starts listening for `threadId`'s events at once (they may come before the request that starts the run is answered). */
export function followRun(client: HostClient, threadId: string, io: TerminalIo, options: { json: boolean; interactive: boolean; streamText?: boolean }): Follower {
  let finish!: (followed: Followed) => void;
  const done = new Promise<Followed>((resolve) => (finish = resolve));
  let lastSeq = 0;
  let streamed = false;
  const progress = progressPrinter(io);
  const show = (seq: number, event: AgentEvent) => {
    if (seq <= lastSeq) return;
    lastSeq = seq;
    if (options.json) {
      if (!WINDOW_ONLY_EVENTS.has(event.type)) io.stdout.write(terminalSafeJson(event) + '\n');
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
    // What a hook did is the person's to know, terminal or not (a failed script, a refused message).
    if (event.type === 'hook') io.stderr.write(`deepdesk: ${terminalSafe(event.message, { singleLine: true })} (${terminalSafe(event.hook.command, { singleLine: true })})\n`);
    progress(event);
  };
  const say = (line: string) => io.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`);

  // Approvals one at a time; one answered elsewhere is withdrawn from this terminal.
  const questions: Array<{ key: string; request: ApprovalRequest }> = [];
  let asking: { key: string; controller: AbortController } | undefined;
  const askNext = () => {
    if (asking !== undefined || !options.interactive) return;
    const next = questions.shift();
    if (next === undefined) return;
    const controller = new AbortController();
    asking = { key: next.key, controller };
    void askOnTerminal(next.request, io.stdin as NodeJS.ReadStream, io.stderr, controller.signal)
      .then(
        (decision) => client.request('runs.decide', { threadId, key: next.key, decision }).catch(() => undefined),
        () => undefined,
      )
      .finally(() => {
        asking = undefined;
        askNext();
      });
  };
  const question = (key: string, request: ApprovalRequest) => {
    if (asking?.key === key || questions.some((q) => q.key === key)) return;
    questions.push({ key, request });
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
      case 'run.approval': {
        const { key, request } = payload as { key: string; request: ApprovalRequest };
        question(key, request);
        break;
      }
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
      for (const { key, request } of attached.approvals) question(key, request);
      if (attached.end !== undefined) end({ kind: 'ended', end: attached.end });
    },
    detach: () => end({ kind: 'detached' }),
  };
}

/** One line on why a run did not complete. */
export function whyNotCompleted(end: RunEnd): string {
  if (end.reason === 'interrupted') return end.error ?? 'interrupted: the agent host stopped';
  if (end.reason === 'error' || end.reason === 'budget') return firstLine(end.error ?? 'the agent failed');
  if (end.reason === 'aborted') return 'interrupted';
  return 'stopped after too many steps';
}

/** The run's answer on stdout (terminal-safe on a terminal). */
export function printAnswer(io: TerminalIo, text: string): void {
  writeContent(io.stdout, text.endsWith('\n') ? text : text + '\n');
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

async function askOnTerminal(request: ApprovalRequest, input: NodeJS.ReadStream, output: NodeJS.WritableStream, signal: AbortSignal): Promise<ApprovalDecision> {
  // Everything here but our own words comes from the model: shown, never obeyed by the terminal.
  const via = describeLinkTarget(request.toolName, request.args, request.resolvedTarget);
  const command = request.toolName === 'execute' && typeof request.args.command === 'string' ? request.args.command : null;
  output.write(
    `\n${terminalSafe(request.toolName, { singleLine: true })} needs approval: ${terminalSafe(request.reason)}\n` +
      (via !== null ? `${terminalSafe(via, { singleLine: true })}\n` : '') +
      (command !== null ? `Command: ${terminalSafe(command)}\n` : '') +
      `${terminalSafeJson(request.args, 2)}\n`,
  );
  const answer = (await askLine(input, output, 'Approve? [y]es / [n]o / or type a reply for the agent: ', { signal })).trim();
  if (/^(y|yes)$/i.test(answer)) return { type: 'approve' };
  if (answer === '' || /^(n|no)$/i.test(answer)) return { type: 'reject' };
  return { type: 'reject', message: answer };
}

/** Without --json: a line of progress per tool call on a terminal's stderr, nothing otherwise. */
function progressPrinter(io: TerminalIo): (event: AgentEvent) => void {
  if (!io.stderr.isTTY) return () => undefined;
  return (event) => {
    if (event.type === 'tool_call') io.stderr.write(`• ${terminalSafe(event.name, { singleLine: true })} ${truncate(terminalSafeJson(event.args), 100)}\n`);
    else if (event.type === 'summarized') io.stderr.write(`• history summarized (${event.summarizedMessages} messages archived to ${terminalSafe(event.archivePath, { singleLine: true })})\n`);
  };
}

function truncate(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}
