// Where every budget is built (SPEC §26): one tree a process — the workspace (Settings' daily
// and monthly limits), each folder, each thread (Settings' per-thread budget, a thread's own
// node, a run's `--max-cost`), and beneath a thread its fan-outs (subagents: core/agent's
// run-options; a candidate set; another agent's turn). Each node's caps are read from the
// settings at every check, so a cap raised (Settings, the window's notice, `deepdesk budget
// set`) applies at once, and the room is told so that a call paused at a cap goes on. What a
// node spent before this process began counting is the ledger's.

import type Database from 'better-sqlite3';
import { SpendRoom, type SpendCaps, type SpendNode, type SpendSnapshot } from '../../core/spend/spend-tree';
import { ledgerReader, type LedgerReader } from '../../core/telemetry/usage-ledger';
import type { Settings } from '../contract';
import { budgetsWith, type BudgetNode, type BudgetScope } from '../contract/budgets';
import type { SecretStore } from '../base/secret-store';
import { SettingsService } from '../settings/settings-service';
import type { BudgetTreeNode } from '../contract/usage';
import type { ThreadStore } from '../threads/thread-store';
import { ledgerPrices } from './usage-report';

export type BudgetSettings = Pick<Settings, 'threadBudgetUsd' | 'budgets' | 'prices' | 'sandboxes'>;
type NodeCaps = NonNullable<NonNullable<Settings['budgets']>['thread']>;

type BudgetSetRef = NonNullable<BudgetScope['set']>;

/** What a run's calls hold under besides its thread's node, as a request carries it (contract/budgets.ts). */
export interface RunBudgetScope {
  run?: BudgetScope['run'] | undefined;
  set?: BudgetSetRef | undefined;
}

const TREES = new WeakMap<Database.Database, BudgetTree>();

/** The person touched `threadId` (attached to it): the process's tree over `db`, if it has one, is told. */
export function touchedThread(db: Database.Database, threadId: string): void {
  TREES.get(db)?.touched(threadId);
}

/** A thread's own caps set in settings.json (`run --thread ID --max-cost` of a paused thread): true when any was given. */
export async function raiseThreadCaps(dataDir: string, secrets: SecretStore, threadId: string, caps: BudgetNode): Promise<boolean> {
  const given = Object.entries(caps).filter(([, value]) => value !== undefined);
  if (given.length === 0) return false;
  const settings = new SettingsService(dataDir, secrets);
  try {
    let budgets = settings.raw().budgets;
    for (const [key, value] of given) budgets = budgetsWith(budgets, `thread:${threadId}`, key, value);
    await settings.update({ budgets });
  } finally {
    settings.close();
  }
  return true;
}

/** The process's one tree over the data folder's database (every folder session of the process shares it). */
export function budgetTreeOf(db: Database.Database, settings: () => BudgetSettings): BudgetTree {
  let tree = TREES.get(db);
  if (tree === undefined) TREES.set(db, (tree = new BudgetTree(db, settings)));
  return tree;
}

/** A node's caps as settings.json gives them (the keys it leaves out, left out). */
const dollarCaps = (caps: NodeCaps | undefined): SpendCaps => Object.fromEntries(Object.entries(caps ?? {}).filter(([, v]) => v !== undefined));

export class BudgetTree {
  readonly room: SpendRoom;
  private readonly ledger: LedgerReader;
  /** The ledger's day and month when first asked, less what this process had counted by then. */
  private period: { day: string; todayUsd: number; monthUsd: number } | undefined;

  constructor(
    db: Database.Database,
    private readonly settings: () => BudgetSettings,
  ) {
    this.ledger = ledgerReader(db, ...ledgerPrices(settings));
    this.room = new SpendRoom({
      caps: () => {
        const b = this.settings().budgets;
        return { ...(b?.dailyUsd !== undefined ? { dailyUsd: b.dailyUsd } : {}), ...(b?.monthlyUsd !== undefined ? { monthlyUsd: b.monthlyUsd } : {}) };
      },
      before: () => this.periodBefore(),
      scope: 'workspace',
    }, true);
  }

  /** Caps or prices changed: calls paused at a cap check again. */
  settingsChanged(): void {
    this.room.raised();
  }

  folder(path: string): SpendNode {
    return this.room.workspace.childFor({ kind: 'folder', id: path, label: "the folder's budget", scope: `folder:${path}`, caps: () => dollarCaps(this.settings().budgets?.folders?.[path]) });
  }

