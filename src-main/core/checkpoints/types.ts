// Checkpoints (SPEC §8): what the store keeps about a folder's files and the steps that
// changed them. Paths are relative to the folder, '/'-separated, never starting with '/'.

/** f: regular file, l: symlink (its target is the content), d: folder, i: an ignored entry (only a signature is kept). */
export type EntryType = 'f' | 'l' | 'd' | 'i';

/** One path's state: what a snapshot knows about it. `null` state = the path does not exist. */
export interface FileState {
  type: EntryType;
  /** Permission bits (mode & 0o7777); 0 for ignored entries. */
  mode: number;
  /** sha256 of the content (files), of the link target (symlinks); '' for folders; a stat signature for ignored entries. */
  hash: string;
}

/** What the manifest remembers of a path besides its state, to skip hashing unchanged files. */
export interface StatKey {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export interface ManifestRow extends FileState, StatKey {
  path: string;
  /** When its hash was computed (ms since epoch): a file changed within the same clock tick is re-hashed. */
  hashedAt: number;
}

export type CheckpointKind = 'agent' | 'person' | 'restore';

export interface Change {
  path: string;
  before: FileState | null;
  after: FileState | null;
}

export type ChangeStatus = 'added' | 'modified' | 'deleted';

export interface CheckpointEntry extends Change {
  status: ChangeStatus;
  /** Added / removed lines (text files); null when not computed yet or not text. */
  added: number | null;
  removed: number | null;
}

export interface Checkpoint {
  id: string;
  /** Order of recording in this data folder. */
  seq: number;
  folder: string;
  threadId: string | null;
  /** Index of the user message in the thread's messages that the step answered. */
  messageIndex: number | null;
  /** The first line of that user message. */
  messageLine: string;
  kind: CheckpointKind;
  /** The checkpoint this one builds on (the folder's previous one). */
  parentId: string | null;
  toolCallId: string | null;
  tool: string | null;
  /** The model of an agent's step, when known. */
  model: string | null;
  /** For a restore: the checkpoints whose changes it reverted. */
  reverts: string[];
  createdAt: string;
  /**
   * Changes seen while a command ran that had no write layer (not sandboxed, or no layer on
   * this machine): its own cannot be told from the person's, so a restore asks about them.
   */
  unattributed: boolean;
}

export function changeStatus(change: Change): ChangeStatus {
  if (change.before === null) return 'added';
  if (change.after === null) return 'deleted';
  return 'modified';
}

export function sameState(a: FileState | null, b: FileState | null): boolean {
  if (a === null || b === null) return a === b;
  return a.type === b.type && a.hash === b.hash && (a.type === 'i' || a.mode === b.mode);
}

export function toVirtual(rel: string): string {
  return '/' + rel;
}
