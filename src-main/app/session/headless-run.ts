// A run that no window drives: `deepdesk run`'s, carried out in the agent host. Its folder is
// opened with the run's own flags (model, mounts, MCP config files, `--trust`, a remote
// folder), the person's message goes through the one input pipeline, and the thread runs in
// the one run assembly (ThreadService). What the person should know is one line to `say`;
// approvals go to the broker the host gives it (the attached terminal, or a fixed policy).

import { randomUUID } from 'node:crypto';
import type { RunResult } from '../../core/agent/loop';
import type { SubagentSpec } from '../../core/agent/middleware/subagents';
import { newThreadState, type ApprovalRequest } from '../../core/agent/types';
import { ApprovalService } from '../approvals/approval-service';
import type { ApprovalPreview } from '../approvals/approval-preview';
import { expandInput, isInputError, messageText } from '../commands/person-input';
import type { Turn } from '../commands/slash-commands';
import { badRequestOn, ContractError } from '../contract';
import { ThreadStore } from '../threads/thread-store';
import { goalPrompt } from './goal-start';
import type { FolderSession } from './folder-session';
import { placeContained } from './session-place';
import { runsInText } from '../contract/sandboxes';
import { SandboxProviderError } from '../../core/sandbox-providers/provider';
import type { RequestPreview } from '../../core/agent/loop';
import { requestCost, type RequestCost } from '../../core/agent/request-budget';
import { ModelConfigError } from '../../core/models/errors';
import { agentStandInModel } from '../agents/agent-runner';
import { externalAgentFor, externalAgentName } from './external-agent';
import { startRunGoal } from './run-goal';
import type { HeadlessRunContext, HeadlessRunIo, HeadlessRunRequest } from './run-request';
import { inSandboxFolder, openRunSession, runSession } from './run-session';

export type { HeadlessRunContext, HeadlessRunIo, HeadlessRunRequest };

/** How a candidate's own instruction is introduced after the goal (docs/cli.md says so). */
export const CANDIDATE_INSTRUCTION = 'Instruction for this attempt: ';

export interface HeadlessRun {
  /** The folder as the thread records it. */
  folder: string;
  /** How the run ended; everything it opened is closed by then. */
  result: Promise<RunResult>;
  /** Stops the run (its commands' process trees included); `by`: who, when not the person (the thread says so). */
  stop(by?: string): Promise<void>;
  /** The diff the window shows beside an approval of an edit or a write (approval-preview.ts). */
  previewApproval(request: ApprovalRequest): Promise<ApprovalPreview | undefined>;
  /** Where its commands run when not on this computer: `Runs in Daytona · sandbox ID`. */
  runsIn?: string;
}

/**
 * Opens the run's folder and starts the run. Rejects with ContractError `bad_request` for what
 * is bad usage (a bad model spec, a slash command that means nothing here, `--mode auto`
 * without a sandbox, a bad mention), and with the error itself for the rest.
 */
