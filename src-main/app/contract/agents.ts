// The contract's Agents view (SPEC §16, issue 40): every thread that is running, waiting for
// the person, queued, or finished since it was last opened, across folders and across the
// processes sharing the data folder (the desktop app, the agent host). Answered by the folder
// host, so it works with no folder open; selecting one opens its folder and the thread.
// Renderer-safe: zod only.
import { GOAL_STATES } from '../../core/goals/goal';
import { z } from 'zod';
import { appInfoSchema } from './folders';
import { budgetNodeSchema } from './budgets';
import { sandboxPlaceSchema, sandboxProviderSchema } from './sandboxes';

/** `queued`: waiting for a free run slot (Settings `maxConcurrentRuns`); `stopped`: someone stopped it before it finished. */
export const agentStateSchema = z.enum(['working', 'needs-you', 'budget', 'queued', 'done', 'failed', 'stopped']);
export type AgentState = z.infer<typeof agentStateSchema>;

/** The words the window and `deepdesk agents` show for each state. */
export const AGENT_STATE_WORDS: Record<AgentState, string> = { working: 'Working', 'needs-you': 'Needs you', budget: 'Paused: budget', queued: 'Queued', done: 'Done', failed: 'Failed', stopped: 'Stopped' };

export const agentWorktreeSchema = z.object({
  /** The worktree's name (its folder under `<data-dir>/worktrees/`). */
  name: z.string(),
  /** `deepdesk/<name>`. */
  branch: z.string(),
  /** The person's folder it was made from. */
  originFolder: z.string(),
});
export type AgentWorktreeDto = z.infer<typeof agentWorktreeSchema>;

export const agentSchema = z.object({
  threadId: z.string(),
  title: z.string(),
  /** The thread's folder: a path (a worktree's own path for a worktree thread) or an `ssh://` URL. */
  folder: z.string(),
  folderName: z.string(),
  /** Set when the thread's folder is a Deepdesk worktree. */
  worktree: agentWorktreeSchema.optional(),
  /** Set when the thread runs in a provider's sandbox (SPEC §18): `Runs in Daytona · sandbox ID`. */
  sandbox: sandboxPlaceSchema.optional(),
  state: agentStateSchema,
  /** When its latest run started (ISO). */
  startedAt: z.string(),
  /** When it ended (ISO); absent while it goes. */
  endedAt: z.string().optional(),
  /** The thread's cost so far in USD; absent when no call had a known price. */
  costUsd: z.number().optional(),
  /** Why it failed, in one line. */
  message: z.string().optional(),
  /** Another thread works in the same folder at the same time, without a worktree. */
  sharesFolder: z.boolean(),
  /** The thread's goal's state (SPEC §21), when it has one. */
  goalState: z.enum(GOAL_STATES).optional(),
  /** The thread's agent when it is another one over ACP (SPEC §22): its name. */
  agent: z.string().optional(),
  /** The thread changed files in hunks the person has not marked Reviewed (SPEC §24). */
  unreviewed: z.boolean().optional(),
  /**
   * Set when the thread is one of a set of candidates (SPEC §21, `run --candidates N`): the view shows the set as one item,
   * each candidate by its number (`index` + 1) and its model (absent: Settings' model, or the agent's own).
   */
  candidateSet: z.object({ id: z.string(), index: z.number().int(), count: z.number().int(), goal: z.string(), model: z.string().optional() }).optional(),
});
export type AgentDto = z.infer<typeof agentSchema>;

const stepSchema = z.object({ command: z.string(), exitCode: z.number().int().nullable(), passed: z.boolean(), outputTail: z.string() });

/** A candidate's state: its goal's, or `failed` when its run failed (its model, its agent) and nothing goes on by itself. */
export const CANDIDATE_STATES = [...GOAL_STATES, 'failed'] as const;
export type CandidateState = (typeof CANDIDATE_STATES)[number];

