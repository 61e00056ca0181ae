// What the person trusted (SPEC §9), in `<data-dir>/trust.json`: per folder (real path), each
// entry's key and the digest of its content when it was trusted. An entry whose content
// changed since (a `git pull`, the agent, anyone) has another digest and is not trusted.
// The file is a JsonFileStore: saves are atomic and locked, a trust given in another process
// (`deepdesk trust`, another window) is seen on the next look, and a folder record that cannot
// be read counts as no trust at all.

import { join } from 'node:path';
import { z } from 'zod';
import { JsonFileStore, recordShape, withoutEntry, type JsonFileProblem } from '../config/json-file-store';
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
});
type FolderTrust = z.output<typeof folderTrustSchema>;

export type TrustedContent = Pick<TrustEntry, 'key' | 'digest'> & { label?: string };

export function trustFile(dataDir: string): string {
  return join(dataDir, 'trust.json');
}

/** The folder as trust is kept for it: its real path (a link to it is the same folder). */
export function realFolder(folder: string): string {
  return realPathOf(folder);
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

  /** Whether this entry, with this content, was trusted in this folder. */
  isTrusted(folder: string, entry: TrustedContent): boolean {
    const record = this.store.current()[realFolder(folder)];
    return record !== undefined && Object.hasOwn(record.entries, entry.key) && record.entries[entry.key] === entry.digest;
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
    const record = this.store.current()[realFolder(folder)];
    if (record === undefined || !Object.hasOwn(record.entries, entry.key) || record.entries[entry.key] === entry.digest) return undefined;
    return record.labels !== undefined && Object.hasOwn(record.labels, entry.key) ? record.labels[entry.key]! : '';
  }

  /** Records trust in these entries' current content (other entries of the folder keep theirs). */
  trust(folder: string, entries: readonly TrustedContent[]): void {
    const key = realFolder(folder);
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
      return { ...all, [key]: { entries: next, ...(Object.keys(labels).length > 0 ? { labels } : {}), trustedAt: new Date().toISOString() } };
    });
  }

  /**
   * Gives folder `to` the trust given in folder `from` (a worktree made from it): the same
   * keys with the same digests, so only an entry whose content there is exactly what the
   * person trusted here is trusted there.
   */
  carryOver(from: string, to: string): void {
    const source = realFolder(from);
    const target = realFolder(to);
    this.store.update((all) => {
      const given = all[source];
      if (given === undefined) return all;
      return { ...all, [target]: { entries: { ...given.entries }, ...(given.labels ? { labels: { ...given.labels } } : {}), trustedAt: new Date().toISOString() } };
    });
  }

  /** Forgets every trust given in this folder; false when there was none. */
  revoke(folder: string): boolean {
    const key = realFolder(folder);
    let had = false;
    this.store.update((all) => {
      had = Object.hasOwn(all, key);
      return withoutEntry(all, key);
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