export async function startHeadlessRun(given: HeadlessRunRequest, context: HeadlessRunContext, io: HeadlessRunIo): Promise<HeadlessRun> {
  const { db } = context;
  const { request, abandon } = await inSandboxFolder(given, context, io.say);
  let session: FolderSession;
  let release: (reuse: boolean) => Promise<void>;
  try {
    ({ session, release } = await runSession(request, context, io.say));
  } catch (err) {
    // A sandbox that could not start leaves no worktree, branch or record made for it.
    await abandon?.();
    throw err;
  }
  try {
    const store = new ThreadStore(db);
    const threadId = request.threadId ?? randomUUID();
    const stored = store.get(threadId);
    // Another agent over ACP (SPEC §22): `--agent NAME`, or the one the thread already has.
    const externalName = externalAgentName({ ...(request.externalAgent !== undefined ? { name: request.externalAgent } : {}), ...(stored !== undefined ? { state: store.load(threadId) } : {}) });
    if (externalName !== undefined && (request.agent !== undefined || request.model !== undefined)) {
      throw new ContractError(`--agent ${externalName}: the thread's agent is that one, with its own model; it takes no --model or subagent`, 'bad_request');
    }
    const external =
      externalName === undefined
        ? undefined
        : await externalAgentFor(session, externalName, {
            name: externalName,
            threadId,
            dataDir: context.dataDir,
            env: request.env,
            say: io.say,
            budget: { run: request.budget, set: request.budgetSet },
          });
    const agent = request.agent === undefined ? undefined : subagentNamed(session, request.agent);
    // A bad model spec or a missing key is told before anything runs. A subagent's own model
    // is its run's unless the run names one. Another agent calls its own model.
    const model = external !== undefined ? agentStandInModel(external.spec) : request.model === undefined && agent?.model !== undefined ? await session.models.named(agent.model) : await session.models.main();
    await readyForRun(session, io.say);
    const { place } = session;
    const threads = session.threads({
      approvals: new ApprovalService(db, async () => ({})),
      emit: (e) => {
        if (e.kind === 'thread-event') io.emit(e.event);
      },
    });
    /** `reuse`: the run went to its end, and its session may serve the folder's next run. */
    const closeAll = async (reuse = false) => {
      const failures: unknown[] = [];
      await threads.dispose().catch((err: unknown) => failures.push(err));
      // The agent's process tree ends with the run (cancel, then the tree).
      await Promise.resolve(external?.close()).catch((err: unknown) => failures.push(err));
      await release(reuse && failures.length === 0);
      if (failures.length > 0) throw failures[0];
    };
    try {
      if (stored === undefined) store.save(newThreadState(threadId), { folder: place.text });
      else if (stored.folder !== place.text) throw new ContractError(`thread ${threadId} belongs to another folder (${stored.folder}); pass that --folder`, 'bad_request');
      threads.useRunSettings(threadId, {
        broker: io.broker,
        ...(agent !== undefined ? { agent, model } : {}),
        ...(external !== undefined ? { externalAgent: external, model } : {}),
        budget: { run: request.budget, set: request.budgetSet },
        ...(request.reviewerChoice !== undefined ? { reviewer: request.reviewerChoice } : {}),
      });
      // Another agent's goal is drafted (without --verify) and graded by Deepdesk's own model (SPEC §21 with §22).
      const goal = request.goal !== undefined ? await startRunGoal(threads, threadId, external !== undefined ? await session.models.main() : model, request, io) : undefined;
      const first = request.prompt.trim() === '' && goal !== undefined ? goalPrompt(goal) : request.prompt;
      // A candidate's own instruction (`run --candidates … --prompt P`) comes after the goal, for this candidate alone.
      const input = await personInput(request.instruction !== undefined ? `${first}\n\n${CANDIDATE_INSTRUCTION}${request.instruction}` : first, inputSources(session));
      const result = threads
        .run(threadId, input.content, { compactOnly: input.compactOnly, typed: request.prompt, ...(input.turn ? { turn: input.turn } : {}), ...(request.attachments?.length ? { attachments: request.attachments } : {}) })
        .then(
          async (result) => {
            await closeAll(true);
            return result;
          },
          async (err: unknown) => {
            await closeAll();
            throw err;
          },
        );
      return {
        folder: place.text,
        result,
        stop: (by) => threads.stop(threadId, by),
        previewApproval: (request) => threads.previewApproval(request),
        ...(place.provider ? { runsIn: runsInText(place.provider) } : {}),
      };
    } catch (err) {
      await closeAll();
      throw err;
    }
  } catch (err) {
    await release(false);
    throw err;
  }
}

/** What `deepdesk run --print-request` shows: the run's first request, and the model it would go to. */
export interface HeadlessRequestPreview {
  /** `provider:model`, or `none` when no model is chosen. */
  model: string;
  contextWindow: number;
  preview: RequestPreview;
  cost: RequestCost;
}

/**
 * The request `deepdesk run` would send first for this prompt (empty: none, the base request),
 * from the same session and assembly as the run, without calling the model, running anything
 * or saving a thread; no key is needed. The prompt goes through the same input pipeline.
 */
