// The one step that brings a command's write layer into the folder (SPEC §7, §8, §18): the
// layer is checked whole (layer-check.ts: git's surface, protected paths, file kinds), then what
// passed is applied (write-layer.ts applyLayer) between the checkpoint recorder's snapshots of
// just those paths, so the change is recorded as the step's own. The step's attribution is an
// argument, never found in the async context: a local sandboxed command hands on the one its
// tool call was given, and so does a provider sandbox's bring-back (app/sandboxes/bring-back.ts),
// so a command in Daytona is recorded exactly as one on this machine. Sensitive writes that
// passed are reviewed before anything is applied, when the run has a reviewer (layer-review.ts).

import type { StepAttribution } from '../process/attribution';
import { checkLayer, type LayerCheckOptions, type LayerVerdict } from './layer-check';
import { reviewedVerdict } from './layer-review';
import type { ReviewLayer } from './types';
import { applyLayer, plannedBy, type AppliedLayer, type LayerEntry, type Spare, type WriteLayer } from './write-layer';

export interface ApplyCheckedLayerOptions extends LayerCheckOptions {
  /** The checkpoint step the change belongs to; undefined when no step is recorded (the change is then applied unrecorded). */
  attribution: StepAttribution | undefined;
  /** Entries of the folder that changed after the command started are someone else's: left as they are (applyLayer). */
  spare?: Spare;
  /** Reviews what passed the checks before it is applied (SPEC §23 (5)). */
  review?: ReviewLayer;
}

/** Why a layer was not applied at all: its check (`check`) or its staging (`apply`) could not be made. */
export class LayerNotApplied extends Error {
  constructor(
    readonly stage: 'check' | 'apply',
    override readonly cause: unknown,
    /** The check's verdict, when it was made (stage `apply`). */
    readonly verdict?: LayerVerdict,
  ) {
    super(`the layer could not be ${stage === 'check' ? 'checked' : 'applied'}`);
  }
}

/**
 * Checks `entries` of `layer` and applies what passed, whole or not at all, as the step of
 * `attribution`. `entries` may be read lazily (readLayer): a failure to read them is one to
 * check. Throws LayerNotApplied when nothing could be applied (the caller says why).
 */
export async function applyCheckedLayer(
  layer: WriteLayer,
  entries: readonly LayerEntry[] | (() => Promise<readonly LayerEntry[]>),
  options: ApplyCheckedLayerOptions,
): Promise<{ verdict: LayerVerdict; applied: AppliedLayer }> {
  let verdict: LayerVerdict;
  try {
    verdict = await checkLayer(layer, typeof entries === 'function' ? await entries() : entries, { home: options.home, protectedPaths: options.protectedPaths, ...(options.cache ? { cache: options.cache } : {}) });
    if (options.review) verdict = await reviewedVerdict(layer, verdict, options.review);
  } catch (err) {
    throw new LayerNotApplied('check', err);
  }
  const apply = async (): Promise<AppliedLayer> => {
    try {
      return applyLayer(layer, verdict.apply, options.spare);
    } catch (err) {
      // Only what comes before staging throws (the disk's size could not be read): nothing was applied.
      throw new LayerNotApplied('apply', err, verdict);
    }
  };
  const applied = options.attribution ? await options.attribution.settle(plannedBy(verdict.apply), apply) : await apply();
  return { verdict, applied };
}
