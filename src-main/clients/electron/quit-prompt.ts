// Quitting with threads still working asks (SPEC §16): stop them and quit, or keep them
// running in the background — the windows close, the process stays until the last run ends
// (a second launch opens a window on it again), then quits by itself.

import type { MessageBoxOptions } from 'electron';

export const STOP_RUNS_AND_QUIT = 'Stop runs and quit';
export const KEEP_RUNNING = 'Keep running in the background';

export type QuitChoice = 'quit' | 'background';

/** The question, as the dialog shows it (Escape keeps the runs: nothing is lost by it). */
export function quitQuestion(): MessageBoxOptions {
  return {
    type: 'question',
    buttons: [STOP_RUNS_AND_QUIT, KEEP_RUNNING],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
    message: 'Threads are still working',
    detail: 'Stop them and quit, or keep them running without a window: Deepdesk quits by itself once they finish, and opening it again shows them.',
  };
}

export function quitChoice(response: number): QuitChoice {
  return response === 0 ? 'quit' : 'background';
}
