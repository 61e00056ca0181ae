// Summarization with history offload (SPEC §4). When a request passes 85% of the model's
// context window (or the provider says it overflowed), the media blocks of older messages
// leave the model's view first (each replaced by a note naming it: SPEC §12); if that is
// not enough, older messages are summarized by the model into a structured summary; their
// full text is appended to /conversation_history/<thread>.md; the model then sees the
// summary, the latest user message and the recent messages. Tool calls always stay
// together with their results.

import { meteredStream, recordUsage } from '../model-call';
import { isMediaPart, type ChatMessage } from '../../models/types';
import { DEFAULT_CONTEXT_WINDOW } from '../../models/model-info';
import type { Middleware } from '../middleware';
import type { ModelCallRequest, RunContext } from '../run-context';
import { contentText, describeMedia, fullTextPath, hasMedia, modelView, needsCompaction, textOf, viewMessage } from '../model-view';
import { latestPersonMessage } from '../notes';
import { countMessageTokens, countTextTokens, type TokenCosting } from '../token-count';
import type { ThreadState } from '../types';

export const SUMMARIZE_AT = 0.85;
/** Share of the window kept verbatim after a summary. */
const KEEP_SHARE = 0.3;
/** Share of the window one summarization call may read at once. */
const CHUNK_SHARE = 0.5;
const TOOL_TEXT_IN_TRANSCRIPT = 2_000;
/** A summarization must take at least this share of the window out of the request to be worth a model call. */
const MIN_GAIN_SHARE = 0.1;

/** The request cannot be brought under the model's window: the run ends with this. */
export class ContextTooLargeError extends Error {}

export interface SummarizationOptions {
  /** Overrides the model's context window (tokens). */
  contextWindow?: number;
}

const SUMMARIZER_PROMPT = `You compress the earlier part of a conversation between a person and a software agent so the agent can continue the work without it.
Write a faithful, specific summary in Markdown with exactly these sections:
## Intent
What the person wants overall, including constraints and preferences they stated.
## Done so far
What the agent did and found, in order, with concrete results (what worked, what failed and why).
## Artifacts
Files created, changed or deleted (virtual paths), commands that matter, and other outputs.
## Open questions and next steps
What remains to be done, and anything unresolved.
Keep names, paths, numbers, error messages and decisions exact. Do not invent anything. Do not address the person.`;

/** What `/compact` keeps in view: about the latest exchange. */
const COMPACT_KEEP_TOKENS = 2_000;

export function archivePathFor(threadId: string): string {
  return `/conversation_history/${threadId.replace(/[^A-Za-z0-9_-]/g, '_')}.md`;
}

export function summarizationMiddleware(options: SummarizationOptions = {}): Middleware {
  const windowOf = (ctx: RunContext) => options.contextWindow ?? (ctx.model.contextWindow > 0 ? ctx.model.contextWindow : DEFAULT_CONTEXT_WINDOW);
  /** Threads whose last attempt could not bring the request under the threshold. */
  const stalled = new WeakSet<ThreadState>();
  return {
    name: 'summarization',
    // Each step must make progress: summarize only when that takes a real share out of the
    // request, then cut older tool results to previews; if the request still cannot fit
    // the window, end the run with a clear error instead of summarizing again and again.
    async beforeModel(ctx, request) {
      const window = windowOf(ctx);
      const limit = window * SUMMARIZE_AT;
      const tokens = () => ctx.countRequestTokens({ ...request, messages: modelView(ctx.state) });
      let now = tokens();
      if (now <= limit) {
        stalled.delete(ctx.state);
        return;
      }
      // Media go before any text: dropping them needs no model call and loses no words.
      if (await dropOlderMedia(ctx)) now = tokens();
      let compactedFirst = false;
      if (now > limit && stalled.has(ctx.state)) {
        // The last summary did not get under the threshold: the cheap step comes first now.
        compactedFirst = true;
        if (await compactOlder(ctx)) now = tokens();
      }
      if (now > limit && summaryGain(ctx.state, window, ctx.model) >= window * MIN_GAIN_SHARE) {
        if (await summarize(ctx, window)) now = tokens();
      }
      if (now > limit && !compactedFirst && (await compactOlder(ctx))) now = tokens();
      if (now > limit) stalled.add(ctx.state);
      else stalled.delete(ctx.state);
      if (now > window) throw new ContextTooLargeError(tooLargeMessage(ctx, request, now, window));
    },
    async onContextOverflow(ctx) {
      const dropped = await dropOlderMedia(ctx);
      const summarized = await summarize(ctx, windowOf(ctx));
      const compacted = await compactOlder(ctx);
      return dropped || summarized || compacted;
    },
    async compactNow(ctx) {
      // Asked for: everything but the latest exchange goes into the summary.
      const summarized = await summarize(ctx, windowOf(ctx), COMPACT_KEEP_TOKENS);
      const compacted = await compactOlder(ctx);
      return summarized || compacted;
    },
  };
}

