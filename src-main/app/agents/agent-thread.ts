// One external agent running for a thread (SPEC §22): the metering proxy on its model endpoint
// (each call metered under the agent's turn, a ledger row and a span naming it; at the budget:
// refused, `session/cancel`, then the tree), its private home prepared, its process started
// contained (core/acp-client), and its ACP session. The thread's composition hands it the
// backend, `execute`, the rules, the approval flow and the audit's listeners.
import type { AgentRunInfo, RunObserver, Telemetry } from '../../core/telemetry/observer';

import { contextWindowFor, costAt, DEFAULT_CONTEXT_WINDOW, resolvePrice, type PriceOverride } from '../../core/models/model-info';
import type { AcpClientOptions, AcpClientSession, AgentTurnBinding, SessionContinuation, TurnResult } from '../../core/acp-client/acp-client';
import { startAgentProcess } from '../../core/acp-client/agent-process';
import { startMeteringProxy, type MeteringProxy, type MeteringProxyOptions } from '../../core/acp-client/metering-proxy';
import { BudgetExceededError, type HoldOptions, type SpendNode } from '../../core/spend/spend-tree';
import type { CheckpointRecorder, StepInfo } from '../../core/checkpoints/recorder';
import { changeStatus, toVirtual, type Change, type Checkpoint } from '../../core/checkpoints/types';
import type { CheckpointFile } from '../../core/agent/types';
import { AGENT_CONFIG_PATHS, agentCommand, privateHome, vendorOf, type AddedAgent, type KnownAgent } from './vendors/catalog';

/** The port of the agent's own loopback its model is reached on (forwarded to the proxy's socket). */
export const AGENT_MODEL_PORT = 3129;

/** What the ACP client session is given, passed through as it is. */
export interface AgentThreadOptions extends Pick<AcpClientOptions, 'folder' | 'backend' | 'execute' | 'rules' | 'mode' | 'sandboxAvailable' | 'reviewing' | 'ask' | 'onUpdate' | 'onRuled'> {
  agent: { known: KnownAgent; installRoot?: string } | { added: AddedAgent };
  threadId: string;
  dataDir: string;
  /** The audit's listeners now (the ledger, traces): each turn and each of its model calls is told them. */
  telemetry?: () => Promise<Telemetry>;
  /** The person's key for the agent's provider (put on its calls upstream; never in its environment). */
  personKey?: string;
  /** The prices the person set in Settings › Prices (`openai:gpt-…`), over the table's. */
  prices?(): Readonly<Record<string, PriceOverride>> | undefined;
  /** Where its calls go (default the provider's endpoint): a scripted server in tests. */
  upstream?: string;
  /**
   * The agent's node in the budget tree (SPEC §26), beneath its thread's (and a candidates' set's):
   * each of its calls holds its worst case there before the proxy lets it through (its prompt from
   * the request's size, its answer its max_tokens), waiting while a cap is reached. A call whose
   * price is not known (the agent's own sign-in) cannot be held under a cap and is refused.
   */
  budget?: SpendNode;
  /** A call of the agent waits at a cap (`line`), or went on (undefined): the turn tells the thread. */
  onPause?: HoldOptions['onPause'];
  /** The person's home whose login folders are copied (default the home). */
  personHome?: string;
  /**
   * The folder's checkpoints: each turn is one step of the thread over the whole folder (the
   * agent writes in its own process too), recorded before and after it and attributed to the thread.
   */
  checkpoints?: CheckpointRecorder;
  /** After a host restart: the agent's session to continue (session/load or session/resume where it offers one). */
  continueSessionId?: string;
}

export interface AgentThread {
  readonly session: AcpClientSession;
  readonly sessionId: string;
  /** One turn (the ledger rows carry its number); with checkpoints, the turn's checkpoint of what changed. `binding`: what its requests work with (default the options'). */
  prompt(text: string, messageIndex?: number, binding?: AgentTurnBinding): Promise<TurnResult & { checkpoint?: Checkpoint; files?: CheckpointFile[]; changes?: Change[] }>;
  /** `stop`: cancel, then the tree. */
  stop(): Promise<void>;
  /** The turn under way's observer (the audit's): what is metered in the turn besides the agent's own calls goes under it. */
  observer(): RunObserver | undefined;
  /** Whether the budget stopped it. */
  budgetReached(): boolean;
  /** Whether its provider answered that the account is out of quota (its breaker tripped, SPEC §26). */
  quotaReached(): boolean;
  /** Why the budget refused its call, when it said more than that the budget is spent (a model with no price). */
  budgetRefusal(): string | undefined;
  readonly exited: Promise<unknown>;
  /** With `continueSessionId`: whether the agent continued it, or why it started a new session instead (the thread says so). */
  readonly continuation: SessionContinuation | undefined;
}

