// A Settings section that changes a list through the main process (MCP servers, mounts):
// each change answers with the new list, which replaces the shown one; a refused change
// keeps the form as typed and says why, as a sentence.

import { useState } from 'react';
import { capitalized } from '../lib/format';
import { errorMessage } from './toasts';

export interface ListChange<T> {
  error: string | null;
  setError(error: string | null): void;
  /** Runs the change; true when it was made (the form may be cleared). */
  run(work: () => Promise<T>): Promise<boolean>;
}

export function useListChange<T>(set: (list: T) => void): ListChange<T> {
  const [error, setError] = useState<string | null>(null);
  const run = async (work: () => Promise<T>): Promise<boolean> => {
    setError(null);
    try {
      set(await work());
      return true;
    } catch (err) {
      setError(`${capitalized(errorMessage(err))}.`);
      return false;
    }
  };
  return { error, setError, run };
}
