// The tools of a step: those offered, each call checked and run through the middleware (approval,
// hooks…), the results recorded; and runHostCommand, a goal's verify step on that very path.

import { asMemoryWriter } from '../memories/write-context';
import { memoryWriterOf } from './memory-writer';
import { randomUUID } from 'node:crypto';
import type { StepRun } from '../goals/evidence';
import type { ChatMessage, MediaInput, ToolCall, ToolSpec } from '../models/types';
import type { ToolCallObserver } from '../telemetry/observer';
import { resultFacts } from '../tools/result-facts';
import { checkToolCall, runTool, toolMap } from '../tools/run-tool';
import { errorText, isErrorOutput, type AgentTool, type ToolContext, type ToolOutput } from '../tools/tool';
import { canonicalJson } from '../text/canonical-json';
import { takesMedia } from '../media/capabilities';
import { notTakenNotice } from '../media/kinds';
import { repairDanglingToolCalls, unresolvedToolCalls } from './dangling';
import { liveOutput } from './live-output';
import { chainToolCall, type ToolCallHandler } from './middleware';
import { offeredSpecs, stepTools } from './model-step';
import type { RunContext } from './run-context';
import type { AgentDefinition, RunOptions } from './run-options';
import { isShutdown, type ThreadState } from './types';

export class StepTools {
  private tools: AgentTool[] = [];
  private byName = new Map<string, AgentTool>();
  /** What the model is offered this step. */
  specs: ToolSpec[] = [];

  constructor(
    private readonly def: AgentDefinition,
    private readonly ctx: RunContext,
    private readonly options: Pick<RunOptions, 'guard' | 'resumableToolCalls'>,
    private readonly observers: Map<string, ToolCallObserver>,
  ) {
    this.refresh();
  }

  /**
   * Middleware tools can change between steps (an MCP server's list_changed, tool_search
   * loading a tool): read again before every model call; rebuilt only when they changed.
   */
  refresh(): void {
    const next = stepTools(this.def, this.ctx);
    if (next.length === this.tools.length && next.every((tool, i) => tool === this.tools[i])) return;
    this.tools = next;
    this.byName = toolMap(next);
    this.specs = offeredSpecs(next);
  }

  /**
   * A thread that stopped mid-step: re-runs calls that were only waiting for approval, and
   * closes the others with an "interrupted" result so the history stays valid.
   */
  async resume(): Promise<void> {
    const { state } = this.ctx;
    const unresolved = unresolvedToolCalls(state.messages);
    if (unresolved.length === 0) return;
    const resumable = unresolved.filter((c) => this.options.resumableToolCalls?.has(c.id));
    if (resumable.length > 0) await this.run(resumable, true);
    if (resumable.length !== unresolved.length) {
      state.messages = repairDanglingToolCalls(state.messages);
      await this.ctx.persist();
    }
  }

