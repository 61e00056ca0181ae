// One external agent running for a thread (SPEC §22): the metering proxy on its model endpoint
// (each response a ledger row naming the agent; at the budget: refused, `session/cancel`, then
// the tree), its private home prepared, its process started contained (core/acp-client), and
// its ACP session. The thread's composition hands it the backend, `execute`, the rules and the
// approval flow.
import { randomUUID } from 'node:crypto';
import type { UsageLedger } from '../../core/telemetry/usage-ledger';
import { costAt, resolvePrice } from '../../core/models/model-info';
import type { AcpClientOptions, AcpClientSession, TurnResult } from '../../core/acp-client/acp-client';
import { preparePrivateHome, startAgentProcess } from '../../core/acp-client/agent-process';
import { startMeteringProxy, type MeteredCall, type MeteringProxy, type MeteringProxyOptions } from '../../core/acp-client/metering-proxy';
import { BudgetExceededError, type RunBudget } from '../../core/agent/budget';
import type { CheckpointRecorder } from '../../core/checkpoints/recorder';
import { changeStatus, toVirtual, type Checkpoint } from '../../core/checkpoints/types';
import type { CheckpointFile } from '../../core/agent/types';
import { agentScript, privateHome, type AddedAgent, type KnownAgent } from './agent-catalog';

/** The port of the agent's own loopback its model is reached on (forwarded to the proxy's socket). */
export const AGENT_MODEL_PORT = 3129;

/** What the ACP client session is given, passed through as it is. */
export interface AgentThreadOptions extends Pick<AcpClientOptions, 'folder' | 'backend' | 'execute' | 'rules' | 'mode' | 'sandboxAvailable' | 'ask' | 'onUpdate' | 'onRuled'> {
  agent: { known: KnownAgent; installRoot?: string } | { added: AddedAgent };
  threadId: string;
  dataDir: string;
  ledger?: UsageLedger;
  /** The person's key for the agent's provider (put on its calls upstream; never in its environment). */
  personKey?: string;
  /** Where its calls go (default the provider's endpoint): a scripted server in tests. */
  upstream?: string;
  budget?: { limitUsd: number; spentUsd: number };
  /**
   * The budget of the candidates' set the thread is one of (SPEC §21): each of the agent's calls
   * holds its estimate there before the proxy lets it through (its prompt from the request's size,
   * its answer from the set's calls so far), so the set never spends more than it. A call whose
   * price is not known (the agent's own sign-in) cannot be held and is refused.
   */
  sharedBudget?: RunBudget;
  protectedPaths?: string[];
  allowedDomains?: string[];
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
  readonly label: string;
  readonly session: AcpClientSession;
  readonly sessionId: string;
  /** One turn (the ledger rows carry its number); with checkpoints, the turn's checkpoint of what changed. */
  prompt(text: string, messageIndex?: number): Promise<TurnResult & { checkpoint?: Checkpoint; files?: CheckpointFile[] }>;
  /** `stop`: cancel, then the tree. */
  stop(): Promise<void>;
  /** Whether the budget stopped it. */
  budgetReached(): boolean;
  readonly proxy: MeteringProxy | undefined;
  readonly exited: Promise<unknown>;
  /**
   * With `continueSessionId`: whether the agent continued it. When it offers neither load nor
   * resume it cannot, and a new session was started: the thread keeps its own history and says so.
   */
  readonly continued: boolean | undefined;
}

/** Characters of a request per prompt token, as the estimate before a call takes them (JSON bodies: a generous count). */
const CHARS_PER_TOKEN = 4;

/** Each call of the agent through the set's budget: held before it goes, spent or let go when it ended. */
function sharedHold(budget: RunBudget, known: KnownAgent, personKey: string | undefined): NonNullable<MeteringProxyOptions['hold']> {
  return ({ path, body }) => {
    const model = requestModel(path, body);
    // Its own sign-in (no key of the person's): no price, so no hold can be taken.
    const price = personKey === undefined ? null : resolvePrice(`${known.priceProvider}:${model}`);
    try {
      const hold = budget.reserve({ id: `${known.priceProvider}:${model}`, price }, Math.ceil(body.length / CHARS_PER_TOKEN));
      return { spend: (usage, costUsd) => hold.spend(usage, costUsd), release: () => hold.release() };
    } catch (err) {
      if (err instanceof BudgetExceededError) return { refused: err.message };
      throw err;
    }
  };
}

/** The model a request names: its body's `model` (Messages, Responses), else the path's (Gemini's `models/NAME:…`). */
function requestModel(path: string, body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { model?: unknown };
    if (typeof parsed.model === 'string' && parsed.model !== '') return parsed.model;
  } catch {
    // Not JSON: the path may name it.
  }
  return /\/models\/([^/:?]+)/.exec(path)?.[1] ?? 'unknown';
}

