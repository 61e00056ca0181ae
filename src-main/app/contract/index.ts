// The one contract between the window and the main process (SPEC §6), as zod schemas.
// Both transports (Electron IPC and the WebSocket of `deepdesk serve`) carry exactly these
// messages and validate them on arrival; the renderer never knows which one it runs on.
// This module must stay free of Node and Electron imports: the renderer bundles it.

import { goalDraftSchema, goalJsonSchema } from '../../core/goals/goal';
import { z } from 'zod';
import { checkpointEvents, checkpointMethods } from './checkpoints';
import { folderEvents, folderMethods } from './folders';
import { overriddenSchema, queuedMessageSchema } from './honest';
import { modelPriceSchema, telemetrySettingsSchema, usageMethods } from './usage';
import { extensionEvents, extensionMethods } from './extensions';
import { pluginEvents, pluginMethods } from './plugins';
import { mcpEvents, mcpMethods } from './mcp';
import { memoriesStoreSchema, mountEvents, mountMethods, savedMountSchema } from './mounts';
import { memoryMethods } from './memories';
export * from './memories';
import { budgetsSchema } from './budgets';
export * from './budgets';
export * from './budget-caps';
import { modeEvents, modeMethods } from './modes';
import { attachmentMethods, attachmentsSchema, sentAttachmentSchema } from './attachments';
import { noticeEvents, noticeMethods } from './notices';
import { terminalEvents, terminalMethods } from './terminal';
import { updateEvents, updateMethods } from './updates';
import { agentEvents, agentMethods } from './agents';
import { agentProtocolMethods, agentProtocolSettingsSchema } from './agent-protocol';
import { sandboxEvents, sandboxMethods, sandboxPlaceSchema, sandboxProviderSchema, sandboxSettingsSchema } from './sandboxes';
import { worktreeEvents, worktreeMethods } from './worktrees';
import { ContractError, type ContractErrorCode } from './contract-error';
import { agentEventSchema, approvalWhySchema, fileChangeSchema, reviewVerdictSchema, todoSchema, toolResultFactsShape, usageSchema } from './agent-events';

export { OVERRIDE_FLAGS, WINDOW_OVERRIDE_ROWS, type OverriddenFields, type QueuedMessageDto } from './honest';
export * from './contract-error';
export * from './commands';
export * from './folders';
export * from './extensions';
export * from './plugins';
export * from './mcp';
export * from './mounts';
export * from './modes';
export * from './notices';
export * from './attachments';
export * from './terminal';
export * from './goals';
export * from './updates';
export * from './agents';
export * from './agent-protocol';
export * from './worktrees';
export * from './usage';
export * from './sandboxes';
export * from './agent-events';
export * from './core-helpers';

// ---------------------------------------------------------------- shared shapes


export const permissionRuleSchema = z.object({
  id: z.string().optional(),
  description: z.string().optional(),
  tools: z.array(z.string()).optional(),
  operations: z.array(z.enum(['read', 'write', 'edit', 'delete', 'execute'])).optional(),
  paths: z.array(z.string()).optional(),
  commands: z.array(z.string()).optional(),
  decision: z.enum(['allow', 'ask', 'deny']),
});

export const subagentSchema = z.object({
  name: z.string().min(1).regex(/^[a-z0-9][a-z0-9-_]*$/i, 'use letters, digits, - and _'),
  description: z.string().min(1),
  systemPrompt: z.string().min(1),
  tools: z.array(z.string()).optional(),
  model: z.string().optional(),
});

/** A command the person added as an agent (SPEC §22, Settings › Agents): started as given, contained like the catalog's. */
export const addedAgentSchema = z.object({
  name: z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9-_]*$/i, 'use letters, digits, - and _'),
  label: z.string().max(80).optional(),
  command: z.string().min(1),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
});

/** An agent of Settings › Agents (SPEC §22): a known one (pinned, installed or not) or a command the person added; what its `initialize` reported when it last started. */
export const externalAgentSchema = z.object({
  name: z.string(),
  label: z.string(),
  kind: z.enum(['known', 'added']),
  packageName: z.string().optional(),
  version: z.string().optional(),
  installed: z.boolean(),
  /** Being installed now (by this window or another): not offered again. */
  installing: z.boolean().optional(),
  command: z.string().optional(),
  reported: z
    .object({ agentName: z.string().optional(), agentVersion: z.string().optional(), capabilities: z.array(z.string()), at: z.string() })
    .optional(),
});
export type ExternalAgentDto = z.infer<typeof externalAgentSchema>;

