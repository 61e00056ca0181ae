// One watcher for the person's own configuration (every kind's userPaths, and the files given
// on the command line): a change anywhere calls back once, a moment later (changes come in
// bursts: an editor's save, `deepdesk mcp add` in another terminal). A place that cannot be
// watched (not there yet, no permission) is simply read again at the next reload.

import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

const DEBOUNCE_MS = 150;

export function watchPersonConfiguration(paths: readonly string[], onChange: () => void): { close(): void } {
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | null = null;
  const changed = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      onChange();
    }, DEBOUNCE_MS);
  };
  // Each place is watched through its parent folder, so a file or folder made later is seen too.
  const byParent = new Map<string, Set<string>>();
  for (const path of paths) {
    const names = byParent.get(dirname(path)) ?? new Set<string>();
    names.add(basename(path));
    byParent.set(dirname(path), names);
  }
  const add = (dir: string, accept: (name: string | null) => boolean): void => {
    try {
      const watcher = watch(dir, (_event, name) => {
        if (accept(name === null ? null : String(name))) changed();
      });
      watcher.on('error', () => undefined);
      watchers.push(watcher);
    } catch {
      // Not watchable now: read again at the next reload.
    }
  };
  for (const [dir, names] of byParent) add(dir, (name) => name === null || names.has(name));
  // A folder of configuration (skills, commands, agents): what changes inside it too.
  for (const path of paths) add(path, () => true);
  return {
    close() {
      if (timer) clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
