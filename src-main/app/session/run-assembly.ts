// The run assembly (issue 39, split out in issue 60): one run of the agent for a thread, built
// here and nowhere else, whoever asked for it — the window, `deepdesk run` through the agent
// host, an editor over ACP. A thread's mounts, its agent definition (model, tools, middleware,
// the broker its approvals go to), the read guard, the audit and the events of its run; what
// differs between the clients (the model flags of a `run`, an editor's permission bridge) is
// a thread's RunSettings. When and how often a run starts is the run queue's (run-queue.ts).

import type { AuditRunOptions } from '../telemetry/run-audit';
import type { RunBudgetScope } from '../usage/budget-tree';
import type Database from 'better-sqlite3';
import { createAgentDefinition } from '../../core/agent/create-agent';
import type { McpHubApi } from '../../core/extensions/mcp/types';
import type { HooksOptions } from '../../core/agent/middleware/hooks';
import type { SkillListing } from '../../core/agent/middleware/skills-prompt';
import type { Skill } from '../../core/extensions/skills/types';
import { previewRequest, runAgent, type AgentDefinition, type QueuedInput, type RequestPreview, type RunResult } from '../../core/agent/loop';
import type { PendingNote } from '../../core/agent/notes';
import type { ApprovalBroker } from '../../core/agent/middleware/approval';
import { CheckpointHistory } from '../../core/checkpoints/history';
import type { ReviewSetup } from '../../core/agent/review/answerer';
import type { CheckpointRecorder } from '../../core/checkpoints/recorder';
import type { SubagentSpec } from '../../core/agent/middleware/subagents';
import type { ApprovalMode } from '../../core/agent/permissions/modes';
import { DEFAULT_RULES, type PermissionRule } from '../../core/agent/permissions/rules';
import type { Turn } from '../commands/slash-commands';
import type { AgentEvent, ThreadState, UsageTotals } from '../../core/agent/types';
import type { MemoryBook } from '../../core/memories/memory-book';
import type { GitMountRoute, MountRoute } from '../../core/backends/mounts/mount-table';
import { createDefaultMounts, threadFilesFrom, MEMORIES_PREFIX, type Mounts } from '../../core/backends/mounts/mounts';
import type { Backend } from '../../core/backends/protocol';
import type { ChatModel, ContentPart } from '../../core/models/types';
import type { LoadedThread } from '../threads/thread-book';
import type { GoalPlace } from '../../core/goals/evidence';
import { goalJson, resumeGoal, type GoalDraft } from '../../core/goals/goal';
import { draftGoal } from '../../core/agent/goal-draft';
import type { ExternalAgentRunner, ExternalTurnControls } from '../agents/agent-runner';
import { AGENT_CONFIG_PATHS } from '../agents/vendors/catalog';

export interface RunAssemblyOptions {
  db: Database.Database;
  folder: string;
  rules: () => readonly PermissionRule[];
  subagents: () => SubagentSpec[];
  resolveModel?: (spec: string) => ChatModel | Promise<ChatModel>;
  /** Settings' subagent model (SPEC §26): what a subagent whose declaration names no model runs on. */
  subagentModel?: () => string | undefined;
  contextWindow?: () => number | undefined;
  /** What each run is audited with: the usage ledger, traces, the budget (SPEC §17). */
  audit?: (state: ThreadState, scope?: RunBudgetScope) => Promise<AuditRunOptions>;
  /** Steps' tool results longer than this go to a file (default: the harness's). */
  evictChars?: number;
  /**
   * What a thread has cost, from the usage ledger (calls of a price unknown then and set since
   * included): null when none of its calls has a price, undefined when it has none of its calls.
   */
  threadCost?: (threadId: string) => number | null | undefined;
  /** The backend at `/` for a thread (the window's shows its commands in the thread's terminal). */
  folderBackendFor?: (threadId: string) => Backend;
  /** The folder's approval mode, read on every call. */
  mode?: () => ApprovalMode;
  /** Whether commands run in an OS sandbox. */
  sandboxAvailable?: () => boolean;
  /** The folder is a provider's sandbox (SPEC §18): its name and where the folder is there. */
  providerSandbox?: { label: string; workdir: string; uploadSummary?: string };
  /** Told when a run wrote under /memories/. */
  emit: (event: { kind: 'memories-changed' }) => void;
  /** Records checkpoints of the folder's changes (SPEC §8). */
  checkpoints?: CheckpointRecorder;
  /** The folder's MCP servers: their tools join the agent's (SPEC §10). */
  mcp?: McpHubApi;
  /** The skills there are now (SPEC §11): listed for the agent, the person's read-only at /skills/. */
  skills?: { source: () => readonly Skill[]; onListing?: (listing: SkillListing) => void };
  /** The person's hooks and the folder's trusted ones (SPEC §11). */
  hooks?: HooksOptions;
  /** The person's mounts (SPEC §13), read on every call; the git ones also at every step (commit and push). */
  mounts?: { routes: () => readonly MountRoute[]; git: () => readonly GitMountRoute[] };
  /** The folder's memories (SPEC §25): each thread sees its project's and the global ones, and its own proposals. */
  memories?: MemoryBook;
  /** Told when a run ended, whatever it changed (the memories' stale marks are checked again). */
  afterRun?: () => void;
  /** The person sent the thread a message (SPEC §26: what is spent unattended starts again). */
  touched?: (threadId: string) => void;
  /** Where a goal's gate takes the folder's tree and diff (SPEC §21); absent: the goal is checked without a diff. */
  goalFolder?: Pick<GoalPlace, 'tree' | 'diff'>;
  /** Settings' revision rounds for a goal (absent: the default, 3). */
  goalMaxRounds?: () => number | undefined;
  /** Settings' grader model for goals (absent: the run's own). */
  graderModel?: () => Promise<ChatModel | undefined>;
  /** The folder's own model (Settings'): a goal's grader on another agent's thread when Settings names no grader model. */
  mainModel?: () => Promise<ChatModel>;
  /** The reviewer (SPEC §23) of a run on `model` as `--reviewer` (`flag`) or Settings name it now; undefined: the person answers. */
  reviewer?: (model: ChatModel, flag: string | undefined) => ReviewSetup | undefined;
}