/** View tokens a summarization now would take out (the latest request stays in view regardless). */
function summaryGain(state: ThreadState, window: number, costing: TokenCosting): number {
  const viewTokens = (i: number) => countMessageTokens(viewMessage(state, i), costing);
  const cut = chooseCut(state.messages, state.contextStart, window * KEEP_SHARE, viewTokens);
  const latestUser = latestPersonMessage(state.messages);
  let gain = 0;
  for (let i = state.contextStart; i < cut; i++) {
    if (i === latestUser) continue;
    gain += viewTokens(i);
  }
  return gain;
}

/** The messages in view before the last turn from `doneBefore` on, as [from, end); undefined when there are none. */
function olderNotYetDone(state: ThreadState, doneBefore: number | undefined): [number, number] | undefined {
  const end = lastTurnStart(state.messages, state.contextStart);
  const from = Math.max(state.contextStart, doneBefore ?? 0);
  return end <= from ? undefined : [from, end];
}

/**
 * Takes the media blocks of everything before the last turn out of the model's view (each
 * becomes a note naming it). Returns false when there were none to take.
 */
async function dropOlderMedia(ctx: RunContext): Promise<boolean> {
  const state = ctx.state;
  const older = olderNotYetDone(state, state.mediaDroppedBefore);
  if (older === undefined) return false;
  const [from, end] = older;
  const found = state.messages.slice(from, end).some(hasMedia);
  state.mediaDroppedBefore = end;
  if (!found) return false;
  await ctx.persist();
  return true;
}

/**
 * Compacts everything the model sees before the last turn: long tool results become a
 * preview naming a file with the full text (written now unless eviction already did),
 * long arguments are truncated. Returns false when there was nothing more to compact.
 */
async function compactOlder(ctx: RunContext): Promise<boolean> {
  const state = ctx.state;
  const older = olderNotYetDone(state, state.compactedBefore);
  if (older === undefined) return false;
  const [from, end] = older;
  for (let i = from; i < end; i++) {
    const message = state.messages[i]!;
    if (message.role !== 'tool' || !needsCompaction(message)) continue;
    const target = fullTextPath(message);
    if (target.exists) continue;
    const written = await ctx.backend.write(target.path, textOf(message));
    // Without its full text kept, a result is not cut: nothing may be lost.
    if (written.error !== undefined) return false;
  }
  state.compactedBefore = end;
  await ctx.persist();
  return true;
}

