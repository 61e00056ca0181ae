// What a folder's configuration would load, entry by entry: what the trust gate is asked about (SPEC §9).

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