const reviewerChoicesSchema = z.object({ model: z.string().optional(), timeoutSeconds: z.number().int().min(1).max(600).optional() });
const provenanceChoicesSchema = z.object({ enabled: z.boolean().optional(), push: z.boolean().optional(), trailer: z.boolean().optional() });
/** Settings › Provenance (SPEC §24): git notes of who wrote each line (on unless `enabled: false`), pushed and trailers only when chosen; a folder's entry over the global one. */
export const provenanceSettingsSchema = provenanceChoicesSchema.extend({ folders: z.record(z.string(), provenanceChoicesSchema).optional() });

export const providerSchema = z.enum(['anthropic', 'openai', 'google', 'openai-compatible', 'ollama']);

export const settingsSchema = z.object({
  /** 'provider:model', or '' when none is configured yet. */
  model: z.string(),
  baseUrl: z.string(),
  contextWindow: z.number().int().positive().optional(),
  rules: z.array(permissionRuleSchema),
  subagents: z.array(subagentSchema),
  /** Settings › Model › *Subagent model* (SPEC §26): `subagent` is the `provider:model` a subagent runs on unless its declaration names one (absent: the thread's model). */
  models: z.object({ subagent: z.string().optional() }).optional(),
  theme: z.enum(['dark', 'light', 'system']),
  /** The media kinds a model takes, set per `provider:model` (openai-compatible and Ollama; SPEC §12); absent: the provider's default. */
  mediaInput: z.record(z.string(), z.array(z.enum(['image', 'audio', 'video', 'document']))).optional(),
  /** Which providers have a stored API key (the keys never reach the window). */
  apiKeys: z.record(z.string(), z.boolean()),
  /** Mounts the person added (SPEC §13): `/PREFIX/` and `[ro:]FOLDER` or `git+URL[#BRANCH]`. */
  mounts: z.array(savedMountSchema),
  /** Where /memories/ lives: `sqlite` or a postgres:// URL without a password. */
  memoriesStore: memoriesStoreSchema,
  /** SPEC §25: `review: person` (default) holds a model's memory written beside untrusted content for the person; `off` makes every write active at once. */
  memories: z.object({ review: z.enum(['person', 'off']).optional() }).optional(),
  /** Prices per `provider:model` (USD per million tokens) over the table in code (SPEC §17). */
  prices: z.record(z.string(), modelPriceSchema).optional(),
  /** A thread's runs stop before the model call that would take its cost past this (USD). */
  threadBudgetUsd: z.number().positive().optional(),
  /** How many runs may go at once in one process (the desktop app, the agent host); beyond it they wait `Queued`. Absent: the machine's default (maxConcurrentRunsDefault). */
  maxConcurrentRuns: z.number().int().min(1).max(64).optional(),
  /** The budget tree (SPEC §26); a thread's `maxSpawns` (default 50) and `maxConcurrent` (default 8) cap its fan-out. */
  budgets: budgetsSchema.optional(),
  telemetry: telemetrySettingsSchema.optional(),
  /**
   * Goals (SPEC §21): the grader's model (`provider:model`; absent: the thread's), the revision
   * rounds before `unmet` (1–10, default 3), and the one budget of a set of candidates when
   * `--max-cost` (or the dialog's budget) gives none (USD; absent: none).
   */
  goals: z.object({ graderModel: z.string().optional(), maxRounds: z.number().int().min(1).max(10).optional(), candidatesBudgetUsd: z.number().positive().optional() }).optional(),
  /** Settings › Approvals › Review with a model (SPEC §23): `model` `provider:model` ('' the thread's own, `off` none); each try's `timeoutSeconds` (default 30); a folder's entry over the global one. No model: the person answers. */
  reviewer: reviewerChoicesSchema.extend({ folders: z.record(z.string(), reviewerChoicesSchema).optional() }).optional(),
  /** Settings › Agents (SPEC §22): the commands the person added as agents. */
  agents: z.object({ added: z.array(addedAgentSchema).optional() }).optional(),
  /** Settings › Agent Protocol: absent or `listen` empty, nothing listens unless `deepdesk host --listen` asks. */
  agentProtocol: agentProtocolSettingsSchema.optional(),
  /** Settings › Sandboxes (SPEC §18): the provider, what its sandboxes are made with, and prices per hour. */
  sandboxes: sandboxSettingsSchema.optional(),
  /** Each sandbox provider's key variables and whether one is saved in Settings (the keys never reach the window). */
  provenance: provenanceSettingsSchema.optional(),
  sandboxKeys: z.partialRecord(sandboxProviderSchema, z.record(z.string(), z.boolean())).optional(),
  /** Fields a command-line flag overrides for this session (shown with the flag's value; never saved). */
  overridden: overriddenSchema.optional(),
});
export type Settings = z.infer<typeof settingsSchema>;

