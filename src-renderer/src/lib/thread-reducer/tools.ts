// Tool calls: proposed, streaming their output, and their results with core's facts.

import { fileChangeSchema, toolResultFactsSchema, type ToolResultFactsDto } from '../../../../src-main/app/contract';
import { str, type RawAgentEvent } from '../agent-event';
import type { ThreadDisplayState, ToolItem } from '../thread-reducer';
import { findTool, finishStreaming, push, replaceAt, updateTool, withParent, type EventFamily } from './items';

const LIVE_OUTPUT_CHARS = 8000;
export const unfinished = (tool: ToolItem): boolean => tool.output === undefined;

export const toolEvents = {
  tool_call(state, event, parent) {
    const id = str(event.id);
    const next = finishStreaming(state, parent);
    const existing = findTool(next.items, id, parent, unfinished, true);
    const tool: ToolItem = { kind: 'tool', key: '', id, name: str(event.name, 'tool'), args: event.args, startedAt: Date.now() };
    if (typeof event.parseError === 'string') tool.parseError = event.parseError;
    if (existing >= 0) return replaceAt(next, existing, { ...(next.items[existing] as ToolItem), name: tool.name, args: tool.args, ...(tool.parseError ? { parseError: tool.parseError } : {}) });
    return push(next, withParent(tool, parent));
  },
  tool_result(state, event, parent) {
    const patch = (tool: ToolItem): ToolItem => {
      const next: ToolItem = { ...tool, output: str(event.output), isError: event.isError === true };
      Object.assign(next, factsOf(event));
      const change = fileChangeSchema.safeParse(event.change);
      if (change.success) next.change = change.data;
      const image = event.image as { mimeType?: unknown } | undefined;
      if (image && typeof image.mimeType === 'string') next.image = { mimeType: image.mimeType };
      if (next.approval === 'pending') delete next.approval;
      delete next.liveOutput;
      return fromDecided(next);
    };
    return updateTool(withTool(state, event, parent, undefined), str(event.id), parent, patch, unfinished);
  },
  tool_output(state, event, parent) {
    // Streamed output of a running call, if the harness sends it: keep the end only.
    const chunk = str(event.chunk, str(event.text, str(event.output)));
    if (chunk === '') return state;
    return updateTool(state, str(event.id), parent, (tool) => ({ ...tool, liveOutput: ((tool.liveOutput ?? '') + chunk).slice(-LIVE_OUTPUT_CHARS) }), unfinished);
  },
} satisfies EventFamily;

/** The state with the event's call shown (added with these `args` when no item has its id yet). */
export function withTool(state: ThreadDisplayState, event: RawAgentEvent, parent: string | undefined, args: unknown): ThreadDisplayState {
  const id = str(event.id);
  if (findTool(state.items, id, parent, () => true) >= 0) return state;
  return push(state, withParent({ kind: 'tool', key: '', id, name: str(event.name, 'tool'), args }, parent));
}

/** Who decided as the stored result says it (a result's facts, a loaded call's), as the approval events say it. */
export function fromDecided(tool: ToolItem): ToolItem {
  const { decided } = tool;
  return decided === undefined ? tool : { ...tool, decidedBy: decided.by, ...(decided.review !== undefined ? { review: decided.review } : {}) };
}

/** The facts a result carries (none when they are malformed). */
export function factsOf(source: unknown): ToolResultFactsDto {
  const facts = toolResultFactsSchema.safeParse(source);
  return facts.success ? Object.fromEntries(Object.entries(facts.data).filter(([, value]) => value !== undefined)) : {};
}