  /** A thread's node (one a process), beneath its folder or its candidates' set. */
  thread(threadId: string, folder: string, set?: BudgetSetRef): SpendNode {
    const under = set !== undefined ? this.set(set, folder) : this.folder(folder);
    for (const node of this.threadNodes()) if (node.id === threadId) return node;
    // What the ledger has of the thread (priced now: a price set later counts its calls) less what this node counted itself.
    const node: SpendNode = under.child({
      kind: 'thread',
      id: threadId,
      label: "the thread's budget",
      scope: `thread:${threadId}`,
      caps: () => {
        const b = this.settings().budgets;
        const own = { ...b?.thread, ...b?.threads?.[threadId] };
        return dollarCaps({ ...own, ...(own.maxCostUsd === undefined && this.settings().threadBudgetUsd !== undefined ? { maxCostUsd: this.settings().threadBudgetUsd } : {}) });
      },
      before: () => ({ usd: Math.max(0, (this.ledger.threadCost(threadId) ?? 0) - node.spentUsd) }),
    });
    return node;
  }

  /** Where a run's calls hold: its thread's node, or beneath it the run's own `--max-cost` (made afresh for each run). */
  run(threadId: string, folder: string, scope: RunBudgetScope = {}): SpendNode {
    const thread = this.thread(threadId, folder, scope.set);
    const own = dollarCaps(scope.run);
    if (Object.keys(own).length === 0) return thread;
    for (const old of thread.childrenOf('fanout')) if (old.id === 'this run') old.close();
    // The thread's own cap raised past it (`budget set thread:ID`, the window's notice) lifts it too: that is how a paused run is raised.
    const raised = () => this.settings().budgets?.threads?.[threadId]?.maxCostUsd ?? 0;
    const caps = () => (own.maxCostUsd !== undefined ? { ...own, maxCostUsd: Math.max(own.maxCostUsd, raised()) } : own);
    return thread.child({ kind: 'fanout', id: 'this run', label: "this run's budget", scope: `thread:${threadId}`, caps });
  }

  /** Another agent's turns in a thread (SPEC §22): its calls through the metering proxy hold here. */
  agent(run: SpendNode, agentName: string): SpendNode {
    return run.childFor({ kind: 'fanout', id: `agent ${agentName}`, label: `${agentName}'s budget` });
  }

  /** Time of a provider's sandbox, counted at its thread (else its folder) as the ledger writes it. */
  sandboxTime(threadId: string | null, folder: string, usd: number | null): void {
    if (usd === null || !(usd > 0)) return;
    const node = threadId !== null ? this.threadNodes().find((n) => n.id === threadId) : undefined;
    (node ?? this.folder(folder)).charge(usd);
  }

  /** The person touched the thread (sent, answered, opened, changed its settings): what is spent unattended starts again. */
  touched(threadId: string): void {
    const node = this.threadNodes().find((n) => n.id === threadId);
    if (node === undefined) return;
    node.touch();
    // A call paused at the unattended cap may go on now.
    this.room.raised();
  }

  /** The live tree: each node's holds and paused line, by kind and id. */
  live(): SpendSnapshot {
    return this.room.workspace.snapshot();
  }

  private set(set: BudgetSetRef, folder: string): SpendNode {
    const caps = dollarCaps(set.caps);
    return this.folder(folder).childFor({ kind: 'fanout', id: `candidates ${set.id}`, label: "the candidates' set's budget",
      // A candidate at the set's cap ends `budget-limited` (its worktree and thread kept) so that the set is ranked.
      pauses: false,
      caps: () => caps });
  }

  private threadNodes(): SpendNode[] {
    const found: SpendNode[] = [];
    const walk = (n: SpendNode) => {
      for (const c of n.childrenOf()) {
        if (c.kind === 'thread') found.push(c);
        else walk(c);
      }
    };
    walk(this.room.workspace);
    return found;
  }

  /** Today's and this month's spend before what this process counted (read again when the day turns). */
  private periodBefore(): { usd: number; todayUsd: number; monthUsd: number } {
    const day = new Date().toISOString().slice(0, 10);
    if (this.period?.day !== day) {
      const counted = this.room.workspace.spentUsd;
      const since = (from: string) => this.ledger.report({ by: 'day', since: from }).total.costUsd ?? 0;
      this.period = { day, todayUsd: since(day) - counted, monthUsd: since(`${day.slice(0, 7)}-01`) - counted };
    }
    return { usd: 0, todayUsd: this.period.todayUsd, monthUsd: this.period.monthUsd };
  }
}

