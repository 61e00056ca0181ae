// Which reviewer a thread's run has (SPEC §23): `--reviewer` (the run's, else the session's) over
// Settings' *Review with a model* (the folder's own entry over the global one); `thread` or an
// empty model is the run's own. Its model is made without retries of its own (the reviewer
// retries once, when transient), anew for each review: it follows Settings' base URL and key.

import type { ReviewSetup } from '../../core/agent/review/answerer';
import type { ChatModel } from '../../core/models/types';
import type { Settings } from '../contract';
import { reviewerFor } from '../settings/settings-service';
import type { SessionModels } from './session-models';

export function runReviewer(models: Pick<SessionModels, 'named'>, settings: () => Pick<Settings, 'reviewer'>, sessionFlag: string | undefined, folder: string): (model: ChatModel, flag: string | undefined) => ReviewSetup | undefined {
  return (model, flag) => {
    const saved = reviewerFor(settings().reviewer, folder);
    const choice = (flag ?? sessionFlag ?? saved?.model)?.trim();
    if (choice === undefined || choice === 'off') return undefined;
    const spec = choice === '' || choice === 'thread' ? model.id : choice;
    // Made at each review from Settings as they are then (a base URL or key changed since is followed).
    const make = (): Promise<ChatModel> => models.named(spec, { retry: { maxRetries: 0 } });
    return { model: make, ...(saved?.timeoutSeconds !== undefined ? { timeoutSeconds: saved.timeoutSeconds } : {}) };
  };
}
