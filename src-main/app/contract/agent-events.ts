// The agent's events as the window receives them inside `thread.event` (SPEC §5 `run --json`
// shapes): one exact schema per kind, extra fields refused. Core's AgentEvent must map into
// this type (checked where the app sends them). Renderer-safe: zod only.

import { z } from 'zod';
import { queuedMessageSchema } from './honest';
import { goalJsonSchema } from '../../core/goals/goal';
import { reviewAnswerSchema } from '../../core/tools/result-facts';

const todoStatusSchema = z.enum(['pending', 'in_progress', 'completed']);
export const todoSchema = z.strictObject({ content: z.string(), status: todoStatusSchema });
export type Todo = z.infer<typeof todoSchema>;

export const usageSchema = z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  costUsd: z.number().optional(),
});
export type UsageTotals = z.infer<typeof usageSchema>;

/** A hunk of a unified diff: where it starts in each version, and its ' ', '-', '+' lines. */
export const hunkSchema = z.strictObject({ oldStart: z.number(), oldLines: z.number(), newStart: z.number(), newLines: z.number(), lines: z.array(z.string()) });

/** What a write or edit did to its file: created or not, and the hunks with the file's real line numbers. */
export const fileChangeSchema = z.strictObject({
  path: z.string(),
  created: z.boolean(),
  hunks: z.array(hunkSchema),
  added: z.number(),
  removed: z.number(),
  truncated: z.boolean().optional(),
});
export type FileChangeDto = z.infer<typeof fileChangeSchema>;

/** Why a call did not run: a rule, a hook or the mode refused it, or the person rejected it (`message`: what they said) or answered instead (`answered`, `message`: the answer). */
export const toolRejectionSchema = z.strictObject({
  by: z.enum(['person', 'rule', 'hook', 'mode', 'reviewer']),
  message: z.string().optional(),
  answered: z.boolean().optional(),
});

const mediaKindSchema = z.enum(['image', 'audio', 'video', 'document']);

/** What a read, grep, glob or ls came back with, counted by the tool (core's ResultGist): the window says it without reading the text. */
export const resultGistSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('read'), from: z.number(), to: z.number(), total: z.number() }),
  z.strictObject({ kind: z.literal('read-empty') }),
  z.strictObject({
    kind: z.literal('media'),
    media: mediaKindSchema,
    holds: z.union([z.strictObject({ pages: z.number() }), z.strictObject({ width: z.number(), height: z.number() }), z.strictObject({ seconds: z.number() })]).optional(),
  }),
  z.strictObject({ kind: z.literal('media-not-taken'), media: mediaKindSchema }),
  z.strictObject({ kind: z.literal('document-text'), unit: z.enum(['page', 'slide']), total: z.number(), from: z.number(), to: z.number(), noTextLayer: z.boolean().optional() }),
  z.strictObject({ kind: z.literal('binary') }),
  z.strictObject({ kind: z.literal('grep'), matches: z.number(), files: z.number(), truncated: z.boolean() }),
  z.strictObject({ kind: z.literal('glob'), files: z.number(), truncated: z.boolean() }),
  z.strictObject({ kind: z.literal('ls'), entries: z.number() }),
]);
export type ResultGistDto = z.infer<typeof resultGistSchema>;

/** The reviewer's verdict (SPEC §23), its rationale as the host cut it. */
export const reviewVerdictSchema = z.strictObject({ ...reviewAnswerSchema.shape, rationale: z.string().max(512) });

/** Who decides whether a call runs (SPEC §23). */
export const decidedBySchema = z.enum(['rule', 'mode', 'sandbox', 'hook', 'reviewer', 'person']);

/** What core knows of a tool result beyond its text, so the window never parses it. */
export const toolResultFactsShape = {
  /** execute: the command's exit code (124 after its timeout); null: it was stopped before it ended. */
  exitCode: z.number().int().nullable().optional(),
  /** execute: stopped at its timeout. */
  timedOut: z.boolean().optional(),
  rejected: toolRejectionSchema.optional(),
  /** The result was too large for the context: saved to this file; the output is a notice with a preview. */
  evictedTo: z.string().optional(),
  /** The call never finished (the run was stopped or the app closed while it ran). */
  interrupted: z.boolean().optional(),
  /** read_file, grep, glob, ls: what came back, counted by the tool. */
  gist: resultGistSchema.optional(),
  /** Who decided that it ran or not, with the reviewer's verdict when it did (SPEC §23); `once`: the person allowed it once, after the reviewer denied the call of that id. */
  decided: z.strictObject({ by: decidedBySchema, review: reviewVerdictSchema.optional(), once: z.string().optional() }).optional(),
  /** read_file of a memory: the version it carried (SPEC §25). */
  memory: z.strictObject({ path: z.string(), version: z.number().int() }).optional(),
  /** write_file or edit_file of a memory held for the person (SPEC §25): its path (the conversation's *Memory proposed* card). */
  proposedMemory: z.string().optional(),
  /** task: the model its subagent ran on, `provider:model` (SPEC §26: Settings' subagent model unless its declaration names one). */
  subagentModel: z.string().optional(),
};