function keyHeaders(agent: KnownAgent, key: string | undefined): Record<string, string> {
  if (key === undefined) return {};
  return { [agent.keyHeader]: agent.keyHeader === 'authorization' ? `Bearer ${key}` : key };
}

export async function startAgentThread(options: AgentThreadOptions): Promise<AgentThread> {
  const spec = options.agent;
  const name = 'known' in spec ? spec.known.name : spec.added.name;
  const label = 'known' in spec ? spec.known.label : (spec.added.label ?? spec.added.name);
  const home = privateHome(options.dataDir, name);
  let turn = 0;
  let stopping: Promise<void> | undefined;
  let reached = false;
  let proxy: MeteringProxy | undefined;
  // Set once started; the proxy's budget callback reaches it through this.
  const ref: { session?: AcpClientSession; stop?: () => Promise<void> } = {};
  const base = `http://127.0.0.1:${AGENT_MODEL_PORT}`;
  if ('known' in spec) {
    const known = spec.known;
    const record = (call: MeteredCall): void => {
      if (!call.usage) return;
      options.ledger?.record({
        id: randomUUID(),
        at: call.at,
        threadId: options.threadId,
        turn,
        subagent: null,
        purpose: 'agent',
        // The row names the agent; its model is the provider's own name for it.
        provider: name,
        model: call.usage.model,
        inputTokens: call.usage.inputTokens,
        outputTokens: call.usage.outputTokens,
        cacheReadTokens: call.usage.cacheReadTokens,
        cacheWriteTokens: call.usage.cacheWriteTokens,
        costUsd: call.costUsd ?? null,
        durationMs: call.durationMs,
        failed: call.status >= 400,
        error: call.status >= 400 ? `HTTP ${call.status}` : null,
      });
    };
    proxy = await startMeteringProxy({
      upstream: options.upstream ?? known.upstream,
      upstreamHeaders: keyHeaders(known, options.personKey),
      onCall: record,
      // Without the person's key it uses its own sign-in (a subscription): its calls pass unpriced.
      price: (usage) => (options.personKey === undefined ? undefined : costAt(resolvePrice(`${known.priceProvider}:${usage.model}`), usage)),
      ...(options.budget ? { budget: options.budget } : {}),
      ...(options.sharedBudget ? { hold: sharedHold(options.sharedBudget, known, options.personKey) } : {}),
      onBudget: () => {
        reached = true;
        void ref.stop?.();
      },
    });
    preparePrivateHome(home, known.loginEntries, options.personHome);
    known.prepareHome?.(home, base);
  } else {
    preparePrivateHome(home, [], options.personHome);
  }
  const launch =
    'known' in spec
      ? { command: process.execPath, args: [agentScript(options.dataDir, spec.known, spec.installRoot), ...spec.known.args], env: spec.known.env(base, options.personKey !== undefined) }
      : { command: spec.added.command, args: spec.added.args, env: spec.added.env };
  const installRoot = 'known' in spec ? spec.installRoot : undefined;
  let proc;
  try {
    proc = await startAgentProcess({
      ...launch,
      folder: options.folder,
      dataDir: options.dataDir,
      privateHome: home,
      ...(installRoot ? { readable: [installRoot] } : {}),
      ...(proxy ? { forwards: [{ port: AGENT_MODEL_PORT, socket: proxy.socket }] } : {}),
      ...(options.protectedPaths ? { protectedPaths: options.protectedPaths } : {}),
      ...(options.allowedDomains ? { allowedDomains: options.allowedDomains } : {}),
    });
  } catch (err) {
    await proxy?.close();
    throw err;
  }
  // The Agent Client Protocol's SDK loads with the first agent's thread, not with every host.
  const { AcpClientSession } = await import('../../core/acp-client/acp-client');
  const session = new AcpClientSession(proc, { ...options, agent: label });
  ref.session = session;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await session.stop();
      await proxy?.close();
    })());
  ref.stop = stop;
  let continued: boolean | undefined;
  try {
    await session.initialize(120_000);
    if (options.continueSessionId !== undefined) continued = await session.continueSession(options.continueSessionId);
    if (continued !== true) await session.newSession();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    label,
    session,
    sessionId: session.id!,
    prompt: async (text, messageIndex) => {
      turn++;
      const recorder = options.checkpoints;
      if (!recorder) return session.prompt(text);
      const line = text.split('\n')[0] ?? '';
      const outcome = await recorder.step({ threadId: options.threadId, messageIndex: messageIndex ?? null, messageLine: line, tool: `agent:${name}` }, 'all', () => session.prompt(text));
      const files = outcome.changes.map((c) => ({ path: toVirtual(c.path), status: changeStatus(c) }));
      return { ...outcome.result, ...(outcome.checkpoint ? { checkpoint: outcome.checkpoint, files } : {}) };
    },
    stop,
    budgetReached: () => reached,
    proxy,
    exited: proc.exited,
    continued,
  };
}
