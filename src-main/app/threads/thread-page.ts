// What the window is sent of a thread: pages of its display items, newest first, bounded in
// count and bytes, with long tool outputs and arguments cut in the middle (the window
// fetches one call in full when its card is opened). The thread's own history, what goes
// to the model, is never touched: pages are built from it, not written back.

import { isPersonMessage } from '../../core/agent/notes';
import type { ThreadState } from '../../core/agent/types';
import type { ChatMessage } from '../../core/models/types';
import type { DisplayItem, Result, ThreadPage } from '../contract';
import { displayItems } from './display-items';

export interface PageLimits {
  /** Items in a page: more are only sent when one message alone has more (a page holds whole messages). */
  maxItems: number;
  /** UTF-8 bytes of a page's items as JSON; a first message over it is still sent (its long parts are cut). */
  maxBytes: number;
  /** Outputs and argument strings longer than this are cut to their first and last part. */
  capChars: number;
}

export const PAGE_LIMITS: PageLimits = { maxItems: 150, maxBytes: 1_500_000, capChars: 12_000 };

/** Of a cut text: this much of its start is kept, the rest of the cap from its end (where errors are). */
const HEAD_SHARE = 0.25;

/** The page a window opens a thread on. */
export interface ItemsPage {
  items: DisplayItem[];
  page: ThreadPage;
}

/** Items of a page, and the cursor of the items before them (0: none). */
export interface EarlierItems {
  items: DisplayItem[];
  cursor: number;
}

/**
 * The items of the thread's last messages, as many whole messages as fit the limits, at
 * least one. A page starts at a message that is not a tool result, so a call and its
 * results are always in the same page.
 */
export function latestPage(state: ThreadState, limits: PageLimits = PAGE_LIMITS): ItemsPage {
  const { items, cursor } = itemsBefore(state, state.messages.length, 0, limits)!;
  return { items, page: { cursor, turnsBefore: personMessages(state.messages, 0, cursor) } };
}

/**
 * The latest page of a thread of which only messages [loadedFrom, end) were read
 * (ThreadStore.range), `personCount` of all its messages being the person's; undefined when
 * the page needs messages before `loadedFrom`.
 */
export function latestPageOfRange(state: ThreadState, loadedFrom: number, personCount: number, limits: PageLimits = PAGE_LIMITS): ItemsPage | undefined {
  const earlier = itemsBefore(state, state.messages.length, loadedFrom, limits);
  if (earlier === undefined) return undefined;
  const after = personMessages(state.messages, earlier.cursor, state.messages.length);
  return { items: earlier.items, page: { cursor: earlier.cursor, turnsBefore: personCount - after } };
}

/**
 * The items of the messages just before `before`, as latestPage takes them, from a thread
 * whose messages from `loadedFrom` on were read; undefined when they need earlier ones.
 */
export function itemsBefore(state: ThreadState, before: number, loadedFrom = 0, limits: PageLimits = PAGE_LIMITS): EarlierItems | undefined {
  const end = Math.min(before, state.messages.length);
  const blocks: DisplayItem[][] = [];
  let from = end;
  let count = 0;
  let bytes = 0;
  while (from > 0) {
    if (from - 1 < loadedFrom) return undefined;
    let start = from - 1;
    while (start > 0 && state.messages[start]!.role === 'tool') {
      if (start === loadedFrom) return undefined;
      start--;
    }
    const block = displayItems(state, start, from).map((item) => capItem(item, limits.capChars));
    const size = Buffer.byteLength(JSON.stringify(block));
    if (blocks.length > 0 && (count + block.length > limits.maxItems || bytes + size > limits.maxBytes)) break;
    blocks.push(block);
    count += block.length;
    bytes += size;
    from = start;
  }
  return { items: blocks.reverse().flat(), cursor: from };
}

/** The person's messages among messages[from, to) (all of them read). */
function personMessages(messages: readonly ChatMessage[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (isPersonMessage(messages[i]!)) n++;
  return n;
}

function capItem(item: DisplayItem, capChars: number): DisplayItem {
  if (item.kind !== 'tool') return item;
  const output = item.output !== undefined ? capText(item.output, capChars) : undefined;
  const args = capValue(item.args, capChars);
  const originalArgs = item.originalArgs !== undefined ? capValue(item.originalArgs, capChars) : undefined;
  const argsCut = args.cut || originalArgs?.cut === true;
  if ((output === undefined || output.omitted === 0) && !argsCut) return item;
  return {
    ...item,
    args: args.value,
    ...(originalArgs !== undefined ? { originalArgs: originalArgs.value } : {}),
    ...(output !== undefined ? { output: output.text } : {}),
    omitted: { outputChars: output?.omitted ?? 0, args: argsCut },
  };
}

/** `text` cut to its first and last part, with a line saying how much is left out between. */
export function capText(text: string, capChars: number): { text: string; omitted: number } {
  if (text.length <= capChars) return { text, omitted: 0 };
  const head = Math.floor(capChars * HEAD_SHARE);
  const tail = capChars - head;
  const omitted = text.length - head - tail;
  return { text: `${text.slice(0, head)}\n… ${omitted.toLocaleString('en-US')} characters not shown here …\n${text.slice(text.length - tail)}`, omitted };
}

/** A JSON value whose long strings are cut as capText does. */
function capValue(value: unknown, capChars: number): { value: unknown; cut: boolean } {
  if (typeof value === 'string') {
    const capped = capText(value, capChars);
    return { value: capped.text, cut: capped.omitted > 0 };
  }
  if (value === null || typeof value !== 'object') return { value, cut: false };
  let cut = false;
  const each = (v: unknown): unknown => {
    const capped = capValue(v, capChars);
    cut ||= capped.cut;
    return capped.value;
  };
  const copy = Array.isArray(value) ? value.map(each) : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, each(v)]));
  return { value: cut ? copy : value, cut };
}

/**
 * One tool call of the message at `index` as the window would show it uncut (`parent`: the
 * `task` call whose subagent made it), or undefined when it is not there.
 */
export function fullToolCall(state: ThreadState, index: number, toolCallId: string, parent?: string): Result<'threads.toolCall'> | undefined {
  const message = state.messages[index];
  if (message === undefined || message.role === 'tool') return undefined;
  let end = index + 1;
  while (end < state.messages.length && state.messages[end]?.role === 'tool') end++;
  const item = displayItems(state, index, end).find((i) => i.kind === 'tool' && i.id === toolCallId && i.parentToolCallId === parent);
  if (item?.kind !== 'tool') return undefined;
  return { args: item.args, ...(item.originalArgs !== undefined ? { originalArgs: item.originalArgs } : {}), ...(item.output !== undefined ? { output: item.output } : {}) };
}
