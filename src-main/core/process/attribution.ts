// Which changes are a step's own (SPEC §8, Robustness 3): a change belongs to the agent's
// step only if the step's own processes made it. A sandboxed command that runs on a write
// layer (sandbox/write-layer.ts) changes the folder only when its layer is applied, and the
// recorder applies it between two snapshots of just the layer's paths: what differs before
// is someone else's, what the layer changed is the step's. A command whose writes cannot be
// observed says so (`blind`) before it starts, and its step is then recorded by comparing
// walks of the whole folder, its changes marked unattributed. The recorder hands each step
// its attribution as an argument; the tool call passes it on, explicitly, to whatever runs the
// command and applies its checked layer (ExecuteOptions.attribution, sandbox/apply-checked-layer.ts),
// whether the command ran here, over SSH or in a provider's sandbox.

/** What applying a layer changes: these paths, and everything below the subtrees (removed, or folders made anew). */
export interface LayerSettlement {
  touched: readonly string[];
  subtrees: readonly string[];
}

export interface StepAttribution {
  /** The step's command runs on a write layer: its changes reach the folder only through `settle`. */
  expectLayer(): void;
  /**
   * The step is about to start a process whose writes cannot be observed (a command outside
   * the sandbox, or in one without a write layer): resolves once the folder's state before
   * it is recorded. Its changes cannot be told from anyone else's.
   */
  blind(): Promise<void>;
  /**
   * Applies a layer whose changes are `planned`, between the recorder's snapshots of those
   * paths (serialised with every other snapshot of the folder).
   */
  settle<T extends LayerSettlement>(planned: LayerSettlement, apply: () => Promise<T>): Promise<T>;
}