/** Each call of the agent through the budget tree: held before it goes (waiting at a cap), spent, kept or let go when it ended; `refused` is told why not. */
function treeHold(budget: SpendNode, known: KnownAgent, options: AgentThreadOptions, refused: (why: string) => void): NonNullable<MeteringProxyOptions['hold']> {
  return async ({ model, promptTokens, maxOutputTokens }, signal) => {
    const id = `${known.priceProvider}:${model}`;
    // Its own sign-in (no key of the person's): no price, so no hold can be taken, and no price set will change that.
    const price = options.personKey === undefined ? null : resolvePrice(id, options.prices?.());
    try {
      return await budget.hold({ id, price }, promptTokens, maxOutputTokens, { signal, ...(price === null ? { wait: false } : {}), ...(options.onPause ? { onPause: options.onPause } : {}) });
    } catch (err) {
      if (!(err instanceof BudgetExceededError)) throw err;
      const why =
        price === null && options.personKey === undefined
          ? `${known.label} uses its own sign-in (no ${known.keyVariable}): its calls have no price here, so the budget cannot hold them; give it your key, or run it without a budget.`
          : err.message;
      refused(why);
      return { refused: why };
    }
  };
}

function keyHeaders(agent: KnownAgent, key: string | undefined): Record<string, string> {
  if (key === undefined) return {};
  return { [agent.keyHeader]: agent.keyHeader === 'authorization' ? `Bearer ${key}` : key };
}

/** The metering proxy a known agent's model calls go through: each call observed under the turn under way (else under a turn of its own), priced with the person's key, held in the budgets. */
function meteringProxyFor(
  known: KnownAgent,
  options: AgentThreadOptions,
  audit: { run(): RunObserver | undefined; telemetry(): Telemetry | undefined; turnInfo(): AgentRunInfo },
  budget: { refused(why: string): void; reached(): void; quota(): void },
  onModel: MeteringProxyOptions['onModel'],
): Promise<MeteringProxy> {
  const alone = (): Pick<RunObserver, 'modelCall'> => ({
    modelCall: (info) => {
      const own = audit.telemetry()?.turn(audit.turnInfo());
      const call = own?.modelCall(info);
      return { end: (outcome) => (call?.end(outcome), own?.end({ reason: outcome.error === undefined ? 'completed' : 'error', text: '' })) };
    },
  });
  return startMeteringProxy({
    upstream: options.upstream ?? known.upstream,
    upstreamHeaders: keyHeaders(known, options.personKey),
    agent: { name: known.name, provider: known.priceProvider },
    observer: () => audit.run() ?? alone(),
    // Without the person's key it uses its own sign-in (a subscription): its calls pass unpriced.
    price: (usage) => (options.personKey === undefined ? undefined : costAt(resolvePrice(`${known.priceProvider}:${usage.model}`, options.prices?.()), usage)),
    ...(options.budget ? { hold: treeHold(options.budget, known, options, budget.refused) } : {}),
    onBudget: budget.reached,
    onQuota: budget.quota,
    onModel,
  });
}

/**
 * The model a turn's work was done with (SPEC §24), at its end: the one that answered the agent's
 * last call offering tools through the proxy (a side call's title is not the work), else the
 * model its session names, else none.
 */
function turnModel(): { heard: NonNullable<MeteringProxyOptions['onModel']>; used(session: AcpClientSession): string | undefined; reset(): void } {
  let heard: { model: string; tools: boolean } | undefined;
  return {
    heard: (call) => {
      if (call.tools || !heard?.tools) heard = call;
    },
    used: (session) => heard?.model ?? session.model,
    reset: () => (heard = undefined),
  };
}

/** One turn as one step of the thread over the whole folder, with the checkpoint of what changed. */
async function checkpointed(recorder: CheckpointRecorder, session: AcpClientSession, info: StepInfo, text: string, binding: AgentTurnBinding | undefined, model: () => string | undefined) {
  const outcome = await recorder.step(info, 'all', async () => {
    const answer = await session.prompt(text, binding);
    const used = model();
    if (used !== undefined) info.model = used;
    return answer;
  });
  const files = outcome.changes.map((c) => ({ path: toVirtual(c.path), status: changeStatus(c) }));
  return { ...outcome.result, ...(outcome.checkpoint ? { checkpoint: outcome.checkpoint, files, changes: outcome.changes } : {}) };
}

