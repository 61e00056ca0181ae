// The budget tree (SPEC §17, §26): the workspace, a folder, a thread, and inside a thread each
// fan-out (a subagent, a candidate set, another agent's turn, a run's own `--max-cost`). Every
// model call holds its worst case — its prompt's tokens plus the most it may answer, at the
// model's price — against every node from its own up to the workspace before it goes, and
// settles at the usage reported (cut short with none, it keeps its worst case). So no node's
// spend passes its cap by more than one call's worst case.
//
// A call that would cross a cap is not made: in a room that pauses it waits until the cap is
// raised (the room is told: `raised()`) or its run is stopped; elsewhere it is refused with the
// paused line. A model whose price is unknown cannot be held to a dollar cap: its call
// pauses the same way, until a price is set.

import { modelPrice } from '../models/model-info';
import type { ChatModel, Usage } from '../models/types';

export type SpendKind = 'workspace' | 'folder' | 'thread' | 'fanout';

/** What a node may spend (SPEC §26's keys; the workspace's are per day and month). */
export interface SpendCaps {
  maxCostUsd?: number;
  maxTokens?: number;
  /** What may be spent since the person last touched the thread. */
  unattendedUsd?: number;
  dailyUsd?: number;
  monthlyUsd?: number;
  /** Subagents (and candidates) started beneath it over its life, and at once (core/agent/middleware/subagents.ts keeps them). */
  maxSpawns?: number;
  maxConcurrent?: number;
}

/** The caps a call's hold is checked against (the others are fan-out's). */
const HELD_CAPS = ['maxCostUsd', 'maxTokens', 'unattendedUsd', 'dailyUsd', 'monthlyUsd'] as const;

/** What a node had spent before this process counted (the ledger's). */
export interface SpentBefore {
  usd: number;
  tokens?: number;
  todayUsd?: number;
  monthUsd?: number;
}

export interface SpendNodeInit {
  kind: SpendKind;
  /** A thread's id, a folder's path, a fan-out's name. */
  id: string;
  /** How the paused line names its budget: `the thread's budget`. */
  label: string;
  /** Where its caps are set (`workspace`, `folder:DIR`, `thread:ID`: `deepdesk budget set`'s SCOPE), so a pause can offer to raise them. */
  scope?: string;
  /** Read at every check, so a raised cap applies at once. */
  caps?: () => SpendCaps;
  before?: () => SpentBefore;
  /** A call over this node's cap waits (true) or is refused (false); default the room's. */
  pauses?: boolean;
}

/** Thrown before a model call a cap does not allow, by a node that cannot wait; the run ends with reason `budget`. */
export class BudgetExceededError extends Error {
  override readonly name = 'BudgetExceededError';
}

/** A call's place in the tree, from before it is made until it ends. */
export interface BudgetHold {
  /** The provider reported the call's usage: its cost takes the place of its worst case. */
  spend(usage: Usage, costUsd: number | undefined): void;
  /** The call ended without a usage before the provider answered (failed, stopped): its worst case is let go. */
  release(): void;
  /** Cut short after the provider began answering with no usage reported: its worst case is spent as its cost, and returned. */
  keep(): number;
}

/** A node as `deepdesk budget show --json` and the Usage view show it. */
export interface SpendSnapshot {
  kind: SpendKind;
  id: string;
  spentUsd: number;
  heldUsd: number;
  capUsd: number | null;
  inputTokens: number;
  outputTokens: number;
  /** The paused line of a call waiting at this node. */
  paused?: string;
  children: SpendSnapshot[];
}

/** Why a call waits: the line, and the cap it would cross (SCOPE and KEY as `deepdesk budget set` takes them) where one can be raised. */
export interface Pause {
  line: string;
  scope?: string;
  key?: keyof SpendCaps;
  /** The cap crossed, as set now. */
  cap?: number;
}

export interface HoldOptions {
  /** Stops a paused call (it throws the signal's reason). */
  signal?: AbortSignal;
  /** Over a cap: wait, paused (true), or throw BudgetExceededError at once (false); default the room's. */
  wait?: boolean;
  /** Told why when the call starts waiting, and undefined when it goes on (or is stopped). */
  onPause?(pause: Pause | undefined): void;
}

type Worst = { usd: number | null; tokens: number };

export class SpendNode {
  private spent = 0;
  private held = 0;
  private heldTokens = 0;
  private input = 0;
  private output = 0;
  private unattended = 0;
  private pausedLine: string | undefined;
  private readonly children = new Set<SpendNode>();

  constructor(
    readonly room: SpendRoom,
    private readonly init: SpendNodeInit,
    readonly parent?: SpendNode,
  ) {}

  get kind(): SpendKind {
    return this.init.kind;
  }

  get id(): string {
    return this.init.id;
  }

  /** A node beneath this one (its spend counts here too). */
  child(init: SpendNodeInit): SpendNode {
    const node = new SpendNode(this.room, init, this);
    this.children.add(node);
    return node;
  }

