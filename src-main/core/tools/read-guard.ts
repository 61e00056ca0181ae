// The read-before-write guard (SPEC §3): an existing file may be overwritten or edited
// only after this thread has read (or written) it, and only while it is unchanged since.

import type { Backend } from '../backends/protocol';

export type ReadGuardSnapshot = Record<string, string>;

export class ReadGuard {
  /** virtual path → the content version seen when the agent last read or wrote it. */
  private readonly seen: Map<string, string>;

  constructor(snapshot: ReadGuardSnapshot = {}) {
    this.seen = new Map(Object.entries(snapshot));
  }

  /** Records the file's current version as known to the agent; call after a read or write. */
  async remember(backend: Backend, path: string): Promise<void> {
    const stat = await backend.stat(path);
    if (stat.version !== undefined) this.seen.set(path, stat.version);
  }

  rememberVersion(path: string, version: string): void {
    this.seen.set(path, version);
  }

  /**
   * Null when writing to `path` is allowed now, else the reason to give the agent.
   * New files are always allowed.
   */
  async check(backend: Backend, path: string, action: 'edit' | 'overwrite'): Promise<string | null> {
    const stat = await backend.stat(path);
    if (stat.error !== undefined || stat.version === undefined) return null;
    if (stat.info?.isDir) return null;
    const known = this.seen.get(path);
    const verb = action === 'edit' ? 'editing' : 'overwriting';
    if (known === undefined) {
      return `${path} exists but has not been read in this session; read it with read_file before ${verb} it.`;
    }
    if (known !== stat.version) {
      return `${path} has changed since you last read it (modified outside this session); read it again with read_file before ${verb} it.`;
    }
    return null;
  }

  toJSON(): ReadGuardSnapshot {
    return Object.fromEntries(this.seen);
  }
}
