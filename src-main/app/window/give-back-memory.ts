// A folder's start-up work in the agent host (the watcher's walk of its folders, then the
// first checkpoint snapshot of every file) leaves its garbage in pages V8 keeps for the next
// burst: on a 100,000-file folder the host held ~20 MB more than it used until V8's own
// memory reducer ran, seconds to minutes later (issue 66). Once that work is done, one
// collection that reduces memory gives those pages back. It frees only what nothing refers to.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** After the last of a burst of start-ups (several windows opening), this long. */
const QUIET_MS = 500;

let collect: Collect | undefined;
let timer: NodeJS.Timeout | undefined;

/** Gives back the memory of start-up work just done, once no other start-up follows within QUIET_MS. */
export function giveBackMemorySoon(): void {
  clearTimeout(timer);
  timer = setTimeout(giveBackMemory, QUIET_MS);
  timer.unref();
}

/** One collection that reduces memory, now (tests; the app calls giveBackMemorySoon). */
export function giveBackMemory(): void {
  if (collect === undefined) {
    // V8's collector, as --expose-gc gives it, taken from a context made while the flag is on
    // (then off again: no other context gets a `gc`).
    setFlagsFromString('--expose-gc');
    try {
      collect = runInNewContext('gc') as Collect;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
