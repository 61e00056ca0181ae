// What the loop takes turns from (the model, model-turns.ts; or another agent over ACP, a whole
// turn per step), and who sees a turn end, each of which may put input in for another turn.

import type { ChatMessage } from '../models/types';
import type { RunOptions } from './run-options';
import type { RunStopReason } from './types';

/** What one step of a turn source did. */
export type Step =
  /** The turn ended: the model answered without tool calls, or the agent's turn completed. */
  | { kind: 'answered' }
  /** Tools ran; the turn goes on. */
  | { kind: 'acted' }
  /** The run ends here (stopped, failed, a budget, a stalled goal). */
  | { kind: 'stopped'; reason: RunStopReason; error?: Error };

export interface TurnSource {
  /** The latest answer: what the run answers when it ends. */
  text: string;
  /** Who sees a turn end, in order (the goal's gate last). */
  readonly participants: readonly EndOfTurn[];
  /** Before the first step: the person's message (and what waits for the model) goes in. */
  begin?(): Promise<void>;
  /** One step; `input`: what a participant put in the history for this turn. */
  step(input: string | undefined): Promise<Step>;
}

/** One who sees a turn end: the input it put in the history for another turn, or undefined to let the run end. */
export interface EndOfTurn {
  turnEnded(text: string): Promise<string | undefined>;
}

/** Another agent as the turn source: each step one whole turn of it; the input goes as it is, a revision as recorded. */
export function agentTurns(turn: NonNullable<RunOptions['turnRunner']>, input: ChatMessage | null, goal: EndOfTurn | undefined): TurnSource {
  if (input === null) throw new Error('another agent goes on only with a message');
  let text = typeof input.content === 'string' ? input.content : input.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  let recorded = false;
  return {
    text: '',
    participants: goal ? [goal] : [],
    async step(next: string | undefined): Promise<Step> {
      if (next !== undefined) [text, recorded] = [next, true];
      const result = await turn(text, recorded);
      this.text = result.text;
      return result.reason === 'completed' ? { kind: 'answered' } : { kind: 'stopped', reason: result.reason, ...(result.error ? { error: result.error } : {}) };
    },
  };
}
