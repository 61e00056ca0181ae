// A listener that keeps everything it is told, as a tree, for tests of what runs report.

import type { AgentRunInfo, DecidedBy, ModelCallInfo, ModelCallOutcome, RunObserver, Telemetry, ToolCallInfo, ToolCallOutcome, ToolDecision } from './observer';

export interface RecordedRun {
  info: AgentRunInfo;
  modelCalls: Array<{ info: ModelCallInfo; outcome?: ModelCallOutcome }>;
  toolCalls: RecordedTool[];
  end?: { reason: string; text: string; error?: string };
}

export interface RecordedTool {
  info: ToolCallInfo;
  decisions: Array<{ decision: ToolDecision; by: DecidedBy }>;
  subagents: RecordedRun[];
  outcome?: ToolCallOutcome;
}

export function recordingTelemetry(): Telemetry & { turns: RecordedRun[] } {
  const turns: RecordedRun[] = [];
  const observe = (run: RecordedRun): RunObserver => ({
    modelCall(info) {
      const call: RecordedRun['modelCalls'][number] = { info };
      run.modelCalls.push(call);
      return { end: (outcome) => void (call.outcome = outcome) };
    },
    toolCall(info) {
      const tool: RecordedTool = { info, decisions: [], subagents: [] };
      run.toolCalls.push(tool);
      return {
        decided: (decision, by) => void tool.decisions.push({ decision, by }),
        traceparent: () => `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`,
        subagent: (child) => {
          const sub: RecordedRun = { info: child, modelCalls: [], toolCalls: [] };
          tool.subagents.push(sub);
          return observe(sub);
        },
        end: (outcome) => void (tool.outcome = outcome),
      };
    },
    end: (outcome) => void (run.end = outcome),
  });
  return {
    turns,
    turn(info) {
      const run: RecordedRun = { info, modelCalls: [], toolCalls: [] };
      turns.push(run);
      return observe(run);
    },
  };
}
