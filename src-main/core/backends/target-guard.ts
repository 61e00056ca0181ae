// A check the agent's approval layer hands to the backend for the duration of one tool
// call: when the file a call reaches through a symlink is not the one that was checked
// (a link created or swapped after approval), the backend asks the guard again before
// touching it. Outside a guarded call (the person's own tools session, the window's file
// browser) nothing is checked here.

import { AsyncLocalStorage } from 'node:async_hooks';

export type GuardedOperation = 'read' | 'write' | 'edit' | 'delete';

export interface TargetGuard {
  /** Null when `named` may reach `resolved` (both virtual); else an error text for the agent. */
  check(operation: GuardedOperation, named: string, resolved: string): string | null;
}

const storage = new AsyncLocalStorage<TargetGuard>();

export function withTargetGuard<T>(guard: TargetGuard, fn: () => Promise<T>): Promise<T> {
  return storage.run(guard, fn);
}

export function currentTargetGuard(): TargetGuard | undefined {
  return storage.getStore();
}
