// The Usage view's budget tree (SPEC §26): the workspace, its folders, their threads and each
// thread's fan-outs, with what each spent, what calls under way hold, its cap and a run paused
// at one — `deepdesk budget show`, in the window.

import { useCallback, useEffect, useState } from 'react';
import type { BudgetTreeNode } from '../../../src-main/app/contract/usage';
import { formatCost } from '../lib/format';
import { useApi } from '../state/use-api';

function nodeName(node: BudgetTreeNode): string {
  if (node.kind === 'workspace') return 'Workspace';
  if (node.kind === 'folder') return node.path || 'No folder';
  if (node.kind === 'thread') return node.label || `Thread ${node.id?.slice(0, 8) ?? ''}`;
  return node.id ?? 'Fan-out';
}

function nodeFacts(node: BudgetTreeNode): string {
  const usd = (n: number) => formatCost(n) ?? '$0.00';
  return [`spent ${usd(node.spentUsd)}`, ...(node.heldUsd > 0 ? [`${usd(node.heldUsd)} held`] : []), ...(node.capUsd !== null ? [`cap ${usd(node.capUsd)}`] : [])].join(' · ');
}

function Node({ node }: { node: BudgetTreeNode }): React.JSX.Element {
  return (
    <li>
      <span className="budget-node-name">{nodeName(node)}</span> <span className="muted small">{nodeFacts(node)}</span>
      {node.paused !== undefined ? <span className="budget-node-paused small"> {node.paused}</span> : null}
      {node.children.length > 0 ? (
        <ul>
          {node.children.map((c) => (
            <Node key={`${c.kind}:${c.id ?? c.path ?? ''}`} node={c} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** Read again whenever `version` changes (the view's report was read again). */
export function UsageBudgetTree({ version }: { version: unknown }): React.JSX.Element | null {
  const api = useApi();
  const [tree, setTree] = useState<BudgetTreeNode | null>(null);
  const load = useCallback(async () => {
    try {
      setTree(await api.call('usage.budgetTree', {}));
    } catch {
      setTree(null);
    }
  }, [api]);
  useEffect(() => {
    void load();
  }, [load, version]);
  if (tree === null || tree.children.length === 0) return null;
  return (
    <section className="usage-budget-tree" aria-label="Budget tree">
      <h2 className="usage-subheading">Budgets</h2>
      <ul className="budget-tree">
        <Node node={tree} />
      </ul>
    </section>
  );
}
