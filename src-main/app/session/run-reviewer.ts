// Which reviewer a thread's run has (SPEC §23): `--reviewer` (the run's, else the session's) over
// Settings' *Review with a model* (the folder's own entry over the global one); `thread` or an
// empty model is the run's own. Its model is made without retries of its own (the reviewer
// retries once, when transient) and kept for the next call.

import type { ReviewSetup } from '../../core/agent/review/answerer';
import type { ChatModel } from '../../core/models/types';
import type { Settings } from '../contract';
import { reviewerFor } from '../settings/settings-service';
import type { SessionModels } from './session-models';

export function runReviewer(models: Pick<SessionModels, 'named'>, settings: () => Pick<Settings, 'reviewer'>, sessionFlag: string | undefined, folder: string): (model: ChatModel, flag: string | undefined) => ReviewSetup | undefined {
  const made = new Map<string, Promise<ChatModel>>();
  return (model, flag) => {
    const saved = reviewerFor(settings().reviewer, folder);
    const choice = (flag ?? sessionFlag ?? saved?.model)?.trim();
    if (choice === undefined || choice === 'off') return undefined;
    const spec = choice === '' || choice === 'thread' ? model.id : choice;
    const make = (): Promise<ChatModel> => {
      let kept = made.get(spec);
      if (kept === undefined) {
        kept = models.named(spec, { retry: { maxRetries: 0 } });
        // A model that could not be made is tried again at the next review.
        kept.catch(() => made.delete(spec));
        made.set(spec, kept);
      }
      return kept;
    };
    return { model: make, ...(saved?.timeoutSeconds !== undefined ? { timeoutSeconds: saved.timeoutSeconds } : {}) };
  };
}
