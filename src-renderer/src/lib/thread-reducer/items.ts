// What every family of events does to the conversation's items: find, add, replace, finish.

import type { AgentEventTable } from '../../../../src-main/app/contract';
import type { RawAgentEvent } from '../agent-event';
import type { ConvItem, ThreadDisplayState, ToolItem } from '../thread-reducer';

/** One kind of event folded into the state; `parent`: the `task` call it runs under (undefined at top level). */
export type EventReducer = (state: ThreadDisplayState, event: RawAgentEvent, parent: string | undefined) => ThreadDisplayState;
/** A family of kinds: the reducer's table is the union of the families, one entry per kind. */
export type EventFamily = Partial<AgentEventTable<EventReducer>>;

/** A kind only the top-level run has (a subagent's changes nothing). */
export const topLevel = (reduce: (state: ThreadDisplayState, event: RawAgentEvent) => ThreadDisplayState): EventReducer => (state, event, parent) =>
  parent === undefined ? reduce(state, event) : state;

export function withParent<T extends ConvItem>(item: T, parent: string | undefined): T {
  return parent === undefined ? item : { ...item, parent };
}

export function push(state: ThreadDisplayState, item: ConvItem): ThreadDisplayState {
  return { ...state, items: [...state.items, { ...item, key: `i${state.seq}` }], seq: state.seq + 1 };
}

export function replaceAt(state: ThreadDisplayState, index: number, item: ConvItem): ThreadDisplayState {
  const items = state.items.slice();
  items[index] = item;
  return { ...state, items };
}

export function lastIndexInScope(items: readonly ConvItem[], parent: string | undefined): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]?.parent === parent) return i;
  return -1;
}

/** The latest tool item with this id in this scope (ids can repeat with some providers). */
export function findTool(items: readonly ConvItem[], id: string, parent: string | undefined, accept: (tool: ToolItem) => boolean, strict = false): number {
  let fallback = -1;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind !== 'tool' || item.id !== id) continue;
    if (item.parent === parent && accept(item)) return i;
    if (fallback < 0) fallback = i;
  }
  return strict ? -1 : fallback;
}

/** The latest tool item with this id in this scope (`prefer`: one that passes, if any), patched. */
export function updateTool(state: ThreadDisplayState, id: string, parent: string | undefined, patch: (tool: ToolItem) => ToolItem, prefer: (tool: ToolItem) => boolean = () => true): ThreadDisplayState {
  const index = findTool(state.items, id, parent, prefer);
  if (index < 0) return state;
  return replaceAt(state, index, patch(state.items[index] as ToolItem));
}

/** Marks streaming text as finished: in one scope, or everywhere. */
export function finishStreaming(state: ThreadDisplayState, parent: string | undefined, everywhere = false): ThreadDisplayState {
  let changed = false;
  const items = state.items.map((item) => {
    if (item.kind !== 'assistant' || !item.streaming) return item;
    if (!everywhere && item.parent !== parent) return item;
    changed = true;
    return { ...item, streaming: false };
  });
  return changed ? { ...state, items } : state;
}