  /** Runs one step's calls; `resumed`: calls the person was already asked about before a restart go straight to their decision. */
  async run(calls: ToolCall[], resumed = false): Promise<ToolOutput[]> {
    const { ctx, def } = this;
    /** The call each id actually ran as (the person may have edited it). */
    const ran = new Map<string, ToolCall>();
    const execute = this.chain(calls, ran);
    const emitResult = (call: ToolCall, output: ToolOutput): void => {
      ctx.emit({
        type: 'tool_result',
        id: call.id,
        name: call.name,
        output: output.text,
        isError: isErrorOutput(output),
        ...(output.media?.kind === 'image' ? { image: { mimeType: output.media.mimeType } } : {}),
        ...(output.change ? { change: output.change } : {}),
        ...resultFacts(output),
      });
      for (const event of output.followUp ?? []) ctx.emit(event);
    };
    for (const call of calls) if (!this.observers.has(call.id)) this.observers.set(call.id, ctx.observer.toolCall({ id: call.id, name: call.name, args: call.args }));
    const endObserved = (call: ToolCall, output: ToolOutput): void => {
      this.observers.get(call.id)?.end({ output: output.text, isError: isErrorOutput(output) });
      this.observers.delete(call.id);
    };
    /** Results emitted as their call ended; the others wait for the afterToolCalls hooks. */
    const emitted = new Map<string, ToolOutput>();
    let results = await Promise.all(
      calls.map(async (call) => {
        const refused = resumed ? undefined : await this.precheck(call, calls).catch(failed(call));
        const output = refused ?? (await execute(call).catch(failed(call)));
        if (!def.middleware.some((m) => m.holdsToolResult?.(ctx, call, output) === true)) {
          emitted.set(call.id, output);
          emitResult(call, output);
        }
        return { call, output };
      }),
    );
    // On shutdown the calls stay unanswered: approvals resume after the restart, the rest are repaired then.
    if (isShutdown(ctx.signal)) {
      for (const { call, output } of results) endObserved(call, output);
      return results.map((r) => r.output);
    }
    // The step boundary: hooks may replace outputs before anything is recorded (SPEC §13: a git mount pushes here).
    for (const m of def.middleware) {
      if (!m.afterToolCalls) continue;
      // A hook that throws fails the calls it held (their outcome is unknown), not the others.
      const replaced = await m.afterToolCalls(ctx, results).catch((err: unknown) => results.map((r) => (emitted.has(r.call.id) ? r.output : failed(r.call)(err))));
      if (replaced !== undefined) results = results.map((r, i) => ({ call: r.call, output: replaced[i] ?? r.output }));
    }
    // Held results go out now, once; one already shown that a hook changed is shown again.
    for (const { call, output } of results) if (emitted.get(call.id) !== output) emitResult(call, output);
    for (const { call, output } of results) endObserved(call, output);
    recordRanCalls(ctx.state, ran);
    for (const { call, output } of results) ctx.state.messages.push(toolMessage(call, output, def.model.mediaInput));
    ctx.state.guard = this.options.guard.toJSON();
    await ctx.persist();
    return results.map((r) => r.output);
  }

  /** A command the host runs itself (a goal's verify step, `kind` naming which: goal-check.ts verifyCallKind), as the agent's own execute would be: checked, asked about by the rules, contained. */
  async runHostCommand(command: string, kind = 'goal-verify'): Promise<StepRun> {
    const { ctx } = this;
    const call: ToolCall = { id: `${kind}-${randomUUID()}`, name: 'execute', args: { command }, argsText: JSON.stringify({ command }) };
    ctx.emit({ type: 'tool_call', id: call.id, name: call.name, args: call.args });
    const refused = await this.precheck(call, [call]);
    const output = refused ?? (await this.chain([call])(call).catch(failed(call)));
    ctx.emit({ type: 'tool_result', id: call.id, name: call.name, output: output.text, isError: isErrorOutput(output), ...resultFacts(output) });
    if (refused !== undefined || output.rejected !== undefined || output.exitCode === undefined) {
      return { exitCode: null, output: output.text, refused: output.rejected?.message ?? output.text };
    }
    return { exitCode: output.exitCode, output: output.text };
  }

  /** Runs a tool as it is, outside any step (the grader's reads). */
  runTool(call: ToolCall): Promise<ToolOutput> {
    return asMemoryWriter(memoryWriterOf(this.ctx), () => runTool(this.byName, call.name, call.args, this.context(call)));
  }

  /** The calls of one turn through the middleware (approval, hooks), each checked again right before it runs. */
  private chain(calls: readonly ToolCall[], ran?: Map<string, ToolCall>): ToolCallHandler {
    return chainToolCall(this.def.middleware, this.ctx, calls, async (call) => {
      ran?.set(call.id, call);
      // Checked again now (runTool repeats the tool's own checks): the person may have
      // edited the call, or the file or the mode changed while they decided.
      return (await this.middlewarePrecheck(call, calls)) ?? this.runLive(call);
    });
  }

