// A renderer that dies (crash, out of memory, killed) is reloaded with a notice; one that keeps
// dying, or whose preload failed, gets a static page that says why instead of a blank window.

import type { WebContents } from 'electron';
import { errorPageUrl } from './error-page';

/** More crashes than this within CRASH_WINDOW_MS is a crash loop: no more reloads. */
export const MAX_RELOADS = 2;
export const CRASH_WINDOW_MS = 60_000;

export interface CrashRecoveryOptions {
  /** Tells the person (a notice the reloaded window shows). */
  notify(message: string): void;
  now?: () => number;
}

const ADVICE = 'Your threads and settings are kept. Quit Deepdesk and start it again; if this keeps happening, run `deepdesk serve` to use the window in a browser and report the problem.';

export function watchRendererCrashes(contents: WebContents, options: CrashRecoveryOptions): void {
  const now = options.now ?? Date.now;
  let crashes: number[] = [];
  let stopped = false;

  contents.on('render-process-gone', (_event, details) => {
    if (details.reason === 'clean-exit' || stopped || contents.isDestroyed()) return;
    const at = now();
    crashes = [...crashes.filter((t) => at - t < CRASH_WINDOW_MS), at];
    const what = `the window's page stopped (${details.reason}, exit code ${details.exitCode})`;
    console.error(`deepdesk: ${what}`);
    if (crashes.length > MAX_RELOADS) {
      stopped = true;
      void contents.loadURL(errorPageUrl('Deepdesk stopped showing its window', `${capitalise(what)} ${crashes.length} times within a minute, so it was not reloaded again.`, ADVICE));
      return;
    }
    options.notify(`${capitalise(what)} at ${new Date(at).toLocaleTimeString('en-GB')} and was reloaded.`);
    contents.reload();
  });

  contents.on('preload-error', (_event, path, error) => {
    stopped = true;
    console.error(`deepdesk: the preload ${path} failed: ${error.message}`);
    void contents.loadURL(
      errorPageUrl('Deepdesk could not connect its window', `The window's bridge to the app (its preload script) failed to load: ${error.message}.`, ADVICE),
    );
  });
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
