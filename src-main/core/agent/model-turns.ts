// The model as the loop's turn source: a step is one model call and the tool calls it asks for.
// The person's message, notes for the model and queued input go in before a call; the stall
// detector and the identical-call guard watch the steps; queued input and then Stop hooks (SPEC
// §11) may make the agent go on when a turn ends.

import { randomUUID } from 'node:crypto';
import type { RunGate } from '../goals/run-gate';
import type { ChatMessage } from '../models/types';
import { PromptRefusedError } from './middleware';
import { assistantMessage, callModel } from './model-step';
import { appendNotes } from './notes';
import { RepeatedCallsGuard } from './repeated-calls';
import type { RunContext } from './run-context';
import type { AgentDefinition, RunOptions } from './run-options';
import type { StepTools } from './tool-step';
import type { EndOfTurn, Step, TurnSource } from './turn-source';

/** How many times in a row a Stop hook may make the agent go on (SPEC §11). */
export const MAX_STOP_CONTINUATIONS = 8;

export class ModelTurns implements TurnSource {
  text = '';
  readonly participants: readonly EndOfTurn[];
  private readonly repeats: RepeatedCallsGuard;
  /** How many times in a row a Stop hook made the agent go on. */
  private continued = 0;

  constructor(
    private readonly def: AgentDefinition,
    private readonly ctx: RunContext,
    private readonly tools: StepTools,
    private readonly options: Pick<RunOptions, 'takeQueued' | 'pendingNotes'>,
    private readonly input: ChatMessage | null,
    /** The goal's gate: its stall detector watches the steps. */
    private readonly goal: RunGate | undefined,
  ) {
    this.repeats = new RepeatedCallsGuard(def.maxRepeatedCalls);
    // A message that arrived during the answer starts the next turn of this same run; else a Stop hook may; else the goal's gate.
    this.participants = [{ turnEnded: () => this.deliverQueued() }, { turnEnded: (text) => this.stopHook(text) }, ...(goal ? [goal] : [])];
  }

  async begin(): Promise<void> {
    // News from before this message (a restore, say) comes before it.
    await this.deliverNotes();
    if (this.input !== null) {
      let message = this.input;
      for (const m of this.def.middleware) if (m.onUserMessage) message = await m.onUserMessage(this.ctx, message);
      this.ctx.state.messages.push(message);
      await this.ctx.persist();
    }
    // Messages queued before this run could take them (or while resumed calls ran) go first.
    await this.deliverQueued();
  }

  async step(): Promise<Step> {
    const { ctx, tools } = this;
    await this.deliverNotes();
    tools.refresh();
    const turn = await callModel(this.def, ctx, tools.specs);
    this.text = turn.text;
    ctx.state.messages.push(assistantMessage(ctx.model, turn.text, turn));
    await ctx.persist();
    if (turn.toolCalls.length === 0) return { kind: 'answered' };
    const outputs = await tools.run(turn.toolCalls);
    if (ctx.signal.aborted) return { kind: 'stopped', reason: 'aborted' };
    const observed = turn.toolCalls.map((call, i) => ({ name: call.name, args: call.args, output: outputs[i]?.text ?? '', ...(outputs[i]?.exitCode !== undefined ? { exitCode: outputs[i]!.exitCode } : {}) }));
    if (await this.goal?.afterStep(observed)) return { kind: 'stopped', reason: 'completed' };
    this.repeats.record(turn.toolCalls, outputs);
    await this.deliverQueued();
    return { kind: 'acted' };
  }

  /** Delivers the messages queued during the run (new input: the guards count afresh); their text, or undefined when none was. */
  private async deliverQueued(): Promise<string | undefined> {
    const { ctx } = this;
    const delivered: string[] = [];
    for (const input of this.options.takeQueued?.() ?? []) {
      let message: ChatMessage = { role: 'user', content: input.text };
      try {
        for (const m of this.def.middleware) if (m.onUserMessage) message = await m.onUserMessage(ctx, message);
      } catch (err) {
        // Refused (a hook): the person is told; the run goes on without it.
        if (!(err instanceof PromptRefusedError)) throw err;
        ctx.emit({ type: 'error', message: err.message });
        continue;
      }
      ctx.state.messages.push(message);
      ctx.emit({ type: 'user_message', text: input.text, queuedId: input.id });
      delivered.push(input.text);
    }
    if (delivered.length === 0) return undefined;
    this.repeats.reset();
    this.continued = 0;
    await ctx.persist();
    return delivered.join('\n\n');
  }

  /** Puts the notes waiting for the model into the history, before the next model call. */
  private async deliverNotes(): Promise<void> {
    const fresh = appendNotes(this.ctx.state.messages, this.options.pendingNotes?.() ?? []);
    if (fresh.length === 0) return;
    for (const note of fresh) this.ctx.emit({ type: 'note', id: note.id, kind: note.kind, text: note.display, ...(note.checkpointId !== undefined ? { checkpointId: note.checkpointId } : {}) });
    await this.ctx.persist();
  }

  /** The first Stop hook's instruction, put in the history as a note; undefined when none has one or the limit is reached. */
  private async stopHook(text: string): Promise<string | undefined> {
    if (this.continued >= MAX_STOP_CONTINUATIONS) return undefined;
    for (const m of this.def.middleware) {
      const instruction = await m.onStop?.(this.ctx, { text, continued: this.continued });
      if (instruction === undefined) continue;
      this.continued++;
      const id = `stop-hook-${randomUUID()}`;
      const display = `A Stop hook made the agent go on (${this.continued} of at most ${MAX_STOP_CONTINUATIONS} in a row): ${instruction}`;
      this.ctx.state.messages.push({ role: 'user', content: instruction, note: { id, kind: 'hook', display } });
      this.ctx.emit({ type: 'note', id, kind: 'hook', text: display });
      await this.ctx.persist();
      return instruction;
    }
    return undefined;
  }
}