export async function previewHeadlessRequest(request: HeadlessRunRequest, context: HeadlessRunContext, say: (line: string) => void): Promise<HeadlessRequestPreview> {
  if (request.sandbox !== undefined) throw new ContractError('--print-request shows the request and starts no run: it makes no sandbox', 'bad_request');
  const session = await openRunSession(request, context, say);
  try {
    const model = badRequestOn(ModelConfigError, () => session.models.described());
    await readyForRun(session, say);
    const threads = session.threads({ approvals: new ApprovalService(context.db, async () => ({})), emit: () => undefined });
    try {
      let content: string | null = null;
      if (request.prompt.trim() !== '') {
        const input = await personInput(request.prompt, inputSources(session));
        if (input.compactOnly) throw new ContractError('/compact sends no request to preview: it summarizes the thread', 'bad_request');
        content = input.content;
      }
      const preview = await threads.previewRequest(content, model, request.threadId);
      return { model: model.id, contextWindow: model.contextWindow, preview, cost: requestCost(preview.request, preview.systemParts, model) };
    } finally {
      await threads.dispose();
    }
  } finally {
    await session.close();
  }
}

/** The folder's subagent a run is to be (Settings' and the folder's agents, as `task` knows them). */
function subagentNamed(session: FolderSession, name: string): SubagentSpec {
  const found = session.extensions.extensions.subagents(session.settings.raw().subagents).find((s) => s.name === name);
  if (found === undefined) throw new ContractError(`there is no subagent ${name} in Settings or this folder's agents`, 'bad_request');
  return found;
}

/** What must hold before a run's first step: auto mode (flag or saved) has its sandbox; the MCP servers started, what did not load told in one line each (SPEC §9–§11). */
async function readyForRun(session: FolderSession, say: (line: string) => void): Promise<void> {
  const { place, extensions } = session;
  // A sandbox found gone when the folder opened: no run starts there (the words say both ways forward).
  const sandbox = place.provider?.state();
  if (place.provider && sandbox && (sandbox.state === 'gone' || sandbox.state === 'removed')) throw new SandboxProviderError(sandbox.message ?? `The ${place.provider.label} sandbox ${place.provider.sandboxId} is gone.`, 'gone', place.provider.name);
  if (session.mode() === 'auto' && !placeContained(place)) {
    const status = place.sandboxStatus;
    throw new ContractError(`--mode auto needs a sandbox, and none is available: ${status.available ? 'it could not be set up' : status.reason}`, 'bad_request');
  }
  await extensions.mcp.start();
  for (const line of extensions.extensions.problemLines()) say(line);
  for (const line of extensions.mcp.problemLines()) say(line);
  const untrusted = await extensions.untrustedNotice();
  if (untrusted !== undefined) say(untrusted);
}

/** Where the person's words are expanded from: the folder's MCP prompts, skills, commands and files. */
function inputSources(session: FolderSession): Parameters<typeof expandInput>[1] {
  const { place, extensions } = session;
  return {
    mcp: extensions.hub,
    skills: () => extensions.extensions.skills(),
    commands: () => extensions.extensions.commands(),
    files: place.shell,
  };
}

/** The person's words through the one input pipeline; the slash commands that change a window's state are bad usage here. */
async function personInput(typed: string, sources: Parameters<typeof expandInput>[1]): Promise<{ content: string | null; compactOnly: boolean; turn?: Turn }> {
  const outcome = await expandInput(typed, sources).catch((err: unknown) => {
    throw isInputError(err) ? new ContractError(err.message, 'bad_request') : err;
  });
  switch (outcome.kind) {
    case 'send':
      return { content: messageText(outcome), compactOnly: false, ...(outcome.turn ? { turn: outcome.turn } : {}) };
    case 'compact':
      return { content: null, compactOnly: true };
    case 'model':
    case 'mode': {
      const value = outcome.kind === 'model' ? outcome.model : outcome.mode;
      throw new ContractError(`/${outcome.kind} changes the window's ${outcome.kind}; for deepdesk run pass --${outcome.kind} ${value}`, 'bad_request');
    }
    case 'clear':
      throw new ContractError('/clear starts a new thread in the window; deepdesk run starts one whenever --thread is not given', 'bad_request');
    case 'goal':
      throw new ContractError('/goal drafts a goal in the window; for deepdesk run pass --goal TEXT [--verify CMD]…', 'bad_request');
  }
}