/** A partial update; `contextWindow: null` clears the override. */
export const settingsPatchSchema = settingsSchema
  .omit({ apiKeys: true, sandboxKeys: true, overridden: true })
  .extend({ contextWindow: z.number().int().positive().nullable(), threadBudgetUsd: z.number().positive().nullable(), maxConcurrentRuns: z.number().int().min(1).max(64).nullable(), reviewer: settingsSchema.shape.reviewer.unwrap().nullable() })
  .partial();

export const threadSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  messageCount: z.number(),
  running: z.boolean(),
  pendingApprovals: z.number(),
  /** Waiting for a free run slot (Settings `maxConcurrentRuns`). */
  queued: z.boolean().optional(),
  /** While queued: the run slots in use and how many there are. */
  runSlots: z.object({ inUse: z.number().int().nonnegative(), limit: z.number().int().positive() }).optional(),
  /** When the going run first had a slot (ISO): its elapsed time counts from here, through approvals and waits. */
  runStartedAt: z.string().optional(),
  /** Another thread of this folder is working at the same time (no worktree keeps them apart). */
  sharesFolder: z.boolean().optional(),
  /** It worked in a worktree of this folder that was removed (SPEC §16): it moved here. */
  removedWorktree: z.object({ name: z.string(), branch: z.string(), removedAt: z.string() }).optional(),
  /** Where it came from, when not the window: an Agent Protocol client (`client`: its origin or user agent), a terminal's `deepdesk run`, an editor. */
  source: z.object({ kind: z.enum(['protocol', 'run', 'acp']), client: z.string().optional() }).optional(),
  /** Its agent when it is another one over ACP (SPEC §22): its label (`Claude Code`), from when it was made with it. */
  agent: z.string().optional(),
});
export type ThreadSummaryDto = z.infer<typeof threadSummarySchema>;

/** A message as the window shows it (images as metadata, tool calls with their results). */
export const displayItemSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user'), text: z.string(), index: z.number(), attachments: z.array(sentAttachmentSchema).optional() }),
  z.object({ kind: z.literal('assistant'), text: z.string(), index: z.number(), parentToolCallId: z.string().optional() }),
  z.object({
    kind: z.literal('tool'),
    id: z.string(),
    name: z.string(),
    args: z.unknown(),
    output: z.string().optional(),
    isError: z.boolean().optional(),
    ...toolResultFactsShape,
    parentToolCallId: z.string().optional(),
    index: z.number(),
    /** The person edited the call before it ran: `args` are what ran, these are what the model proposed. */
    edited: z.boolean().optional(),
    /** The edit was a hook's `updatedInput` (SPEC §11), not the person's. */
    editedByHook: z.boolean().optional(),
    originalArgs: z.unknown().optional(),
    change: fileChangeSchema.optional(),
    /**
     * What the window was not sent (threads.toolCall has it all): characters cut from the
     * middle of `output`, and whether long strings of the arguments were cut the same way.
     */
    omitted: z.object({ outputChars: z.number().int().nonnegative(), args: z.boolean() }).optional(),
  }),
  z.object({ kind: z.literal('summary'), archivePath: z.string(), summarizedMessages: z.number(), text: z.string(), index: z.number() }),
  /** A note the model was given (e.g. that the person restored files), shown as a notice; `checkpointId`: the restore it reports. */
  z.object({ kind: z.literal('notice'), text: z.string(), index: z.number(), checkpointId: z.string().optional() }),
]);
export type DisplayItem = z.infer<typeof displayItemSchema>;