/**
 * What a thread's runs use instead of the folder's own: set by the client that drives the
 * thread (`deepdesk run`'s flags, an editor's session) and kept for its queued messages.
 */
export interface RunSettings {
  /** The model (default: the folder's, from Settings). */
  model?: ChatModel;
  /** Who answers approvals (default: the folder's ApprovalService, i.e. the window). */
  broker?: ApprovalBroker;
  /** The approval mode (default: the folder's saved one). */
  mode?: () => ApprovalMode;
  /** The agent: a subagent of the folder's (its prompt, tools), instead of Deepdesk's own; the model is `model`. */
  agent?: SubagentSpec;
  /** `--max-cost` (each run's own cap) and the candidates' set the thread is one of (SPEC §21, §26). */
  budget?: RunBudgetScope;
  /** `run --reviewer MODEL|thread|off` (SPEC §23): over Settings' and the session's; given, a tripped breaker is reset. */
  reviewer?: string;
  /** The thread's agent is another one over ACP (SPEC §22): each run is one turn of it (`model` is its stand-in, never called). */
  externalAgent?: ExternalAgentRunner;
  contextWindow?: number;
  evictChars?: number;
}

/** What one run of a thread is built from, besides the thread. */
export interface RunPlan {
  threadId: string;
  model: ChatModel;
  settings: RunSettings;
  /** What the current turn lets run without asking (a command's `allowed-tools`). */
  turn: () => Turn | undefined;
}

/** What the run queue hands a run: how it stops, saves, is told of approvals, and takes queued messages. */
export interface RunControls {
  signal: AbortSignal;
  broker: ApprovalBroker;
  /** Tells the thread's event (numbered) to its clients. */
  emitEvent: (event: AgentEvent) => void;
  /** Told of every approval event of the run. */
  onApproval: (event: Extract<AgentEvent, { type: 'approval' }>) => void;
  persist: (state: ThreadState) => void;
  /** The calls answered while no run went, read when the run starts. */
  resumableToolCalls: () => Set<string>;
  takeQueued: () => QueuedInput[];
  pendingNotes: () => PendingNote[];
  compactOnly?: boolean;
}

const WRITING_TOOLS = new Set(['write_file', 'edit_file']);

export class RunAssembly {
  constructor(private readonly options: RunAssemblyOptions) {}

  /** A thread's mount table: the folder, its thread files, /memories/, the skills and the person's mounts. */
  mountsFor(state: ThreadState): Mounts {
    const folderBackend = this.options.folderBackendFor?.(state.id);
    return createDefaultMounts({
      folder: this.options.folder,
      db: this.options.db,
      threadFiles: threadFilesFrom(state.files),
      ...(folderBackend ? { folderBackend } : {}),
      ...(this.options.skills ? { skills: this.options.skills.source } : {}),
      ...(this.options.mounts ? { extraMounts: this.options.mounts.routes } : {}),
      ...(this.options.memories ? { memories: this.options.memories.forThread(state.id) } : {}),
    });
  }

