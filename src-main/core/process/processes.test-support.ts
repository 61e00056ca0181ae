// For tests of commands run in a pty: which processes are alive, and a person typing into a
// command once it has shown something.

import { readdirSync, readFileSync } from 'node:fs';
import type { LiveCommand } from '../backends/protocol';
import type { RunInPtyOptions } from './pty-exec';

/** The live (not zombie) processes whose command line, arguments NUL-separated, holds `text`. */
export function processesWith(text: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text) && !/^Z/.test(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1] ?? '');
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * A live view that types `keys` into the command once its output shows `shown`, once; what it
 * showed so far is `view.shown`.
 */
export function typeWhenShown(shown: string, keys: string): Pick<RunInPtyOptions, 'attach' | 'onData'> & { view: { shown: string } } {
  let live: LiveCommand | undefined;
  let typed = false;
  const view = { shown: '' };
  return {
    view,
    attach: (l) => (live = l),
    onData: (chunk) => {
      view.shown += chunk;
      if (!typed && view.shown.includes(shown)) {
        typed = true;
        live?.write(keys);
      }
    },
  };
}