function tooLargeMessage(ctx: RunContext, request: ModelCallRequest, tokens: number, window: number): string {
  const view = modelView(ctx.state);
  const count = (m: ChatMessage) => countMessageTokens(m, ctx.model);
  const biggest = view.reduce((best, m) => (count(m) > count(best) ? m : best), view[0]!);
  const what =
    biggest.role === 'tool'
      ? `the latest ${biggest.toolName} result alone is about ${count(biggest)} tokens`
      : `the latest ${biggest.role === 'user' ? 'message' : 'answer'} alone is about ${count(biggest)} tokens`;
  const fixed = ctx.countRequestTokens({ ...request, messages: [] });
  return (
    `The conversation no longer fits the model's context window (${window} tokens): even after summarizing older messages and cutting older tool results to previews, the next request needs about ${tokens} tokens ` +
    `(${what}; the system prompt and tools take ${fixed}). Stopped instead of summarizing again. ` +
    'Send a message to continue (older results will be cut), or use a model with a larger context window.'
  );
}

/** Summarizes what it can; returns false when nothing could be cut. */
async function summarize(ctx: RunContext, window: number, keepTokens = window * KEEP_SHARE): Promise<boolean> {
  const state = ctx.state;
  const cut = chooseCut(state.messages, state.contextStart, keepTokens, (i) => countMessageTokens(viewMessage(state, i), ctx.model));
  if (cut <= state.contextStart) return false;
  const older = state.messages.slice(state.contextStart, cut);
  const archivePath = archivePathFor(state.id);

  // Archive first: the full text must be safe before anything leaves the model's view.
  const archived = await appendArchive(ctx, archivePath, older);
  if (!archived) return false;

  const previous = state.summary !== undefined ? stripPreamble(state.summary) : undefined;
  let summary: string;
  try {
    summary = await summarizeChunks(ctx, previous, older, window);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return false;
  }
  const summarized = cut - state.contextStart;
  const media = droppedMediaLine(state.summary, older);
  const body = media === undefined ? summary.trim() : `${summary.trim()}\n\n${media}`;
  state.summary = `${preamble(archivePath)}\n\n${body}`;
  state.contextStart = cut;
  ctx.emit({ type: 'summarized', archivePath, summarizedMessages: summarized, summary: body });
  await ctx.persist();
  return true;
}

const PREAMBLE_END = '(end of note)';

function preamble(archivePath: string): string {
  return `[Earlier parts of this conversation were summarized to save context. Their full text is in ${archivePath}; read it with read_file when you need exact details.] ${PREAMBLE_END}`;
}

function stripPreamble(summary: string): string {
  const i = summary.indexOf(PREAMBLE_END);
  const body = i >= 0 ? summary.slice(i + PREAMBLE_END.length).trim() : summary;
  // The list of media dropped is carried over as it is (see droppedMediaLine), not by the model.
  const media = body.lastIndexOf(`\n\n${MEDIA_DROPPED}`);
  return media >= 0 ? body.slice(0, media) : body;
}

const MEDIA_DROPPED = 'Media in the summarized messages, no longer in view (read_file a path again, or ask for an attachment again, if needed):';

/** Names the media blocks of every summarized message (those of earlier summaries first), so the model knows what it no longer sees. */
function droppedMediaLine(previousSummary: string | undefined, messages: readonly ChatMessage[]): string | undefined {
  const at = previousSummary?.lastIndexOf(`\n\n${MEDIA_DROPPED} `) ?? -1;
  const earlier = at >= 0 ? previousSummary!.slice(at + MEDIA_DROPPED.length + 3).replace(/\.$/, '') : undefined;
  const items = earlier !== undefined && earlier !== '' ? [earlier] : [];
  for (const m of messages) if (m.role !== 'assistant' && typeof m.content !== 'string') items.push(...m.content.filter(isMediaPart).map(describeMedia));
  return items.length === 0 ? undefined : `${MEDIA_DROPPED} ${items.join('; ')}.`;
}

/**
 * The first message kept verbatim: as early as the keep budget allows, never a tool
 * result (it must stay with its call), and always leaving at least the last turn.
 */