export const rankingEntrySchema = z.object({
  rank: z.number().int().positive(),
  /** Its number in the set (1-based, the order it was started in: `[candidate N]`, the Agents view); absent in rankings kept before it was. */
  candidate: z.number().int().positive().optional(),
  threadId: z.string(),
  model: z.string().nullable(),
  /** The agent it ran as (SPEC §22: its name in the catalog or Settings › Agents), or null for Deepdesk's own. */
  agent: z.string().nullable(),
  worktree: z.object({ name: z.string(), path: z.string(), branch: z.string() }),
  state: z.enum(CANDIDATE_STATES),
  reason: z.string().optional(),
  verifyPassed: z.boolean(),
  verify: z.array(stepSchema),
  criteria: z.array(z.object({ id: z.string(), text: z.string(), verdict: z.string().optional(), reason: z.string().optional() })),
  /** As the goal carries them (SPEC §21): each final message that claimed success while a step failed. */
  contradictedClaims: z.array(z.object({ at: z.string(), round: z.number().int(), claim: z.string(), failingSteps: z.array(z.object({ command: z.string(), exitCode: z.number().int().nullable(), expectedExitCode: z.number().int() })) })),
  change: z.object({ files: z.number().int(), lines: z.number().int(), newDependencies: z.number().int() }),
  costUsd: z.number().nullable(),
});
/** A candidate in its set's ranking (SPEC §21): `run --candidates --json`'s entries and the window's comparison. */
export type RankingEntry = z.infer<typeof rankingEntrySchema>;

export const candidateSetJsonSchema = z.object({
  type: z.literal('candidates'),
  setId: z.string(),
  goal: z.string(),
  budgetUsd: z.number().nullable(),
  spentUsd: z.number().nullable(),
  ranking: z.array(rankingEntrySchema),
});
export type CandidateSetJson = z.infer<typeof candidateSetJsonSchema>;

export const agentMethods = {
  /** Working, needing the person, queued, or finished and not opened since; working first, then the newest. */
  'agentsView.list': { params: z.object({}).strict(), result: z.array(agentSchema) },
  /**
   * Opens the thread's folder in this window (as app.openFolder) and marks the thread seen; the window then selects it.
   * `beside` (a candidate's thread in its worktree): its folder opens beside the open one, which stays the window's; the thread's requests go to its own.
   */
  'agentsView.open': { params: z.object({ threadId: z.string().min(1), beside: z.literal(true).optional() }).strict(), result: z.object({ info: appInfoSchema, threadId: z.string() }) },
  /** A set of candidates side by side (SPEC §21): its candidates ranked by the host's evidence. */
  /** `applied`: the candidates (thread ids) whose worktree was applied to the person's folder. */
  'agentsView.compare': { params: z.object({ setId: z.string().min(1).max(200) }).strict(), result: z.object({ goal: z.string(), ranking: z.array(rankingEntrySchema), applied: z.array(z.string()).optional() }) },
  /** A candidate's diff against its base (its worktree's). */
  'agentsView.candidateDiff': { params: z.object({ threadId: z.string().min(1) }).strict(), result: z.object({ diff: z.string(), truncated: z.boolean() }) },
  /** `Apply`: the candidate's worktree applied to the person's folder (§16's Apply to folder: on conflicts nothing is applied, they are listed). */
  'agentsView.applyCandidate': { params: z.object({ threadId: z.string().min(1) }).strict(), result: z.object({ applied: z.array(z.string()), conflicts: z.array(z.string()) }) },
  /** `Discard`: the candidate's worktree removed (its thread kept). */
  /**
   * *Run N candidates…* (SPEC §21): N goal threads of the open folder, each on its own worktree, one budget for the set, run by
   * the agent host. A model per candidate (null: Settings' model). `autoApprove`: the candidates' approvals are granted;
   * otherwise they wait for the person as any thread's do.
   */
  'agentsView.runCandidates': {
    params: z
      .object({
        goal: z.string().trim().min(1).max(20_000),
        count: z.number().int().min(2).max(10),
        models: z.array(z.string().trim().max(500).nullable()).max(10),
        /** Each candidate's agent (SPEC §22: an installed one's name), null or absent: Deepdesk's own. */
        agents: z.array(z.string().trim().max(200).nullable()).max(10).optional(),
        /** Each candidate's own instruction, added after the goal (null or absent: none). */
        prompts: z.array(z.string().trim().max(20_000).nullable()).max(10).optional(),
        verify: z.array(z.string().trim().min(1).max(2_000)).max(20),
        /** Each candidate in its own sandbox of this provider (SPEC §18: forked from one set up where it forks); absent: worktrees on this computer. */
        sandbox: z.object({ provider: sandboxProviderSchema }).strict().optional(),
        /** The set's one budget (SPEC §21, §26). */
        budget: budgetNodeSchema.optional(),
        autoApprove: z.boolean(),
      })
      .strict(),
    result: z.object({ setId: z.string(), threadIds: z.array(z.string()) }),
  },
  'agentsView.discardCandidate': { params: z.object({ threadId: z.string().min(1) }).strict(), result: z.object({ removed: z.boolean() }) },
} as const;

