// Stops a run that is going round in circles: the same tool calls, with the same
// arguments, getting the same results, several steps in a row. Configurable like the
// step limit (AgentDefinition.maxRepeatedCalls; 0 turns it off).

import type { ToolCall } from '../models/types';
import type { ToolOutput } from '../tools/tool';
import { canonicalJson } from '../text/canonical-json';
import { clip } from '../goals/gate';

export const DEFAULT_MAX_REPEATED_CALLS = 3;

export class RepeatedCallsError extends Error {}

export class RepeatedCallsGuard {
  private last: string | undefined;
  private count = 0;

  constructor(private readonly limit: number = DEFAULT_MAX_REPEATED_CALLS) {}

  /** Records one step's calls and results; throws when the limit of identical steps is reached. */
  record(calls: readonly ToolCall[], outputs: readonly ToolOutput[]): void {
    if (this.limit <= 0) return;
    const signature = canonicalJson(calls.map((c, i) => [c.name, c.args, outputs[i]?.text ?? '']));
    if (signature === this.last) this.count++;
    else {
      this.last = signature;
      this.count = 1;
    }
    if (this.count >= this.limit) throw new RepeatedCallsError(describe(calls, this.count));
  }

  /** New input (a message from the person) changes the situation: count afresh. */
  reset(): void {
    this.last = undefined;
    this.count = 0;
  }
}

function describe(calls: readonly ToolCall[], count: number): string {
  const first = calls[0]!;
  const what = calls.length === 1 ? `${first.name} ${clip(JSON.stringify(first.args))}` : `the same ${calls.length} tool calls (${calls.map((c) => c.name).join(', ')})`;
  return (
    `Stopped: the agent ran ${what} ${count} times in a row with the same arguments and got the same result each time, so it was not making progress. ` +
    'Send a message to tell it what to do differently.'
  );
}