export const approvalDecisionSchema = z.discriminatedUnion('type', [
  /** `answeredIn`: the agent host passing on a terminal's answer (deepdesk attach) to a window's thread. */
  z.object({ type: z.literal('approve'), alwaysAllow: permissionRuleSchema.optional(), answeredIn: z.enum(['terminal']).optional() }),
  z.object({ type: z.literal('edit'), args: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('reject'), message: z.string().optional(), answeredIn: z.enum(['terminal']).optional() }),
  z.object({ type: z.literal('respond'), message: z.string().min(1) }),
]);
export type ApprovalDecisionDto = z.infer<typeof approvalDecisionSchema>;

export const pendingApprovalSchema = z.object({
  threadId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  args: z.record(z.string(), z.unknown()),
  reason: z.string(),
  /** `reason` as data: the window says it from this. */
  why: approvalWhySchema.optional(),
  parentToolCallId: z.string().optional(),
  /** Where the call's path really leads when a symlink takes it elsewhere (see ApprovalRequest). */
  resolvedTarget: z.string().optional(),
  /** For write_file / edit_file: the file before and after, for the diff view. */
  preview: z.object({ path: z.string(), before: z.string(), after: z.string() }).optional(),
  suggestedRule: permissionRuleSchema.optional(),
  /** A sensitive write's diff (SPEC §23 (5)); for a command, of the file in its write layer. */
  diff: z.string().optional(),
  /** An execute asking to run outside the sandbox, with the model's reason. */
  outsideSandbox: z.object({ reason: z.string() }).optional(),
  /** Another agent of the thread asks over ACP (SPEC §22): its name. */
  agent: z.string().optional(),
  /** For execute: where the command runs: the remote machine (`user@host`) of an SSH folder, else this one; and whether inside the sandbox. */
  runsOn: z.object({ host: z.string().optional(), sandboxed: z.boolean(), provider: sandboxPlaceSchema.optional() }).optional(),
  createdAt: z.string(),
});
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

/**
 * Where a page of a thread's items starts: `cursor` is the absolute index of its first
 * message (0: nothing earlier; else threads.earlier with it gives the items before), and
 * `turnsBefore` counts the person's messages before it (checkpoints name them by ordinal).
 */
export const threadPageSchema = z.object({ cursor: z.number().int().nonnegative(), turnsBefore: z.number().int().nonnegative() });
export type ThreadPage = z.infer<typeof threadPageSchema>;

export const threadViewSchema = z.object({
  thread: threadSummarySchema,
  /** The recent part of the thread (bounded in count and bytes; see `page` for the rest). */
  items: z.array(displayItemSchema),
  page: threadPageSchema,
  todos: z.array(todoSchema),
  usage: usageSchema,
  /** What the thread's latest run used (its cost when every price was known), from the usage ledger. */
  lastRun: usageSchema.optional(),
  contextTokens: z.number(),
  contextWindow: z.number(),
  approvals: z.array(pendingApprovalSchema),
  /** The seq of the last event reflected in this view. */
  eventSeq: z.number().int().nonnegative(),
  /** The answer streaming in right now (not yet saved as a message). */
  streamingText: z.string(),
  /** Messages sent while the run was going, oldest first, waiting for the current step to end. */
  queued: z.array(queuedMessageSchema),
  /** The thread's goal (SPEC §21): its state, criteria, the evidence pack, contradicted claims. */
  goal: goalJsonSchema.optional(),
  /** `/goal`'s draft waiting for the person to accept (threads.startGoal) or put aside (threads.dismissGoal). */
  goalDraft: goalDraftSchema.optional(),
});
export type ThreadView = z.infer<typeof threadViewSchema>;