/**
 * The tree as `deepdesk budget show` and the Usage view show it: from the ledger (every thread's
 * spend, its subagents' and other agents' as fan-outs, its sandbox time), grouped by folder,
 * with the caps of the settings, and — in a process that runs threads — what calls hold now and
 * where a call is paused.
 */
export function budgetReport(
  ledger: LedgerReader,
  threads: Pick<ThreadStore, 'get'>,
  settings: BudgetSettings,
  options: { live?: SpendSnapshot; paused?: (threadId: string) => string | undefined; folder?: string } = {},
): BudgetTreeNode {
  const { live, folder } = options;
  const b = settings.budgets;
  const liveNodes = new Map<string, SpendSnapshot>();
  const index = (n: SpendSnapshot) => {
    liveNodes.set(`${n.kind}\n${n.id}`, n);
    n.children.forEach(index);
  };
  if (live) index(live);
  const held = (kind: string, id: string) => {
    const n = liveNodes.get(`${kind}\n${id}`);
    const paused = n?.paused ?? (kind === 'thread' ? options.paused?.(id) : undefined);
    return { heldUsd: n?.heldUsd ?? 0, ...(paused !== undefined ? { paused } : {}) };
  };
  const sandbox = new Map(ledger.sandboxUsage({ by: 'thread' }).rows.map((r) => [r.key, r]));
  const byFolder = new Map<string, BudgetTreeNode[]>();
  for (const row of ledger.report({ by: 'thread' }).rows) {
    const thread = threads.get(row.key);
    const path = thread?.folder ?? '';
    if (folder !== undefined && path !== folder) continue;
    const fanouts = new Map<string, BudgetTreeNode>();
    for (const call of ledger.calls(row.key)) {
      const name = call.subagent !== null ? `task ${call.subagent}` : call.purpose === 'other-agent' ? `agent ${call.provider}` : undefined;
      if (name === undefined) continue;
      const f = fanouts.get(name) ?? { kind: 'fanout', id: name, spentUsd: 0, capUsd: null, inputTokens: 0, outputTokens: 0, ...held('fanout', name), children: [] };
      f.spentUsd += call.costUsd ?? 0;
      f.inputTokens += call.inputTokens + call.cacheReadTokens + call.cacheWriteTokens;
      f.outputTokens += call.outputTokens;
      fanouts.set(name, f);
    }
    const caps = { ...b?.thread, ...b?.threads?.[row.key] };
    const node: BudgetTreeNode = {
      kind: 'thread',
      id: row.key,
      ...(thread?.title ? { label: thread.title } : {}),
      spentUsd: (row.costUsd ?? 0) + (sandbox.get(row.key)?.costUsd ?? 0),
      ...held('thread', row.key),
      capUsd: caps.maxCostUsd ?? settings.threadBudgetUsd ?? null,
      inputTokens: row.inputTokens + row.cacheReadTokens + row.cacheWriteTokens,
      outputTokens: row.outputTokens,
      children: [...fanouts.values()],
    };
    byFolder.set(path, [...(byFolder.get(path) ?? []), node]);
  }
  const sum = (nodes: BudgetTreeNode[], key: 'spentUsd' | 'heldUsd' | 'inputTokens' | 'outputTokens') => nodes.reduce((s, n) => s + n[key], 0);
  const folders: BudgetTreeNode[] = [...byFolder].map(([path, children]) => ({
    kind: 'folder',
    path,
    spentUsd: sum(children, 'spentUsd'),
    heldUsd: sum(children, 'heldUsd'),
    capUsd: b?.folders?.[path]?.maxCostUsd ?? null,
    inputTokens: sum(children, 'inputTokens'),
    outputTokens: sum(children, 'outputTokens'),
    children,
  }));
  return {
    kind: 'workspace',
    id: 'workspace',
    spentUsd: sum(folders, 'spentUsd'),
    ...held('workspace', 'workspace'),
    capUsd: b?.dailyUsd ?? b?.monthlyUsd ?? null,
    inputTokens: sum(folders, 'inputTokens'),
    outputTokens: sum(folders, 'outputTokens'),
    children: folders,
  };
}