export type AgentViewMethodName = keyof typeof agentMethods;

export const agentEvents = {
  /** The list changed (a state, a new run, one seen): ask agentsView.list again. */
  'agentsView.changed': z.object({}),
  /** The person clicked an OS notification about this thread (desktop): open it as agentsView.open does. */
  'agentsView.openThread': z.object({ threadId: z.string() }),
} as const;

/** An OS notification (or a line read out in the window) about one thread. */
export interface AgentNotice {
  threadId: string;
  title: string;
  body: string;
}

/** Where a thread works, in words: its worktree and branch, else its folder's name. */
export function agentPlace(agent: Pick<AgentDto, 'folderName' | 'worktree'>): string {
  return agent.worktree !== undefined ? `${agent.worktree.name} (${agent.worktree.branch})` : agent.folderName;
}

/** The states worth telling the person about when a thread reaches them (a stop is someone's own doing). */
const NOTICE_STATES: ReadonlySet<AgentState> = new Set(['needs-you', 'budget', 'done', 'failed']);

/**
 * What to tell the person between two listings of the Agents view: a thread that newly needs
 * them, or newly finished (done or failed). "Newly": it was not listed before, or listed in
 * another state, or its latest run is another one (a run that started and ended between the
 * two listings). Renderer-safe, pure: the desktop app's OS notifications and the browser's
 * (and what the window reads out) come from the same diff.
 */
export function agentNotices(previous: readonly AgentDto[], next: readonly AgentDto[]): AgentNotice[] {
  const before = new Map(previous.map((a) => [a.threadId, a]));
  const notices: AgentNotice[] = [];
  for (const agent of next) {
    if (!NOTICE_STATES.has(agent.state)) continue;
    const was = before.get(agent.threadId);
    if (was !== undefined && was.state === agent.state && was.startedAt === agent.startedAt) continue;
    const title = `“${agent.title.trim() || 'Untitled thread'}”`;
    const place = agentPlace(agent);
    if (agent.state === 'needs-you') notices.push({ threadId: agent.threadId, title: `${title} needs you`, body: `It waits for your answer in ${place}.` });
    else if (agent.state === 'budget') notices.push({ threadId: agent.threadId, title: `${title} paused at its budget`, body: `Raise the budget to resume it in ${place}.` });
    else if (agent.state === 'done') notices.push({ threadId: agent.threadId, title: `${title} is done`, body: `It finished in ${place}.` });
    else notices.push({ threadId: agent.threadId, title: `${title} failed`, body: agent.message?.trim() ? `${agent.message.trim()} (${place})` : `It stopped with an error in ${place}.` });
  }
  return notices;
}