export function chooseCut(messages: readonly ChatMessage[], start: number, keepBudget: number, tokensOf: (index: number) => number = (i) => countMessageTokens(messages[i]!)): number {
  let kept = 0;
  let cut = messages.length;
  for (let i = messages.length - 1; i > start; i--) {
    kept += tokensOf(i);
    if (kept > keepBudget && cut < messages.length) break;
    if (messages[i]!.role !== 'tool') cut = i;
  }
  // Land on a boundary that does not split a call from its results.
  while (cut < messages.length && messages[cut]!.role === 'tool') cut++;
  return cut >= messages.length ? lastTurnStart(messages, start) : cut;
}

/** Where the last assistant turn (with its results) begins, if anything precedes it. */
function lastTurnStart(messages: readonly ChatMessage[], start: number): number {
  for (let i = messages.length - 1; i > start; i--) if (messages[i]!.role !== 'tool') return i;
  return start;
}

async function summarizeChunks(ctx: RunContext, previous: string | undefined, messages: ChatMessage[], window: number): Promise<string> {
  const chunkBudget = Math.max(2_000, Math.floor(window * CHUNK_SHARE));
  let summary = previous;
  let chunk: string[] = [];
  let chunkTokens = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    summary = await callSummarizer(ctx, summary, chunk.join('\n\n'));
    chunk = [];
    chunkTokens = 0;
  };
  for (const message of messages) {
    const rendered = renderMessage(message, TOOL_TEXT_IN_TRANSCRIPT);
    const tokens = countTextTokens(rendered);
    if (chunkTokens + tokens > chunkBudget) await flush();
    chunk.push(tokens > chunkBudget ? rendered.slice(0, chunkBudget * 3) + '\n[… cut]' : rendered);
    chunkTokens += Math.min(tokens, chunkBudget);
  }
  await flush();
  return summary ?? '';
}

async function callSummarizer(ctx: RunContext, previous: string | undefined, transcript: string): Promise<string> {
  const input = previous
    ? `Summary of the conversation so far:\n\n${previous}\n\nThe conversation continued as follows. Produce one updated summary covering everything.\n\n${transcript}`
    : `Summarize this conversation:\n\n${transcript}`;
  let text = '';
  const request = { system: SUMMARIZER_PROMPT, messages: [{ role: 'user' as const, content: input }], tools: [], signal: ctx.signal };
  const metered = meteredStream(ctx, request, {
    purpose: 'summarization',
    promptTokens: () => ctx.countRequestTokens(request),
    // A summary costs like any call: it counts in the thread's totals (the context meter stays as it is).
    onUsage: (usage, cost) => recordUsage(ctx, usage, cost),
  });
  for await (const event of metered) {
    if (event.type === 'text-delta') text += event.text;
  }
  if (text.trim() === '') throw new Error('the model returned an empty summary');
  return text;
}

async function appendArchive(ctx: RunContext, path: string, messages: ChatMessage[]): Promise<boolean> {
  const existing = await ctx.backend.readRaw(path);
  const before = existing.data ? Buffer.from(existing.data).toString('utf8') : `# Archived conversation (thread ${ctx.state.id})\n`;
  const section = `\n\n---\n<!-- archived ${new Date().toISOString()} -->\n\n${messages.map((m) => renderMessage(m, Infinity)).join('\n\n')}\n`;
  const written = await ctx.backend.write(path, before + section);
  return written.error === undefined;
}

export function renderMessage(message: ChatMessage, maxToolChars: number): string {
  const body = contentText;
  switch (message.role) {
    case 'user':
      return `### User\n${body(message.content)}`;
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map((c) => `→ tool call ${c.name} (${c.id}): ${c.argsText}`);
      return `### Assistant\n${[message.content, ...calls].filter((s) => s !== '').join('\n')}`;
    }
    case 'tool': {
      const text = body(message.content);
      const shown = text.length > maxToolChars ? `${text.slice(0, maxToolChars)}\n[… ${text.length - maxToolChars} more characters]` : text;
      return `### Tool result: ${message.toolName} (${message.toolCallId})\n${shown}`;
    }
  }
}