  /**
   * The events of one run: top-level text streams into the loaded thread, an approval is told
   * to `onApproval`, a write under /memories/ tells that memories changed.
   */
  runEvents(live: LoadedThread, controls: Pick<RunControls, 'emitEvent' | 'onApproval'>): (event: AgentEvent) => void {
    const toolArgs = new Map<string, unknown>();
    return (event) => {
      if (event.type === 'text' && event.parentToolCallId === undefined) live.streamingText += event.text;
      if (event.type === 'tool_call') toolArgs.set(event.id, event.args);
      if (event.type === 'approval') controls.onApproval(event);
      if (event.type === 'tool_result' && WRITING_TOOLS.has(event.name) && touchesMemories(toolArgs.get(event.id))) {
        this.options.emit({ kind: 'memories-changed' });
      }
      controls.emitEvent(event);
    };
  }

  /**
   * Builds the run's agent now (when it is started, before it has a slot) and returns its
   * events and how to run it once it may.
   */
  prepare(live: LoadedThread, plan: RunPlan, controls: RunControls): { emit: (event: AgentEvent) => void; run: (text: string | ContentPart[] | null) => Promise<RunResult> } {
    const emit = this.runEvents(live, controls);
    const external = plan.settings.externalAgent;
    const ownAgent = external === undefined ? this.definition(live.mounts.backend, plan, controls.broker) : undefined;
    const mode = plan.settings.mode ?? this.options.mode;
    const turnControls: ExternalTurnControls = { state: live.state, backend: live.mounts.backend, signal: controls.signal, broker: controls.broker, ...(mode ? { mode } : {}), ...(this.options.sandboxAvailable ? { sandboxAvailable: this.options.sandboxAvailable } : {}), emit, persist: (state: ThreadState) => controls.persist(state) };
    const run = async (text: string | ContentPart[] | null): Promise<RunResult> => {
      // A goal paused (a restart, a stop) goes on when the person sends the thread a message.
      const goal = live.state.goal;
      if (text !== null) this.options.touched?.(live.state.id);
      if (goal?.state === 'paused' && text !== null) {
        resumeGoal(goal);
        emit({ type: 'goal', threadId: live.state.id, goal: goalJson(goal) });
      }
      const pursuing = goal?.state === 'pursuing';
      // `--reviewer` on a later run turns review back on for a thread whose breaker tripped (SPEC §23).
      if (plan.settings.reviewer !== undefined) delete live.state.reviewBreaker;
      if (external !== undefined) {
        if (text === null && (pursuing || controls.compactOnly === true)) throw new Error(`${external.label} goes on only with a message of the person's`);
        const typed = text === null || typeof text === 'string' ? text : text.map((part) => (part.type === 'text' ? part.text : '')).join('');
        // What asks goes to the run's reviewer first (SPEC §23); `thread` is the folder's model here, as the grader is.
        const setup = this.options.reviewer?.((await this.options.mainModel?.().catch(() => undefined)) ?? plan.model, plan.settings.reviewer);
        const budget = setup && (await this.options.audit?.(live.state, plan.settings.budget))?.budget;
        if (setup !== undefined) turnControls.review = { setup, ...(budget ? { budget } : {}) };
        if (!pursuing) return external.turn(typed, turnControls);
      }
      // Every place checks a goal (its verify steps run through the thread's own commands); only the diff needs the folder's git here,
      // and what git leaves out (ignored entries) is the checkpoint log's.
      const history = this.options.checkpoints && new CheckpointHistory(this.options.checkpoints.store);
      const goalFolder = { ...(this.options.goalFolder ?? NO_DIFF), ...(history && { ignoredChanges: async (since: string) => history.ignoredChanges(live.state.id, since) }) };
      const graderModel = pursuing ? await this.options.graderModel?.() : undefined;
      // Another agent's thread with a goal: the same loop, its turns the agent's (the turn runner
      // seam), the gate's verify steps through Deepdesk's execute path and the grader Deepdesk's model.
      const checker = external !== undefined ? (graderModel ?? (await this.options.mainModel?.())) : undefined;
      if (external !== undefined && checker === undefined) throw new Error(`a goal on ${external.label}'s thread is checked by Deepdesk's grader, and no model is set in Settings`);
      const definition = ownAgent ?? this.definition(live.mounts.backend, { ...plan, model: checker! }, controls.broker);
      return runAgent(definition, live.state, text === null ? null : { role: 'user', content: text }, {
        ...(external !== undefined ? { turnRunner: (next: string, recorded: boolean) => external.turn(next, turnControls, { recorded }) } : {}),
        signal: controls.signal,
        emit,
        persist: async (state) => controls.persist(state),
        guard: live.guard,
        resumableToolCalls: controls.resumableToolCalls(),
        takeQueued: controls.takeQueued,
        pendingNotes: controls.pendingNotes,
        ...(controls.compactOnly ? { compactOnly: controls.compactOnly } : {}),
        ...(await this.options.audit?.(live.state, plan.settings.budget)),
        goals: { folder: goalFolder, ...(graderModel !== undefined ? { graderModel } : {}) },
      });
    };
    const afterRun = this.options.afterRun;
    return { emit, run: afterRun === undefined ? run : (text) => run(text).finally(afterRun) };
  }

