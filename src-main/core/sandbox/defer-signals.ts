// A short critical section that an interrupt cannot cut in two. While `fn` runs, SIGINT,
// SIGTERM and SIGHUP have a listener, so their default action (ending the process at once)
// does not happen; Node delivers them on the event loop, after the synchronous `fn` has
// returned. Once delivered, a signal that nothing else listens to is raised again, so the
// process still ends as it would have, only with `fn` done whole.

const DEFERRED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Tests: called inside the section (after `fn`), to send a signal as if from outside. */
let insideHook: (() => void) | null = null;

export function setInsideDeferredHookForTests(hook: (() => void) | null): void {
  insideHook = hook;
}

/** Sections not yet released; one listener per signal serves them all (many at once would each add one). */
let open = 0;
const caught = new Set<NodeJS.Signals>();
const keep = (signal: NodeJS.Signals): void => void caught.add(signal);

export function withSignalsDeferred<T>(fn: () => T): T {
  if (open++ === 0) for (const signal of DEFERRED) process.on(signal, keep);
  try {
    const result = fn();
    insideHook?.();
    return result;
  } finally {
    // A signal that arrived meanwhile waits in libuv's pipe, read in a poll phase: after two
    // check phases (setImmediate) a whole poll phase has passed since `fn` returned. With
    // sections overlapping, it is raised again once the last of them is released.
    const release = (): void => {
      if (--open > 0) return;
      for (const signal of DEFERRED) process.off(signal, keep);
      const raise = [...caught];
      caught.clear();
      for (const signal of raise) if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    setImmediate(() => setImmediate(release));
  }
}