  /** Every check that needs no person; a refused call is answered without asking anyone. */
  private async precheck(call: ToolCall, turnCalls: readonly ToolCall[]): Promise<ToolOutput | undefined> {
    if (call.parseError !== undefined) {
      return errorText(`the arguments of this ${call.name} call were not valid JSON (${call.parseError}); call the tool again with a JSON object of arguments.`);
    }
    const checked = await checkToolCall(this.byName, call.name, call.args, this.context(call));
    if ('refusal' in checked) return checked.refusal;
    return this.middlewarePrecheck(call, turnCalls);
  }

  private async middlewarePrecheck(call: ToolCall, turnCalls: readonly ToolCall[]): Promise<ToolOutput | undefined> {
    for (const m of this.def.middleware) {
      const reason = await m.precheck?.(this.ctx, { call, turnCalls });
      if (reason !== undefined) return errorText(reason);
    }
    return undefined;
  }

  /** Runs the tool; a command's output also streams to its card as it runs. */
  private async runLive(call: ToolCall): Promise<ToolOutput> {
    const live = call.name === 'execute' ? liveOutput((chunk) => this.ctx.emit({ type: 'tool_output', id: call.id, chunk })) : null;
    if (live === null) return this.runTool(call);
    try {
      return await asMemoryWriter(memoryWriterOf(this.ctx), () => runTool(this.byName, call.name, call.args, {
        ...this.context(call),
        onTerminalData: (chunk: string) => live.push(chunk),
      }));
    } finally {
      live.close();
    }
  }

  private context(call: ToolCall): ToolContext {
    const traceparent = this.observers.get(call.id)?.traceparent();
    const handed = this.ctx.callContexts?.get(call.id);
    return {
      backend: this.def.backend,
      guard: this.options.guard,
      toolCallId: call.id,
      signal: this.ctx.signal,
      run: this.ctx,
      ...(this.def.model.mediaInput !== undefined ? { mediaInput: this.def.model.mediaInput } : {}),
      ...(traceparent !== undefined ? { traceparent } : {}),
      ...handed,
    };
  }
}

/**
 * Rewrites the stored tool calls that ran with other arguments than the model proposed
 * (the person edited them), so the history shows the call that ran, marked as edited.
 * Messages are replaced, not mutated: token counts and the store key on identity.
 */
function recordRanCalls(state: ThreadState, ran: ReadonlyMap<string, ToolCall>): void {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const message = state.messages[i]!;
    if (message.role !== 'assistant' || !message.toolCalls?.some((c) => ran.has(c.id))) continue;
    let changed = false;
    const toolCalls = message.toolCalls.map((call) => {
      const actual = ran.get(call.id);
      if (actual === undefined || canonicalJson(actual.args) === canonicalJson(call.args)) return call;
      changed = true;
      return { ...call, args: actual.args, argsText: JSON.stringify(actual.args), originalArgs: call.originalArgs ?? call.args, ...(actual.editedBy ? { editedBy: actual.editedBy } : {}) };
    });
    if (changed) state.messages[i] = { ...message, toolCalls };
    return;
  }
}

function toolMessage(call: ToolCall, output: ToolOutput, mediaInput: MediaInput | undefined): ChatMessage {
  const isError = isErrorOutput(output);
  // What a write or edit did and the result's facts, for the window after a reload (the model never sees them).
  const change = { ...(output.change ? { change: output.change } : {}), ...resultFacts(output) };
  const media = output.media;
  if (media && !takesMedia(mediaInput, media.mimeType)) {
    const text = `${output.text}\n${notTakenNotice(media.kind, media.name ?? call.name, media.bytes)}`;
    return { role: 'tool', toolCallId: call.id, toolName: call.name, content: text, ...change };
  }
  const content = media
    ? [
        { type: 'text' as const, text: output.text },
        { type: media.kind === 'image' ? ('image' as const) : ('file' as const), mimeType: media.mimeType, data: media.data, bytes: media.bytes, ...(media.name !== undefined ? { name: media.name } : {}) },
      ]
    : output.text;
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content, ...(isError ? { isError } : {}), ...change };
}

/** A call that threw: its result says so. */
function failed(call: ToolCall): (err: unknown) => ToolOutput {
  return (err) => errorText(`${call.name} failed: ${err instanceof Error ? err.message : String(err)}`);
}
