// A path's Person before the suite's environment exists: set in setUp, used by the cases after.
import type { Person } from '../types';

export interface DeferredPerson extends Person {
  set(person: Person): void;
}

export function deferredPerson(): DeferredPerson {
  let current: Person | undefined;
  return {
    set(person) {
      current = person;
    },
    sh(script, cwd) {
      if (!current) throw new Error('the path was not set up: no person yet');
      return current.sh(script, cwd);
    },
  };
}

/** The script with `ready` defined as the path needs it (a no-op where a run's end is its signal). */
export function withReady(script: string, readyBody = ':'): string {
  return `ready() { ${readyBody}; }\n${script}`;
}