export async function startAgentThread(options: AgentThreadOptions): Promise<AgentThread> {
  const spec = options.agent;
  const vendor = vendorOf(spec);
  const { name, label } = vendor;
  const home = privateHome(options.dataDir, name);
  let turn = 0;
  let stopping: Promise<void> | undefined;
  let reached = false;
  let outOfQuota = false;
  let refusal: string | undefined;
  // Set once started; the proxy's callbacks reach them through this.
  const ref: { stop?: () => Promise<void>; session?: AcpClientSession } = {};
  const base = `http://127.0.0.1:${AGENT_MODEL_PORT}`;
  // The turn under way: its calls' rows and spans go under it (one outside a turn, under a turn of its own).
  let run: RunObserver | undefined;
  let telemetry = await options.telemetry?.();
  const turnInfo = () => ({ threadId: options.threadId, turn, agentName: name, depth: 0, provider: 'known' in spec ? spec.known.priceProvider : ('openai-compatible' as const), model: '', folder: options.folder });
  const audit = { run: () => run, telemetry: () => telemetry, turnInfo };
  const model = turnModel();
  const heard: NonNullable<MeteringProxyOptions['onModel']> = (call) => {
    model.heard(call);
    // Where the agent does not say how full its context is, its working calls' prompts do (SPEC §22: the context meter).
    const session = ref.session;
    if (!call.tools || call.usage === undefined || session === undefined || session.reportsUsage) return;
    const used = call.usage.inputTokens + call.usage.cacheReadTokens + call.usage.cacheWriteTokens + call.usage.outputTokens;
    const size = contextWindowFor('known' in spec ? spec.known.priceProvider : 'openai-compatible', call.model) ?? DEFAULT_CONTEXT_WINDOW;
    session.tell({ sessionUpdate: 'usage_update', used, size });
  };
  const proxy =
    'known' in spec
      ? await meteringProxyFor(spec.known, options, audit, {
          refused: (why) => (refusal ??= why),
          reached: () => {
            reached = true;
            void ref.stop?.();
          },
          // Out of quota (SPEC §26): the agent is stopped rather than left to retry into it.
          quota: () => {
            if (outOfQuota) return;
            outOfQuota = true;
            void ref.stop?.();
          },
        }, heard)
      : undefined;
  const launch =
    'known' in spec
      ? { ...agentCommand(options.dataDir, spec.known, spec.installRoot), env: spec.known.env(base, options.personKey !== undefined) }
      : { command: spec.added.command, args: spec.added.args, env: spec.added.env };
  const installRoot = 'known' in spec ? spec.installRoot : undefined;
  const prepare = (at: string): void => {
    vendor.withoutAllowRules(at);
    if ('known' in spec) spec.known.configureHome?.(at, base);
  };
  let proc;
  try {
    proc = await startAgentProcess({
      ...launch,
      folder: options.folder,
      dataDir: options.dataDir,
      privateHome: home,
      home: { loginEntries: vendor.loginEntries, prepare, ...(options.personHome !== undefined ? { personHome: options.personHome } : {}) },
      droppedEnv: vendor.droppedEnv ?? [],
      ...(installRoot ? { readable: [installRoot] } : {}),
      ...(proxy ? { forwards: [{ port: AGENT_MODEL_PORT, socket: proxy.socket }] } : {}),
    });
  } catch (err) {
    await proxy?.close();
    throw err;
  }
  // The Agent Client Protocol's SDK loads with the first agent's thread, not with every host.
  const { AcpClientSession } = await import('../../core/acp-client/acp-client');
  const session = new AcpClientSession(proc, { ...options, agent: label, describeRequest: vendor.describeRequest, agentConfig: AGENT_CONFIG_PATHS });
  ref.session = session;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await session.stop();
      await proxy?.close();
    })());
  ref.stop = stop;
  let continuation: SessionContinuation | undefined;
  try {
    await session.initialize(120_000);
    if (options.continueSessionId !== undefined) continuation = await session.continueSession(options.continueSessionId);
    if (continuation !== 'continued') await session.newSession();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    session,
    sessionId: session.id!,
    prompt: async (text, messageIndex, binding) => {
      turn++;
      model.reset();
      telemetry = (await options.telemetry?.()) ?? telemetry;
      const observer = (run = telemetry?.turn({ ...turnInfo(), input: { role: 'user', content: text } }));
      const result = (options.checkpoints ? checkpointed(options.checkpoints, session, { threadId: options.threadId, messageIndex: messageIndex ?? null, messageLine: text.split('\n')[0] ?? '', tool: `agent:${name}` }, text, binding, () => model.used(session)) : session.prompt(text, binding)).finally(() => (run = undefined));
      void result.then(
        (r) => observer?.end({ reason: r.stopReason === 'cancelled' ? 'aborted' : 'completed', text: '' }),
        (err: unknown) => observer?.end({ reason: 'error', text: '', error: err instanceof Error ? err.message : String(err) }),
      );
      return result;
    },
    stop,
    observer: () => run,
    budgetReached: () => reached || outOfQuota,
    quotaReached: () => outOfQuota,
    budgetRefusal: () => refusal,
    exited: proc.exited,
    continuation,
  };
}
