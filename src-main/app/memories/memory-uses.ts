// When each memory was last used and in how many turns (SPEC §25 "Used in"): a listener of the
// metering point that notes the memories each model request carried, the subagents' too.

import type { MemoryBook } from '../../core/memories/memory-book';
import { NOOP_MODEL, NOOP_TOOL, type AgentRunInfo, type RunObserver, type Telemetry } from '../../core/telemetry/observer';

export function memoryUseTelemetry(book: MemoryBook): Telemetry {
  const observe = (info: AgentRunInfo): RunObserver => ({
    modelCall: (call) => {
      const uses = (call.memories ?? []).flatMap((use) => {
        try {
          const place = book.placeOf(use.path);
          return [{ scope: place.scope, path: place.path }];
        } catch {
          return [];
        }
      });
      if (uses.length > 0) book.records.recordUse(uses, `${info.threadId}:${info.turn}`);
      return NOOP_MODEL;
    },
    toolCall: () => ({ ...NOOP_TOOL, subagent: observe }),
    end() {},
  });
  return { turn: observe };
}
