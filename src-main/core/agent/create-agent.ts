// Assembles the agent of SPEC §4: base tools, the system prompt and every middleware in
// the order their hooks must nest (outermost first around a tool call).

import type { Backend } from '../backends/protocol';
import { isShellBackend } from '../backends/protocol';
import type { ChatModel } from '../models/types';
import { filesystemTools } from '../tools/filesystem-tools';
import type { AgentDefinition } from './loop';
import type { Middleware } from './middleware';
import type { CheckpointRecorder } from '../checkpoints/recorder';
import { approvalMiddleware, type ApprovalOptions } from './middleware/approval';
import { checkpointsMiddleware } from './middleware/checkpoints';
import { mountStepsMiddleware } from './middleware/mount-steps';
import type { GitMountRoute } from '../backends/mounts/mount-table';
import { promptCachingMiddleware } from './middleware/caching';
import { evictionMiddleware } from './middleware/eviction';
import { memoryMiddleware } from './middleware/memory';
import { subagentsMiddleware, subagentTools, type SubagentSpec } from './middleware/subagents';
import { summarizationMiddleware } from './middleware/summarization';
import { todosMiddleware } from './middleware/todos';
import { mcpMiddleware } from './middleware/mcp-tools';
import type { McpHubApi } from '../extensions/mcp/types';
import { skillsMiddleware, type SkillListing } from './middleware/skills-prompt';
import type { Skill } from '../extensions/skills/types';
import { hooksMiddleware, type HooksOptions } from './middleware/hooks';
import { baseSystemPrompt, modePromptSection, providerSandboxSection, SANDBOX_SECTION } from './system-prompt';

/** `mode` is also read at every model request (the prompt's section). */
export interface AgentSetup extends Omit<ApprovalOptions, 'readOnlyTool'> {
  model: ChatModel;
  backend: Backend;
  /** Commands and files are a provider's sandbox (SPEC §18): its prompt section, and no way out of it to offer. */
  providerSandbox?: { label: string; workdir: string; uploadSummary?: string };
  subagents?: SubagentSpec[];
  /**
   * The agent is this subagent rather than Deepdesk's own: its system prompt and its tools,
   * the folder's middleware, and no `task` (a subagent gives no tasks). Its model is the caller's choice.
   */
  agent?: SubagentSpec;
  resolveModel?: (spec: string) => ChatModel | Promise<ChatModel>;
  /** Settings' subagent model ('provider:model'), read at each `task`: what a subagent naming no model runs on (SPEC §26). */
  subagentModel?: () => string | undefined;
  /** Overrides the model's context window for summarization (tokens). */
  contextWindow?: number;
  /** Overrides the tool-result eviction threshold (characters). */
  evictChars?: number;
  /** Stops the run when identical calls with identical results repeat this many steps in a row (default 3; 0: never). */
  maxRepeatedCalls?: number;
  /** Records checkpoints of the project folder (SPEC §8) when given. */
  checkpoints?: CheckpointRecorder;
  /** The folder's MCP servers (SPEC §10): their tools join the agent's, read before every model call. */
  mcp?: McpHubApi;
  /** The skills there are (SPEC §11), read before every model call; `onListing` hears what the prompt's list made of them. */
  skills?: { source: () => readonly Skill[]; onListing?: (listing: SkillListing) => void };
  /** The person's hooks and the folder's trusted ones (SPEC §11), read at every event; `mode` defaults to setup.mode. */
  hooks?: HooksOptions;
  /** The git mounts in force (SPEC §13), read at every step: a step's writes there are committed and pushed before the model sees their results. */
  gitMounts?: () => readonly GitMountRoute[];
}

export function createAgentDefinition(setup: AgentSetup): AgentDefinition {
  const canExecute = isShellBackend(setup.backend);
  const sandboxed = (): boolean => canExecute && (setup.sandboxAvailable?.() ?? false);
  // A provider's sandbox is where the files are: there is no outside of it to run in.
  const tools = filesystemTools({ execute: canExecute, sandbox: sandboxed() && setup.providerSandbox === undefined });
  const systemPrompt = baseSystemPrompt();
  const mcp = setup.mcp;
  // Shared by the main agent and its subagents; state lives in the run, not here.
  const hooks = setup.hooks;
  const mode = hooks?.mode ?? setup.mode;
  const shared = (): Middleware[] => {
    // The skills, for PreSkillShellCommand: a read of one's SKILL.md is the model invoking it.
    const hooked = hooks ? hooksMiddleware({ ...hooks, ...(mode ? { mode } : {}), ...(hooks.skills === undefined && setup.skills ? { skills: setup.skills.source } : {}) }) : undefined;
    return [
      todosMiddleware(),
      // Outside approval: a hook's deny is never asked about, its updatedInput is what is asked about.
      ...(hooked ? [hooked.outer] : []),
      approvalMiddleware({ ...setup, ...(mcp ? { readOnlyTool: (name: string) => mcp.tools().some((t) => t.qualifiedName === name && t.readOnly) } : {}) }),
      ...(mcp ? [mcpMiddleware(mcp, setup.contextWindow !== undefined ? { contextWindow: setup.contextWindow } : {})] : []),
      ...(setup.skills
        ? [
            skillsMiddleware(setup.skills.source, {
              ...(setup.contextWindow !== undefined ? { contextWindow: setup.contextWindow } : {}),
              ...(setup.skills.onListing ? { onListing: setup.skills.onListing } : {}),
            }),
          ]
        : []),
      ...(setup.checkpoints ? [checkpointsMiddleware(setup.checkpoints)] : []),
      ...(setup.gitMounts ? [mountStepsMiddleware(setup.gitMounts)] : []),
      { name: 'mode', systemPrompt: () => modePromptSection(setup.mode?.() ?? 'ask') },
      { name: 'sandbox', systemPrompt: () => (setup.providerSandbox ? providerSandboxSection(setup.providerSandbox) : sandboxed() ? SANDBOX_SECTION : undefined) },
      evictionMiddleware(setup.evictChars !== undefined ? { toolResultChars: setup.evictChars } : {}),
      summarizationMiddleware(setup.contextWindow !== undefined ? { contextWindow: setup.contextWindow } : {}),
      promptCachingMiddleware(),
      memoryMiddleware(),
      // Innermost: marks the calls that reached their tool (PostToolUse runs only for those).
      ...(hooked ? [hooked.inner] : []),
    ];
  };
  const subagents = subagentsMiddleware({
    subagents: setup.subagents ?? [],
    baseTools: tools,
    childMiddleware: shared,
    basePrompt: systemPrompt,
    ...(setup.resolveModel ? { resolveModel: setup.resolveModel } : {}),
    // A large fan-out is asked about as the calls are (SPEC §26): the same rules, mode, broker and reviewer.
    approval: setup,
    ...(setup.subagentModel ? { defaultModel: setup.subagentModel } : {}),
  });
  if (setup.agent !== undefined) {
    const own = subagentTools(setup.agent, tools, shared());
    return {
      model: setup.model,
      backend: setup.backend,
      tools: own.tools,
      middleware: own.middleware,
      systemPrompt: setup.agent.systemPrompt,
      ...(setup.maxRepeatedCalls !== undefined ? { maxRepeatedCalls: setup.maxRepeatedCalls } : {}),
    };
  }
  const [todos, ...rest] = shared();
  return {
    model: setup.model,
    backend: setup.backend,
    tools,
    middleware: [todos!, subagents, ...rest],
    systemPrompt,
    ...(setup.maxRepeatedCalls !== undefined ? { maxRepeatedCalls: setup.maxRepeatedCalls } : {}),
  };
}