export const fileEntrySchema = z.object({
  path: z.string(),
  isDir: z.boolean(),
  size: z.number().optional(),
  modifiedAt: z.string().optional(),
  /** Ignored by the folder's .gitignore files (or a .git folder): the tree dims it. */
  ignored: z.boolean().optional(),
});
export type FileEntry = z.infer<typeof fileEntrySchema>;

export const fileContentSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), path: z.string(), text: z.string(), truncated: z.boolean() }),
  z.object({ kind: z.literal('image'), path: z.string(), mimeType: z.string(), data: z.string() }),
  /** Audio, video or a PDF, for the viewer to play or show (at most MAX_MEDIA_BYTES; larger ones come as `binary` with `tooLarge`). */
  z.object({ kind: z.literal('media'), path: z.string(), media: z.enum(['audio', 'video', 'document']), mimeType: z.string(), data: z.string() }),
  z.object({ kind: z.literal('binary'), path: z.string(), mimeType: z.string(), size: z.number(), tooLarge: z.literal(true).optional() }),
]);
export type FileContent = z.infer<typeof fileContentSchema>;


export const localServerSchema = z.object({ provider: providerSchema, baseUrl: z.string(), models: z.array(z.string()) });

// ---------------------------------------------------------------- requests

const empty = z.object({}).strict();
const threadRef = z.object({ threadId: z.string().min(1) });
const ok = z.object({ ok: z.literal(true) });

