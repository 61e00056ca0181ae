import type { Acquired } from './system-tools';

/** Silent when the tool was already there; one line when it was obtained or is missing. */
export function announce(tool: string, acquired: Acquired): void {
  if (acquired.ok && acquired.how === 'found') return;
  process.stderr.write(acquired.ok ? `test set-up: ${tool} ${acquired.how}: ${acquired.path}\n` : `test set-up: ${acquired.line}\n`);
}
