// What a memory is beyond its text (SPEC §25): its scope, its versions and who wrote each,
// the untrusted sources a model's write was made beside, and its status.

/** `global`, or `project:<key>` (a repository's main worktree root, a folder's real path, an ssh:// URL). */
export type MemoryScope = string;

export const GLOBAL_SCOPE: MemoryScope = 'global';

export function projectScope(projectKey: string): MemoryScope {
  return `project:${projectKey}`;
}

/** Who made a version. */
export type MemoryWriter =
  | { kind: 'person' }
  | { kind: 'agent'; thread: string; turn?: number; model?: string }
  | { kind: 'subagent'; thread: string; turn?: number; model?: string; subagent?: string; parentCall?: string }
  /** Another vendor's agent (SPEC §22). */
  | { kind: 'other-agent'; thread: string; vendor: string; turn?: number }
  /** A client of the Agent Protocol (SPEC §19). */
  | { kind: 'protocol-client'; thread?: string }
  | { kind: 'import'; tool: 'claude-code' | 'codex' };

/** What a version did. */
export type MemoryAction = 'write' | 'edit' | 'delete' | 'approve' | 'reject' | 'restore' | 'import' | 'move';

/**
 * A version's standing: `active` (it is the memory now, or was), `proposed` (waiting for the
 * person), `rejected`, `superseded` (a later proposal of the same thread replaced it),
 * `approved` (a proposal the person made active: the `approve` version after it holds it),
 * `deleted`.
 */
export type MemoryStatus = 'active' | 'proposed' | 'rejected' | 'superseded' | 'approved' | 'deleted';

export interface MemoryVersion {
  scope: MemoryScope;
  /** The path inside its scope, e.g. `/x.md`. */
  path: string;
  /** From 1, per memory. */
  version: number;
  action: MemoryAction;
  status: MemoryStatus;
  /** The text of this version; null for a delete. */
  content: string | null;
  writer: MemoryWriter;
  /** The untrusted sources in the writing request (`read_file /README.md`, `execute npm test`). */
  sources: string[];
  /** The thread it was written in, when one. */
  thread: string | null;
  at: string;
}

/** What the person is told of a write that was proposed, naming its normalized path. */
export function proposedNotice(path: string): string {
  return `Proposed ${path}: the person reviews memories written while untrusted content was in context; it is not used elsewhere until approved.`;
}

/** A memory a model request carried: its path as the agent sees it and its version. */
export interface MemoryUse {
  path: string;
  version: number;
}

/** How the writer reads for people: `person`, `agent (thread …)`, `import:codex`. */
export function writerLabel(writer: MemoryWriter): string {
  switch (writer.kind) {
    case 'person':
      return 'person';
    case 'import':
      return `import:${writer.tool}`;
    case 'other-agent':
      return `${writer.vendor} (thread ${writer.thread})`;
    case 'protocol-client':
      return writer.thread !== undefined ? `protocol client (thread ${writer.thread})` : 'protocol client';
    case 'subagent':
      return `subagent${writer.subagent !== undefined ? ` ${writer.subagent}` : ''} (thread ${writer.thread})`;
    case 'agent':
      return `agent (thread ${writer.thread}${writer.turn !== undefined ? `, turn ${writer.turn}` : ''}${writer.model !== undefined ? `, ${writer.model}` : ''})`;
  }
}