/** Every method: its params and its result. */
export const methods = {
  ...folderMethods,
  ...agentMethods,
  ...noticeMethods,
  ...attachmentMethods,
  ...mcpMethods,
  ...mountMethods,
  ...extensionMethods,
  ...pluginMethods,
  ...updateMethods,
  ...usageMethods,
  ...agentProtocolMethods,

  'settings.get': { params: empty, result: settingsSchema },
  'settings.update': { params: settingsPatchSchema, result: settingsSchema },
  'settings.setApiKey': { params: z.object({ provider: providerSchema, key: z.string() }), result: settingsSchema },
  /** Saves (or, empty, forgets) a sandbox provider's key by its variable (`DAYTONA_API_KEY`), kept as the model keys are. */
  'settings.setSandboxKey': { params: z.object({ variable: z.string().min(1).max(100), value: z.string().max(10_000) }).strict(), result: settingsSchema },
  'settings.testConnection': {
    params: z.object({ model: z.string().min(1), baseUrl: z.string().optional(), apiKey: z.string().optional() }),
    /** `message` in plain words with what to check; `detail`: the technical text, when there is one. */
    result: z.object({ ok: z.boolean(), message: z.string(), detail: z.string().optional() }),
  },
  /** The *Test* of Settings' reviewer (SPEC §23): one review of a harmless fixed action; `model` absent: Settings' (or the folder's own). */
  'settings.testReviewer': {
    params: z.object({ model: z.string().optional(), timeoutSeconds: z.number().int().min(1).max(600).optional() }),
    result: z.union([z.object({ ok: z.literal(true), verdict: reviewVerdictSchema }), z.object({ ok: z.literal(false), message: z.string() })]),
  },
  'settings.detectLocalServers': { params: empty, result: z.array(localServerSchema) },
  /** The models a provider offers (its /models, Ollama's tags), for the model picker. */
  'settings.listModels': {
    params: z.object({ provider: providerSchema, baseUrl: z.string().optional(), apiKey: z.string().optional() }),
    result: z.object({ models: z.array(z.string()) }),
  },

  'threads.list': { params: empty, result: z.array(threadSummarySchema) },
  /** `agent`: the thread's agent is another one over ACP (SPEC §22, *New thread with…*). */
  'threads.create': { params: z.object({ title: z.string().optional(), agent: z.string().optional() }), result: threadSummarySchema },
  /** Settings › Agents (SPEC §22): the catalog and the added commands. */
  'externalAgents.list': { params: empty, result: z.array(externalAgentSchema) },
  /** Installs a known agent's pinned version into the data folder (the person confirmed it). */
  'externalAgents.install': { params: z.object({ name: z.string() }), result: z.array(externalAgentSchema) },
  /** Adds (or replaces, by name) a command as an agent. */
  'externalAgents.add': { params: addedAgentSchema, result: z.array(externalAgentSchema) },
  /** Threads whose messages (the person's and the agent's) contain every word of the query, newest first, with a bit of the message. */
  'threads.search': { params: z.object({ query: z.string().max(500) }), result: z.array(z.object({ threadId: z.string(), snippet: z.string() })) },
  /** Opens the thread: marks it seen (the Agents view lists it again only once it finishes after this). `refresh`: a re-read of the open thread (its approvals, its costs), not an opening. */
  'threads.get': { params: threadRef.extend({ refresh: z.literal(true).optional() }), result: threadViewSchema },
  /** The items just before `cursor` (a page's), bounded as threads.get's, with the cursor of the ones before them (0: none). */
  'threads.earlier': {
    params: threadRef.extend({ cursor: z.number().int().positive() }),
    result: z.object({ items: z.array(displayItemSchema), cursor: z.number().int().nonnegative() }),
  },
  /** One tool call in full (a page cuts long outputs and arguments): `index` is its item's message index. */
  'threads.toolCall': {
    params: threadRef.extend({ index: z.number().int().nonnegative(), toolCallId: z.string().min(1), parentToolCallId: z.string().optional() }),
    result: z.object({ args: z.unknown(), originalArgs: z.unknown().optional(), output: z.string().optional() }),
  },
  'threads.rename': { params: threadRef.extend({ title: z.string().min(1).max(200) }), result: ok },
  'threads.delete': { params: threadRef, result: ok },
  /** The person types in a thread whose agent is another one (SPEC §22): its process and session start ahead of the turn. Starts no turn, records nothing, never fails. */
  'threads.prepare': { params: threadRef, result: ok },
  /** While a run is going the message is queued (its id is returned) and delivered when the current step ends. */
  /**
   * A slash command (SPEC §11) is carried out instead: `note` says what it did (for the person),
   * `threadId` is the thread `/clear` started. A message naming no command is refused.
   */
  'threads.send': {
    /** `text` may be empty when files are attached (see attachments.ts). */
    params: threadRef.extend({ text: z.string().max(5_000_000), attachments: attachmentsSchema.optional() }),
    result: ok.extend({
      queuedId: z.string().optional(),
      note: z.string().optional(),
      threadId: z.string().optional(),
      /** `/goal TEXT`: the agent's draft of the goal, for the person to edit and accept (threads.startGoal); nothing started yet. */
      goalDraft: goalDraftSchema.optional(),
    }),
  },
  /** Starts the accepted (maybe edited) goal on the thread and sends the agent its objective (SPEC §21). */
  'threads.startGoal': { params: threadRef.extend({ draft: goalDraftSchema }), result: ok },
  'threads.dismissGoal': { params: threadRef, result: ok },
  /** The slash commands there are now (built-ins, skills, MCP prompts), for the `/` list. */
  'commands.list': {
    params: empty,
    result: z.array(z.object({ name: z.string(), shortName: z.string().optional(), source: z.enum(['built-in', 'skill', 'command', 'mcp']), description: z.string(), usage: z.string() })),
  },
  'threads.cancelQueued': { params: threadRef.extend({ queuedId: z.string() }), result: ok },
  /** Interrupts the current step (as Stop does) and delivers this queued message at once. */
  'threads.sendQueuedNow': { params: threadRef.extend({ queuedId: z.string() }), result: ok },
  'threads.stop': { params: threadRef, result: ok },
  /** Runs the thread again from where it stopped (after an error), without a new message. */
  'threads.retry': { params: threadRef, result: ok },
  'threads.readArchive': { params: threadRef.extend({ path: z.string() }), result: z.object({ text: z.string() }) },
  /** Allows a call the reviewer denied once, by the person's explicit act (SPEC §23): that exact call runs the next time the agent makes it. */
  'threads.allowOnce': { params: threadRef.extend({ callId: z.string().min(1) }), result: ok },

  'approvals.decide': {
    params: threadRef.extend({
      toolCallId: z.string(),
      /** For a subagent's call: the `task` call it runs under (its events carry it). */
      parentToolCallId: z.string().optional(),
      decision: approvalDecisionSchema,
    }),
    result: ok,
  },

  'files.list': { params: z.object({ path: z.string() }), result: z.array(fileEntrySchema) },
  'files.read': { params: z.object({ path: z.string() }), result: fileContentSchema },
  'files.search': { params: z.object({ query: z.string(), limit: z.number().int().positive().max(200).optional() }), result: z.array(z.string()) },
  /** Which of these paths are files in the folder (same order): only those are shown as links. */
  'files.exists': { params: z.object({ paths: z.array(z.string()).max(200) }), result: z.array(z.boolean()) },

  ...memoryMethods,

  ...terminalMethods,
  ...modeMethods,

  ...checkpointMethods,
  ...worktreeMethods,
  ...sandboxMethods,
} as const;

