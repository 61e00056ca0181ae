// One kind of configuration a folder (and the person) can provide (SPEC §9): where it is
// found, its items with the key and digest trust is asked with, its problems, and what it
// runs. A new kind is one of these in registry.ts, and nothing else.
//
// A kind's items are read once, by the kind's own function: the trust question lists them
// and the kind's loader loads the trusted ones of the same read, so what is asked and what is
// shown cannot drift apart.

import type { TrustEntry } from '../trust-entry';

export interface ConfigPlaces {
  dataDir: string;
  home: string;
}

export interface FolderEntries {
  entries: TrustEntry[];
  /** One line per file or entry that cannot be used (`FILE: FIELD: MESSAGE`). */
  problems: string[];
}

/** One thing a folder's configuration would load: its trust entry and what its loader uses. */
export interface FolderItem<T> {
  entry: TrustEntry;
  value: T;
}

export interface FolderItems<T> {
  items: FolderItem<T>[];
  /** One line per file or entry that cannot be used (`FILE: FIELD: MESSAGE`). */
  problems: string[];
}

/** How a loader asks the folder's trust gate (core/trust/folder-trust.ts). */
export type IsTrusted = (entry: Pick<TrustEntry, 'key' | 'digest'>) => boolean;

export interface ConfigKind {
  kind: TrustEntry['kind'];
  /** What a person calls this configuration in a sentence: `hooks`, `skills`, `.mcp.json`. */
  noun: string;
  /** Where a folder keeps this kind, relative to the folder, '/'-separated; a folder path covers everything below it. */
  projectPaths: readonly string[];
  /** For a JSON file of projectPaths shared with other kinds (Claude Code's settings): the key that holds this kind there. */
  jsonKey?: string;
  /** Where the person keeps it (absolute): watched, never trusted (the person's own). */
  userPaths(places: ConfigPlaces): string[];
  /** The folder's (real path) own items as the trust question shows and digests them, and its loader checks them. Never throws for a bad file: a problem. */
  folderItems(folder: string, env: NodeJS.ProcessEnv): FolderItems<unknown>;
  /** Files inside the folder that its entries (trusted or not) run or load: in their digests, read-only to the sandbox, the agent's writes ask. */
  entryFiles?(folder: string): string[];
  /** Files inside the folder that the person's own entries of this kind run (`$CLAUDE_PROJECT_DIR/…`): read-only to the sandbox, as entryFiles are. */
  personEntryFiles?(folder: string, places: ConfigPlaces): string[];
}

/** The items' values split by whether the gate trusts their entry (key and digest), in order. */
export function splitByTrust<T>(items: readonly FolderItem<T>[], isTrusted: IsTrusted): { trusted: T[]; untrusted: T[] } {
  const trusted: T[] = [];
  const untrusted: T[] = [];
  for (const item of items) (isTrusted({ key: item.entry.key, digest: item.entry.digest }) ? trusted : untrusted).push(item.value);
  return { trusted, untrusted };
}