/** Picks the facts out of a result, an event or a display item (its other fields are left out). */
export const toolResultFactsSchema = z.object(toolResultFactsShape);
export type ToolResultFactsDto = z.infer<typeof toolResultFactsSchema>;

const hookRefSchema = z.strictObject({ command: z.string(), file: z.string() });

const reasonSubjectSchema = z.union([z.strictObject({ tool: z.string(), paths: z.array(z.string()) }), z.strictObject({ command: z.string() })]);
const ruleRefSchema = z.union([z.strictObject({ description: z.string() }), z.strictObject({ id: z.string() }), z.strictObject({ index: z.number() })]);

/** Why a call runs, asks or is refused, as data (core's ApprovalWhy, src-main/core/agent/permissions/reason.ts): the window says it from this, never from `reason`'s words. */
export type ApprovalWhyDto =
  | { kind: 'rule'; subject: z.infer<typeof reasonSubjectSchema>; decision: 'allow' | 'ask' | 'deny'; rule: z.infer<typeof ruleRefSchema> }
  | { kind: 'not-allowed' | 'mcp-tool-not-allowed'; subject: z.infer<typeof reasonSubjectSchema> }
  | { kind: 'no-side-effects'; tool: string }
  | { kind: 'read-default' | 'command-missing' | 'outside-sandbox' }
  | { kind: 'protected-path'; path: string; protects: string }
  | { kind: 'names-protected-path'; subject?: z.infer<typeof reasonSubjectSchema>; path: string; protects: string }
  | { kind: 'escalation'; subject: z.infer<typeof reasonSubjectSchema>; escalation: string }
  | { kind: 'always-asks'; reasons: string[] }
  | { kind: 'parts'; parts: ApprovalWhyDto[] }
  | { kind: 'mode'; mode: string; detail?: 'sandboxed' | 'not-read-only' }
  | { kind: 'always-asks-path'; path: string; because: string }
  | { kind: 'sensitive-write'; path: string; what: string }
  | { kind: 'hook'; outcome: 'asks' | 'allowed' | 'blocked' | 'edited'; message: string };

export const approvalWhySchema: z.ZodType<ApprovalWhyDto> = z.lazy(() =>
  z.union([
    z.strictObject({ kind: z.literal('rule'), subject: reasonSubjectSchema, decision: z.enum(['allow', 'ask', 'deny']), rule: ruleRefSchema }),
    z.strictObject({ kind: z.enum(['not-allowed', 'mcp-tool-not-allowed']), subject: reasonSubjectSchema }),
    z.strictObject({ kind: z.literal('no-side-effects'), tool: z.string() }),
    z.strictObject({ kind: z.enum(['read-default', 'command-missing', 'outside-sandbox']) }),
    z.strictObject({ kind: z.literal('protected-path'), path: z.string(), protects: z.string() }),
    z.strictObject({ kind: z.literal('names-protected-path'), subject: reasonSubjectSchema.optional(), path: z.string(), protects: z.string() }),
    z.strictObject({ kind: z.literal('escalation'), subject: reasonSubjectSchema, escalation: z.string() }),
    z.strictObject({ kind: z.literal('always-asks'), reasons: z.array(z.string()) }),
    z.strictObject({ kind: z.literal('parts'), parts: z.array(approvalWhySchema) }),
    z.strictObject({ kind: z.literal('mode'), mode: z.string(), detail: z.enum(['sandboxed', 'not-read-only']).optional() }),
    z.strictObject({ kind: z.literal('always-asks-path'), path: z.string(), because: z.string() }),
    z.strictObject({ kind: z.literal('hook'), outcome: z.enum(['asks', 'allowed', 'blocked', 'edited']), message: z.string() }),
    z.strictObject({ kind: z.literal('sensitive-write'), path: z.string(), what: z.string() }),
  ]),
);

const modelProblemSchema = z.strictObject({
  kind: z.enum(['refused', 'host-not-found', 'timeout', 'tls', 'unreachable', 'unauthorized', 'forbidden', 'model-not-found', 'rate-limited', 'quota', 'server-error']),
  summary: z.string(),
  check: z.enum(['address', 'api-key', 'model']).optional(),
  lasting: z.boolean(),
  detail: z.string(),
});

/** A fan-out's honest count (SPEC §26): how many of its parts finished, failed, paused and never started. */
export const fanOutSchema = z.strictObject({ total: z.number(), finished: z.number(), failed: z.number(), paused: z.number(), notStarted: z.number(), line: z.string() });