  /**
   * The run adds to what the thread has cost as the ledger prices it now (a price set since its
   * last run reaches the calls made without one): the totals it reports and its budget agree with Usage.
   */
  priceAsLedger(live: LoadedThread, threadId: string): void {
    live.state.usage = withCost(live.state.usage, this.options.threadCost?.(threadId));
  }

  /**
   * The request the next run would send first with `content` added (SPEC §20): from the same
   * assembly as a run, without calling `model`, running anything or saving anything.
   */
  preview(state: ThreadState, backend: Backend, content: string | null, plan: RunPlan): Promise<RequestPreview> {
    const definition = this.definition(backend, plan, NOBODY_ASKED);
    return previewRequest(definition, state, content === null ? null : { role: 'user', content });
  }

  /**
   * The thread's agent drafts a goal's criteria and verify steps (SPEC §21) with its read-only
   * tools; the call is audited as the thread's (a ledger row of purpose `goal-draft`, the budget).
   */
  async draftGoal(state: ThreadState, backend: Backend, objective: string, plan: RunPlan): Promise<GoalDraft> {
    const def = this.definition(backend, plan, NOBODY_ASKED);
    const audit = await this.options.audit?.(state, plan.settings.budget);
    return draftGoal({ def, state, objective, ...(audit ? { telemetry: audit.telemetry, budget: audit.budget, folder: audit.folder } : {}) });
  }

  /** The agent of a thread's runs: one assembly, for a run and for the preview of its request. */
  private definition(backend: Backend, plan: RunPlan, broker: ApprovalBroker): AgentDefinition {
    const { settings, model } = plan;
    const mode = settings.mode ?? this.options.mode;
    const contextWindow = settings.contextWindow ?? this.options.contextWindow?.();
    const evictChars = settings.evictChars ?? this.options.evictChars;
    return createAgentDefinition({
      model,
      backend,
      // A command's allowed-tools come after every rule of the person's and the folder's (their deny and ask rules win) and before the defaults they relax.
      rules: () => [...this.options.rules(), ...(plan.turn()?.allow?.() ?? []), ...DEFAULT_RULES],
      broker,
      agentConfig: AGENT_CONFIG_PATHS,
      ...(this.options.reviewer ? { review: () => this.options.reviewer!(model, settings.reviewer) } : {}),
      ...(mode ? { mode } : {}),
      ...(this.options.sandboxAvailable ? { sandboxAvailable: this.options.sandboxAvailable } : {}),
      ...(this.options.providerSandbox ? { providerSandbox: this.options.providerSandbox } : {}),
      subagents: this.options.subagents(),
      ...(settings.agent !== undefined ? { agent: settings.agent } : {}),
      ...(this.options.checkpoints ? { checkpoints: this.options.checkpoints } : {}),
      ...(this.options.mcp ? { mcp: this.options.mcp } : {}),
      ...(this.options.skills ? { skills: this.options.skills } : {}),
      // The turn's skill and command shell lines, for PreSkillShellCommand (those the person invoked).
      ...(this.options.hooks ? { hooks: { ...this.options.hooks, skillShellLines: () => plan.turn()?.shell ?? [] } } : {}),
      ...(this.options.mounts ? { gitMounts: this.options.mounts.git } : {}),
      ...(this.options.resolveModel ? { resolveModel: this.options.resolveModel } : {}),
      ...(this.options.subagentModel ? { subagentModel: this.options.subagentModel } : {}),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(evictChars !== undefined ? { evictChars } : {}),
    });
  }
}

/** Where no goal folder is given (a place with none): its goals have no diff. */
const NO_DIFF: Pick<GoalPlace, 'tree' | 'diff'> = { tree: async () => undefined, diff: async () => undefined };

/** The broker of a preview: nothing runs, so nobody is asked. */
const NOBODY_ASKED: ApprovalBroker = {
  decide: () => Promise.reject(new Error('a preview of a request runs no tools')),
};

function touchesMemories(args: unknown): boolean {
  const path = (args as { file_path?: unknown } | undefined)?.file_path;
  return typeof path === 'string' && (path.startsWith(MEMORIES_PREFIX) || path === '/memories');
}

/** A thread's totals with its cost as the ledger has it (as they are when the ledger has none of its calls). */
export function withCost(usage: UsageTotals, cost: number | null | undefined): UsageTotals {
  if (cost === undefined) return usage;
  const { costUsd: _recorded, ...tokens } = usage;
  return cost === null ? tokens : { ...tokens, costUsd: cost };
}