  /** The child of this kind and id, made once. */
  childFor(init: SpendNodeInit): SpendNode {
    for (const c of this.children) if (c.kind === init.kind && c.id === init.id) return c;
    return this.child(init);
  }

  /** The nodes beneath this one (of `kind`). */
  childrenOf(kind?: SpendKind): SpendNode[] {
    return [...this.children].filter((c) => kind === undefined || c.kind === kind);
  }

  /** Leaves the tree (a finished fan-out whose spend the ledger keeps). */
  close(): void {
    this.parent?.children.delete(this);
  }

  /** The person touched the thread: what is spent unattended starts again. */
  touch(): void {
    this.unattended = 0;
  }

  /** What this process counted at this node (its fan-outs' included). */
  get spentUsd(): number {
    return this.spent;
  }

  /** Whether a cap is set here or above (without one, nothing is estimated). */
  get active(): boolean {
    for (const n of this.upward()) {
      const caps = n.init.caps?.() ?? {};
      if (HELD_CAPS.some((key) => caps[key] !== undefined)) return true;
    }
    return false;
  }

  /** The tightest spawn and concurrency caps from this node up (SPEC §26 fan-out). */
  fanOutLimits(): Pick<SpendCaps, 'maxSpawns' | 'maxConcurrent'> {
    const tightest = (key: 'maxSpawns' | 'maxConcurrent') => {
      const set = [...this.upward()].map((n) => n.init.caps?.()[key]).filter((v): v is number => v !== undefined);
      return set.length > 0 ? { [key]: Math.min(...set) } : {};
    };
    return { ...tightest('maxSpawns'), ...tightest('maxConcurrent') };
  }

  /**
   * Holds the worst case of a call of `promptTokens` on `model` that may answer `maxOutputTokens`
   * here and in every ancestor. Over a cap it waits, paused, until a cap is raised (or `signal`
   * stops it); with `wait: false` it throws BudgetExceededError with the paused line instead.
   */
  async hold(model: Pick<ChatModel, 'id' | 'price'>, promptTokens: number, maxOutputTokens: number, options: HoldOptions = {}): Promise<BudgetHold> {
    let paused = false;
    for (;;) {
      const worst = this.worstOf(model, promptTokens, maxOutputTokens);
      const crossed = this.crossing(model.id, worst);
      if (crossed === undefined) {
        if (paused) options.onPause?.(undefined);
        return this.take(worst);
      }
      if (!(options.wait ?? crossed.pauses ?? this.room.pauses)) throw refusal(crossed);
      const { pauses: _pauses, ...pause } = crossed;
      if (!paused) options.onPause?.(pause);
      paused = true;
      try {
        await this.room.pause(this, pause, options.signal);
      } catch (err) {
        options.onPause?.(undefined);
        throw err;
      }
    }
  }

  /** As hold, refusing at once (a caller that cannot wait). */
  holdNow(model: Pick<ChatModel, 'id' | 'price'>, promptTokens: number, maxOutputTokens: number): BudgetHold {
    const worst = this.worstOf(model, promptTokens, maxOutputTokens);
    const crossed = this.crossing(model.id, worst);
    if (crossed !== undefined) throw refusal(crossed);
    return this.take(worst);
  }

  /** Time of a provider's sandbox (SPEC §18), counted here and above as it is billed. */
  charge(usd: number): void {
    for (const n of this.upward()) {
      n.spent += usd;
      n.unattended += usd;
    }
  }

  snapshot(): SpendSnapshot {
    const before = this.init.before?.();
    const caps = this.init.caps?.() ?? {};
    return {
      kind: this.kind,
      id: this.id,
      spentUsd: (before?.usd ?? 0) + this.spent,
      heldUsd: this.held,
      capUsd: caps.maxCostUsd ?? caps.dailyUsd ?? caps.monthlyUsd ?? null,
      inputTokens: this.input,
      outputTokens: this.output,
      ...(this.pausedLine !== undefined ? { paused: this.pausedLine } : {}),
      children: [...this.children].map((c) => c.snapshot()),
    };
  }

  /** The paused line of a call waiting here, if one does. */
  get paused(): string | undefined {
    return this.pausedLine;
  }

  /** @internal the room marks a waiting node. */
  markPaused(line: string | undefined): void {
    this.pausedLine = line;
  }

  /** This node and its ancestors, up to the workspace. */
  private *upward(): Generator<SpendNode> {
    yield this;
    if (this.parent) yield* this.parent.upward();
  }

  private worstOf(model: Pick<ChatModel, 'id' | 'price'>, promptTokens: number, maxOutputTokens: number): Worst {
    if (!this.active) return { usd: 0, tokens: 0 };
    const price = modelPrice(model);
    return { usd: price === null ? null : (promptTokens * price.input + maxOutputTokens * price.output) / 1_000_000, tokens: promptTokens + maxOutputTokens };
  }