/** Every event's own fields: its thread, and for a subagent's, the `task` call it runs under. */
const base = { threadId: z.string(), parentToolCallId: z.string().optional() };

const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) => z.strictObject({ type: z.literal(type), ...base, ...shape });

export const agentEventSchema = z.discriminatedUnion('type', [
  event('text', { text: z.string() }),
  event('tool_call', { id: z.string(), name: z.string(), args: z.unknown(), parseError: z.string().optional() }),
  event('tool_result', {
    id: z.string(),
    name: z.string(),
    output: z.string(),
    isError: z.boolean(),
    image: z.strictObject({ mimeType: z.string() }).optional(),
    change: fileChangeSchema.optional(),
    ...toolResultFactsShape,
  }),
  /** `hook`: the hook that decided (`denied`: blocked by it; `edited`: its `updatedInput` is what runs). */
  event('approval', {
    id: z.string(),
    name: z.string(),
    args: z.unknown(),
    status: z.enum(['pending', 'reviewing', 'approved', 'edited', 'rejected', 'responded', 'denied']),
    reason: z.string(),
    /** `reason` as data: the window says it from this. */
    why: approvalWhySchema.optional(),
    hook: hookRefSchema.optional(),
    /** Answered in a terminal (`deepdesk run`, `deepdesk attach`) or by an Agent Protocol client (`answeredBy` names it), not in the window. */
    answeredIn: z.enum(['terminal', 'protocol']).optional(),
    answeredBy: z.string().max(200).optional(),
    /** Who decided (SPEC §23): `reviewer` with its verdict; `reviewFailed`: why the reviewer could not answer and the person was asked. */
    decidedBy: decidedBySchema.optional(),
    review: reviewVerdictSchema.optional(),
    reviewFailed: z.string().max(1000).optional(),
  }),
  event('todos', { todos: z.array(todoSchema) }),
  event('summarized', { archivePath: z.string(), summarizedMessages: z.number(), summary: z.string() }),
  event('usage', { usage: usageSchema, total: usageSchema, contextTokens: z.number(), contextWindow: z.number() }),
  event('checkpoint', { id: z.string(), files: z.array(z.strictObject({ path: z.string(), status: z.enum(['added', 'modified', 'deleted']) })) }),
  /**
   * The run failed: `status` the provider's HTTP status, `refused` a hook kept the message out,
   * `problem` a model call that could not be made (in plain words; `detail` the technical
   * text, `settings` the fix is in Settings), `budget` a budget stopped the run.
   */
  event('error', {
    message: z.string(),
    status: z.number().optional(),
    refused: z.boolean().optional(),
    problem: modelProblemSchema.optional(),
    detail: z.string().optional(),
    settings: z.boolean().optional(),
    budget: z.boolean().optional(),
  }),
  event('user_message', { text: z.string(), queuedId: z.string().optional() }),
  event('queued', { queued: z.array(z.strictObject(queuedMessageSchema.shape)) }),
  event('note', { id: z.string(), kind: z.enum(['restore', 'hook', 'interrupted', 'stopped', 'worktree', 'upload', 'reviewer', 'resume']), text: z.string(), checkpointId: z.string().optional() }),
  event('hook', { event: z.string(), outcome: z.enum(['error', 'blocked']), message: z.string(), hook: hookRefSchema, toolCallId: z.string().optional() }),
  /** A call waits at a cap (SPEC §26 state `budget`): `line` names it, `scope` and `key` where it is raised (`deepdesk budget set`'s); without `line`, the run went on. */
  event('paused', { line: z.string().optional(), scope: z.string().optional(), key: z.string().optional(), cap: z.number().optional() }),
  event('rewound', {}),
  event('retry', { attempt: z.number(), maxAttempts: z.number(), delayMs: z.number(), message: z.string() }),
  event('tool_output', { id: z.string(), chunk: z.string() }),
  /** The thread's goal changed (SPEC §21): its state, criteria, the evidence pack and contradicted claims. */
  event('goal', { goal: goalJsonSchema }),
  /** `fanOut`: what the run's subagents came to (SPEC §26): `line` says it (`12 of 30 finished, 16 failed (quota), 2 not started`). */
  event('done', { text: z.string(), reason: z.enum(['completed', 'aborted', 'error', 'max_steps', 'budget', 'quota']), usage: usageSchema.optional(), fanOut: fanOutSchema.optional() }),
]);
export type AgentEventDto = z.infer<typeof agentEventSchema>;
export type AgentEventType = AgentEventDto['type'];

/**
 * One entry per kind of event: a table typed so (`{ [K in AgentEventType]: … }`) does not
 * compile until a new kind is given its entry.
 */
export type AgentEventTable<V> = { readonly [K in AgentEventType]: V };

/** For the `default` of a switch over every kind: a kind left out does not compile. */
export function unhandledEvent(type: never): void {
  void type;
}
