// What the person trusted (SPEC §9), in `<data-dir>/trust.json`: per folder (real path), each
// entry's key and the digest of its content when it was trusted. An entry whose content
// changed since (a `git pull`, the agent, anyone) has another digest and is not trusted.
// The file is a JsonFileStore: saves are atomic and locked, a trust given in another process
// (`deepdesk trust`, another window) is seen on the next look, and a folder record that cannot
// be read counts as no trust at all. A worktree's folder holds no copy of its folder's trust:
// it names that folder (`from`), and what is trusted there now is trusted in it, so a revoke
// in the folder reaches every worktree of it at once.

import { join } from 'node:path';
import { z } from 'zod';
import { JsonFileStore, recordShape, type JsonFileProblem } from '../config/json-file-store';
import { realPathOf } from '../fs/real-path';
import { pathsStamp } from '../config/entry-files';
import type { TrustGate } from './types';
import type { TrustEntry } from '../config/trust-entry';

const folderTrustSchema = z.object({
  /** Entry key → sha256 of its content when trusted. */
  entries: z.record(z.string(), z.string()),
  /** Entry key → the line the person was shown when they trusted it (to say what changed since). */
  labels: z.record(z.string(), z.string()).optional(),
  /** When trust was last given (ISO time), for the person reading the file. */
  trustedAt: z.string().optional(),
  /** A worktree's folder: the folder (real path) whose trust, as it is now, is trusted here too. */
  from: z.string().optional(),
});
type FolderTrust = z.output<typeof folderTrustSchema>;

export type TrustedContent = Pick<TrustEntry, 'key' | 'digest'> & { label?: string };

export function trustFile(dataDir: string): string {
  return join(dataDir, 'trust.json');
}

export class TrustStore implements TrustGate {
  private readonly store: JsonFileStore<Record<string, FolderTrust>>;
  private readonly file: string;

  constructor(dataDir: string, options: { onProblem?: (problem: JsonFileProblem) => void } = {}) {
    this.file = trustFile(dataDir);
    this.store = new JsonFileStore({
      path: trustFile(dataDir),
      shape: recordShape(folderTrustSchema),
      defaultsText: "no folder's configuration is trusted until you trust it again",
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
    });
  }

  /** Whether this entry, with this content, was trusted in this folder (or, in a worktree's, in its folder). */
  isTrusted(folder: string, entry: TrustedContent): boolean {
    return this.recordsOf(folder).some((record) => Object.hasOwn(record.entries, entry.key) && record.entries[entry.key] === entry.digest);
  }

  /** trust.json's identity and change times: another process's trust or revoke changes it. */
  version(): string {
    return pathsStamp([this.file]);
  }

  /**
   * What was trusted before for this entry key in this folder, when its content is another now:
   * the line shown then (`''` when that was not kept). Undefined: never trusted, or trusted as is.
   */
  trustedBefore(folder: string, entry: TrustedContent): string | undefined {
    if (this.isTrusted(folder, entry)) return undefined;
    const record = this.recordsOf(folder).find((r) => Object.hasOwn(r.entries, entry.key));
    if (record === undefined) return undefined;
    return record.labels !== undefined && Object.hasOwn(record.labels, entry.key) ? record.labels[entry.key]! : '';
  }

  /** The folder's own record, then (a worktree's) its folder's as it is now. */
  private recordsOf(folder: string): FolderTrust[] {
    const all = this.store.current();
    const own = all[realPathOf(folder)];
    const from = own?.from !== undefined ? all[own.from] : undefined;
    return [own, from].filter((r) => r !== undefined);
  }

  /** Records trust in these entries' current content (other entries of the folder keep theirs). */
  trust(folder: string, entries: readonly TrustedContent[]): void {
    const key = realPathOf(folder);
    const set = (record: Record<string, string>, name: string, value: string): void => {
      Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
    };
    this.store.update((all) => {
      const next: Record<string, string> = { ...all[key]?.entries };
      const labels: Record<string, string> = { ...all[key]?.labels };
      for (const entry of entries) {
        set(next, entry.key, entry.digest);
        if (entry.label !== undefined) set(labels, entry.key, entry.label);
      }
      const from = all[key]?.from;
      return { ...all, [key]: { entries: next, ...(Object.keys(labels).length > 0 ? { labels } : {}), trustedAt: new Date().toISOString(), ...(from !== undefined ? { from } : {}) } };
    });
  }

  /**
   * Folder `to` (a worktree made from folder `from`) is trusted in what `from` is trusted in,
   * read there at every look: the same keys with the same digests (only an entry whose content
   * in the worktree is exactly what the person trusted is trusted), and nothing once `from`'s
   * trust is revoked. A worktree of a worktree follows the first folder.
   */
  extendTo(from: string, to: string): void {
    const source = realPathOf(from);
    const target = realPathOf(to);
    this.store.update((all) => {
      const root = all[source]?.from ?? source;
      return { ...all, [target]: { entries: {}, from: root, trustedAt: new Date().toISOString() } };
    });
  }

  /**
   * Forgets every trust given in this folder, and in the worktrees made from it (they keep
   * following it, so trust given here again reaches them); false when there was none.
   */
  revoke(folder: string): boolean {
    const key = realPathOf(folder);
    let had = false;
    this.store.update((all) => {
      had = Object.hasOwn(all, key);
      if (!had && !Object.values(all).some((record) => record.from === key)) return all;
      const rest: Record<string, FolderTrust> = {};
      for (const [name, record] of Object.entries(all)) {
        if (name === key) continue;
        rest[name] = record.from === key ? { entries: {}, from: key, ...(record.trustedAt !== undefined ? { trustedAt: record.trustedAt } : {}) } : record;
      }
      return rest;
    });
    return had;
  }

  /** Called when trust changed (here, or in another process on the same data folder). */
  onChange(listener: () => void): () => void {
    return this.store.onChange(() => listener());
  }

  close(): void {
    this.store.close();
  }
}