  /** The first cap the call would cross, from this node up: its paused line, and where it is raised. */
  private crossing(modelId: string, worst: Worst): (Pause & { pauses?: boolean }) | undefined {
    for (const n of this.upward()) {
      const caps = n.init.caps?.() ?? {};
      const before = n.init.before?.() ?? { usd: 0 };
      const at = (key: keyof SpendCaps, line: string) => ({ line, key, cap: caps[key]!, ...(n.init.scope !== undefined ? { scope: n.init.scope } : {}), ...(n.init.pauses !== undefined ? { pauses: n.init.pauses } : {}) });
      const dollars: Array<[keyof SpendCaps, string, number]> = [
        ['maxCostUsd', `${n.init.label} of`, before.usd + n.spent],
        ['dailyUsd', `${n.init.label}'s daily limit of`, (before.todayUsd ?? 0) + n.spent],
        ['monthlyUsd', `${n.init.label}'s monthly limit of`, (before.monthUsd ?? 0) + n.spent],
        ['unattendedUsd', `what ${n.init.label} lets be spent unattended,`, n.unattended],
      ];
      for (const [key, what, spent] of dollars) {
        const cap = caps[key];
        if (cap === undefined) continue;
        if (worst.usd === null) return { line: `paused: the price of ${modelId} is unknown, so ${what} ${usdText(cap)} cannot be kept (set its price in Settings › Prices)` };
        if (spent + n.held + worst.usd > cap) return at(key, `paused: ${what} ${usdText(cap)} is spent (${usdText(spent + n.held)} + this call's ${usdText(worst.usd)})`);
      }
      const tokens = (before.tokens ?? 0) + n.input + n.output + n.heldTokens;
      if (caps.maxTokens !== undefined && tokens + worst.tokens > caps.maxTokens) {
        return at('maxTokens', `paused: ${n.init.label} of ${caps.maxTokens.toLocaleString('en-US')} tokens is spent (${tokens.toLocaleString('en-US')} + this call's ${worst.tokens.toLocaleString('en-US')})`);
      }
    }
    return undefined;
  }

  private take(worst: Worst): BudgetHold {
    const usd = worst.usd ?? 0;
    const chain = [...this.upward()];
    for (const n of chain) {
      n.held += usd;
      n.heldTokens += worst.tokens;
    }
    let open = true;
    const settle = (usdSpent: number, usage?: Usage) => {
      if (!open) return false;
      open = false;
      for (const n of chain) {
        n.held -= usd;
        n.heldTokens -= worst.tokens;
        n.spent += usdSpent;
        n.unattended += usdSpent;
        if (usage !== undefined) {
          n.input += usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
          n.output += usage.outputTokens;
        }
      }
      return true;
    };
    return {
      spend: (usage, costUsd) => void settle(costUsd ?? 0, usage),
      release: () => void settle(0),
      keep: () => (settle(usd) ? usd : 0),
    };
  }
}

/** One process's tree: its workspace node and the calls waiting at a cap. */
export class SpendRoom {
  readonly workspace: SpendNode;
  private readonly waiting = new Map<SpendNode, Set<() => void>>();

  /** `pauses`: a call over a cap waits for it to be raised (a process that keeps its runs: the window, the host); else it is refused. */
  constructor(
    workspace: Omit<SpendNodeInit, 'kind' | 'id' | 'label'>,
    readonly pauses = false,
  ) {
    this.workspace = new SpendNode(this, { kind: 'workspace', id: 'workspace', label: 'the workspace', ...workspace });
  }

  /** A cap or a price changed: every waiting call checks again. */
  raised(): void {
    const waiting = [...this.waiting.values()].flatMap((s) => [...s]);
    this.waiting.clear();
    for (const wake of waiting) wake();
  }

  /** @internal a call at `node` waits until `raised()` (or its signal stops it). */
  async pause(node: SpendNode, pause: Pause, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    node.markPaused(pause.line);
    try {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener('abort', stop);
          resolve();
        };
        const stop = () => {
          this.waiting.get(node)?.delete(wake);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', stop, { once: true });
        let set = this.waiting.get(node);
        if (set === undefined) this.waiting.set(node, (set = new Set()));
        set.add(wake);
      });
    } finally {
      node.markPaused(undefined);
    }
  }
}

/** A call refused rather than paused: the same line, saying the run stopped. */
function refusal(pause: Pause): BudgetExceededError {
  return new BudgetExceededError(pause.line.replace(/^paused: /, 'stopped: '));
}

/** `$0.09`, `$2.00`; below a cent, to the hundredth of one. */
export function usdText(usd: number): string {
  return usd >= 0.01 || usd === 0 ? `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}` : `$${usd.toFixed(4)}`;
}

/** `$0.0123` below a dollar, `$12.34` from one up. */
export function formatUsd(usd: number): string {
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
