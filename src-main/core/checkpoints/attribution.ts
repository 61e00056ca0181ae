// Which changes are a step's own (SPEC §8, Robustness 3): a change belongs to the agent's
// step only if the step's own processes made it. A sandboxed command that runs on a write
// layer (sandbox/write-layer.ts) changes the folder only when its layer is applied, and the
// recorder applies it between two snapshots of its own: what changed before is someone
// else's, what the layer changed is the step's. The recorder hands each step an attribution
// through the async context, so the sandbox deep inside the tool call finds it without any
// layer in between knowing.

import { AsyncLocalStorage } from 'node:async_hooks';

/** What applying a layer changed: these paths, and everything below the subtrees. */
export interface LayerSettlement {
  touched: readonly string[];
  subtrees: readonly string[];
}

export interface StepAttribution {
  /** The step's command runs on a write layer: its changes reach the folder only through `settle`. */
  expectLayer(): void;
  /**
   * The step runs a process whose writes cannot be observed (a command outside the sandbox,
   * or in a sandbox without a write layer): its changes cannot be told from anyone else's.
   */
  blind(): void;
  /**
   * Applies the layer between the recorder's snapshots (serialised with every other snapshot
   * of the folder). `apply` is told which paths someone else added while the step ran: the
   * command never saw them, so a removal of the layer leaves them alone.
   */
  settle<T extends LayerSettlement>(apply: (addedMeanwhile: ReadonlySet<string>) => Promise<T>): Promise<T>;
}

const current = new AsyncLocalStorage<StepAttribution>();

export function runAttributed<T>(attribution: StepAttribution, fn: () => Promise<T>): Promise<T> {
  return current.run(attribution, fn);
}

/** The attribution of the step running in this async context, if any. */
export function currentAttribution(): StepAttribution | undefined {
  return current.getStore();
}

/** Whether a path is one a layer changed, below a subtree it removed or made anew, or a folder holding one. */
export function layerMatcher(settled: LayerSettlement): (rel: string) => boolean {
  const touched = new Set(settled.touched);
  const subtrees = new Set(settled.subtrees);
  const holders = new Set<string>();
  for (const t of settled.touched) for (let i = t.indexOf('/'); i !== -1; i = t.indexOf('/', i + 1)) holders.add(t.slice(0, i));
  return (rel) => {
    if (touched.has(rel) || holders.has(rel)) return true;
    for (let i = rel.lastIndexOf('/'); i !== -1; i = rel.lastIndexOf('/', i - 1)) if (subtrees.has(rel.slice(0, i))) return true;
    return false;
  };
}
