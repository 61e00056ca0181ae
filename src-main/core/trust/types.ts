// Folder trust (SPEC §9): what a folder's own configuration would load, entry by entry.

/** The kinds of configuration a folder provides (one entry each in core/config/registry). */
export const TRUST_ENTRY_KINDS = ['mcp', 'hook', 'skill', 'command', 'agent', 'rule', 'plugin'] as const;
export type TrustEntryKind = (typeof TRUST_ENTRY_KINDS)[number];

/** One thing a folder's configuration would load: an MCP server, a hook, a skill. */
export interface TrustEntry {
  kind: TrustEntryKind;
  /** Stable within the folder, e.g. `mcp:github`, `hook:PreToolUse:0`, `skill:pdf`. */
  key: string;
  /** Absolute path of the file that declares it. */
  file: string;
  /** sha256 of the entry's content as written: a changed entry needs trust again. */
  digest: string;
  /** What the person is shown, one line: `MCP server github: npx -y @x/github (sandboxed)`. */
  label: string;
}

export interface TrustReport {
  folder: string;
  /** Everything the folder's configuration would load. */
  entries: TrustEntry[];
  /** Of those, the ones not (or no longer) trusted. */
  untrusted: TrustEntry[];
  problems: string[];
}

/**
 * Whether an entry, with this content, is trusted in a folder: the store in the data folder
 * (trust.json), or a session's own trust on top of it (`--trust`). Asked again at every step.
 */
export interface TrustGate {
  isTrusted(folder: string, entry: Pick<TrustEntry, 'key' | 'digest'>): boolean;
  /** Changes whenever what is trusted may have changed (here or in another process): a cheap stat. */
  version(): string;
}
