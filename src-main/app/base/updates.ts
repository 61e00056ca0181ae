// What the app needs from whoever updates it: the desktop shell (host/electron/updates.ts)
// provides one; everything else (`deepdesk serve`) answers that updates do not apply.

import { answerWithin, LATER } from './answer-within';
import { ContractError, type UpdateStatus } from '../contract';

export interface UpdateService {
  status(): UpdateStatus;
  check(): Promise<UpdateStatus>;
  /** Quits and installs a downloaded update; throws when there is none. */
  install(): void;
  onChange(listener: (status: UpdateStatus) => void): () => void;
}

/** The served window: the page shows whatever copy of Deepdesk serves it. */
export function notApplicableUpdates(currentVersion: string): UpdateService {
  const status: UpdateStatus = {
    currentVersion,
    state: 'not-applicable',
    canCheck: false,
    message: 'Updates apply to the desktop app; this window is served by `deepdesk serve`, which runs the copy of Deepdesk you installed.',
  };
  return {
    status: () => status,
    check: async () => status,
    install: () => {
      throw new Error('there is no update to install here');
    },
    onChange: () => () => undefined,
  };
}

/** The window's `updates.*` requests, answered by an update service (the window's folders', the desktop app's own). */
export function updateMethods(updates: UpdateService) {
  return {
    'updates.status': async () => updates.status(),
    // A check on a slow network answers with `checking`; its result follows as updates.changed.
    'updates.check': async () => {
      const checked = await answerWithin(updates.check());
      return checked === LATER ? updates.status() : checked;
    },
    'updates.install': async () => {
      if (updates.status().state !== 'downloaded') throw new ContractError('no update has been downloaded yet', 'failed');
      updates.install();
      return { ok: true as const };
    },
  };
}
