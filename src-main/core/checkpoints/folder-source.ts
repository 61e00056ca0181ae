// Where a recorder's snapshots come from: the seam between recording (recorder.ts, the
// store) and reading a folder's files. The local folder reads the disk itself (scan.ts);
// a remote folder (remote-folder.ts) does the same work in a few ssh calls.

import fs from 'node:fs';
import path from 'node:path';
import { linkedParent } from '../fs/no-follow';
import { applyRestoreLocally, type RestoreOp, type RestoreOpResult } from './restore-ops';
import { currentState, scanFolderSliced, scanPaths, withParents, type ScanResult } from './scan';
import type { FileState, ManifestRow } from './types';

export interface PathStates {
  states: Map<string, ManifestRow | null>;
  result: ScanResult;
}

/** A path's state now, as a restore checks it (scan.ts's currentState), with the content it read. */
export interface CurrentState {
  state: FileState | null;
  blobs: Map<string, Buffer>;
}

export interface FolderSource {
  /** The folder as the store knows it: a local real path, or an `ssh://` URL. */
  readonly root: string;
  /** Whether the local-only shortcuts apply: a command's write layer, a file-system watcher's change feed. */
  readonly local: boolean;
  /**
   * The whole folder compared with `manifest` (a walk, scan.ts's rules); `record` false for a
   * first baseline. `onSlice` gets what was gathered so far, and with `record` false may store
   * and take out its blobs and manifest rows (the result then holds the rest).
   */
  walk(manifest: ReadonlyMap<string, ManifestRow>, record: boolean, options?: { signal?: AbortSignal; onSlice?: (partial: ScanResult) => Promise<void> | void }): Promise<ScanResult>;
  /** Just these paths, never read through a link in a parent folder (such a path is absent). */
  scanPaths(rels: readonly string[], manifest: (rel: string) => ManifestRow | undefined): Promise<PathStates>;
  /** Whether a known-path step would write through a symlink: one of the paths or its parents is a link. */
  throughLinks(rels: readonly string[]): Promise<boolean>;
  /** For a restore's plan: each path's first parent folder that is a link (no-follow.ts's linkedParent), or null. */
  linkedParents(rels: readonly string[]): Promise<Map<string, string | null>>;
  /** For a restore's plan: each path's state now (an entry that is neither file, link nor folder by its signature). */
  currentStates(rels: readonly string[]): Promise<Map<string, CurrentState>>;
  /** Does a restore's operations in order, never through a link in a parent folder; one result per operation. */
  applyRestore(ops: readonly RestoreOp[]): Promise<RestoreOpResult[]>;
}

/** Today's local folder: the disk read with scan.ts's no-follow walk. */
export function localFolderSource(folder: string): FolderSource {
  const root = fs.realpathSync(folder);
  return {
    root,
    local: true,
    walk: (manifest, record, options) => scanFolderSliced(root, manifest, record, options),
    scanPaths: (rels, manifest) => Promise.resolve(scanPaths(root, rels, manifest)),
    throughLinks: (rels) => {
      for (const rel of withParents(rels)) {
        try {
          if (fs.lstatSync(path.join(root, rel)).isSymbolicLink()) return Promise.resolve(true);
        } catch {
          // Missing: nothing below it exists either.
        }
      }
      return Promise.resolve(false);
    },
    linkedParents: (rels) => Promise.resolve(new Map(rels.map((rel) => [rel, linkedParent(root, rel)]))),
    currentStates: (rels) => Promise.resolve(new Map(rels.map((rel) => [rel, currentState(root, rel)]))),
    applyRestore: (ops) => Promise.resolve(applyRestoreLocally(root, ops)),
  };
}