export type MethodName = keyof typeof methods;
export type Params<M extends MethodName> = z.input<(typeof methods)[M]['params']>;
export type Result<M extends MethodName> = z.output<(typeof methods)[M]['result']>;

// ---------------------------------------------------------------- events (main → window)

export const events = {
  /**
   * `seq` counts a thread's events, so a window can drop the ones its threads.get snapshot already has.
   * A window's text deltas come joined, at most about one message a frame (the first at once).
   */
  'thread.event': z.object({ threadId: z.string(), seq: z.number().int().nonnegative(), event: agentEventSchema }),
  'threads.changed': z.object({}),
  'approvals.changed': z.object({ threadId: z.string() }),
  'files.changed': z.object({ paths: z.array(z.object({ path: z.string(), kind: z.enum(['add', 'change', 'unlink', 'addDir', 'unlinkDir']) })) }),
  'memories.changed': z.object({}),
  /** An install of a known agent goes on (npm's request of the registry, as it comes), or ended (`done`: what happened, in words). */
  'externalAgents.progress': z.object({ name: z.string(), line: z.string(), done: z.boolean() }),
  ...terminalEvents,
  ...modeEvents,
  'settings.changed': settingsSchema,
  ...noticeEvents,
  ...mcpEvents,
  ...mountEvents,
  ...extensionEvents,
  ...pluginEvents,
  ...folderEvents,
  ...checkpointEvents,
  ...updateEvents,
  ...agentEvents,
  ...worktreeEvents,
  ...sandboxEvents,
} as const;

export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

// ---------------------------------------------------------------- wire frames

/** Window → main. */
/**
 * `once`: the client's key for this call, the same when it sends the call again after a lost
 * connection (`replay`): the web host answers a key it has seen with the first answer, never
 * doing the call twice.
 */
export const requestFrameSchema = z.object({
  id: z.number().int().nonnegative(),
  method: z.string(),
  params: z.unknown(),
  once: z.string().min(1).max(128).optional(),
  replay: z.literal(true).optional(),
});

/** Main → window. */
export type ResponseFrame = { id: number; result: unknown } | { id: number; error: { message: string; code: ContractErrorCode } };

export type EventFrame = { event: EventName; payload: unknown };

/** Validates a request's method and params; throws ContractError with a readable message. */
export function parseRequest(frame: unknown): { id: number; method: MethodName; params: unknown } {
  const parsed = requestFrameSchema.safeParse(frame);
  if (!parsed.success) throw new ContractError('malformed request frame');
  const { id, method } = parsed.data;
  if (!Object.hasOwn(methods, method)) throw new ContractError(`unknown method '${method}'`);
  const schema = methods[method as MethodName].params;
  const params = schema.safeParse(parsed.data.params ?? {});
  if (!params.success) throw new ContractError(`invalid params for ${method}: ${params.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ')}`);
  return { id, method: method as MethodName, params: params.data };
}

/** The window-side API: one call shape and one event shape, whatever the transport. */
export interface Transport {
  call<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/**
 * What the desktop app's preload gives the window as `window.deepdeskBridge`: the frames of
 * this contract over Electron IPC, unvalidated (the window validates them as any transport's).
 */
export interface DeepdeskBridge {
  /** Resolves with the response frame (errors are frames too); rejects only if IPC itself fails. */
  call(method: string, params: unknown): Promise<ResponseFrame>;
  /** Event frames as they arrive, unvalidated; returns an unsubscribe function. */
  onEvent(listener: (frame: EventFrame) => void): () => void;
}
