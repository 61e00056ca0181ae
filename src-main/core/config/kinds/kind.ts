// One kind of configuration a folder (and the person) can provide (SPEC §9): where it is
// found, what the trust question shows and digests of it, its problems, and what it runs.
// A new kind is one of these in registry.ts, and nothing else.

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
  /** The folder's (real path) own entries as the trust question shows and digests them. Never throws for a bad file: a problem. */
  folderEntries(folder: string, env: NodeJS.ProcessEnv): FolderEntries;
  /** Files inside the folder that its entries (trusted or not) run or load: in their digests, read-only to the sandbox, the agent's writes ask. */
  entryFiles?(folder: string): string[];
}
