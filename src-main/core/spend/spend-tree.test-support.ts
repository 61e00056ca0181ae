// A budget for tests of one run: a node with a dollar cap (and what was spent before), in a room
// of its own that refuses rather than pauses (nobody raises a cap in these tests).
import { SpendRoom, type SpendCaps, type SpendNode } from './spend-tree';

export function budgetOf(caps: SpendCaps, spentBefore = 0, label = "this run's budget"): SpendNode {
  return new SpendRoom({}).workspace.child({ kind: 'thread', id: 'thread-1', label, caps: () => caps, before: () => ({ usd: spentBefore }) });
}
