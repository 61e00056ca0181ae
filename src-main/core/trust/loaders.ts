// The kinds of configuration a folder provides (SPEC §9), one loader each: what each entry
// would load, shown and digested for trust. Skills and hooks add one entry here each.

import { join } from 'node:path';
import { entryVariables, readServerEntries, type CheckedServerEntry } from '../config/mcp-config';
import { problemLine } from '../config/mcp-config-types';
import { hookTrustKey, projectHooksFile, readHooksFile } from '../extensions/hooks/config';
import { projectSkillTrustEntries } from '../extensions/skills/trust-entries';
import { projectHookDigest, projectServerDigest } from './entry-files';
import { shellWord, visibleLine } from './labels';
import type { FolderConfigLoader, TrustEntry } from './types';

/** The folder's own MCP servers file. */
export function projectMcpFile(folder: string): string {
  return join(folder, '.mcp.json');
}

/** The trust key of a project MCP server entry. */
export function mcpTrustKey(name: string): string {
  return `mcp:${name}`;
}

/**
 * `MCP server NAME: [ENV=VALUE…] COMMAND ARGS… (sandboxed[, network: DOMAINS])` or
 * `(not sandboxed)`; `MCP server NAME: URL` (with ` (sse)` for the older transport) and
 * `(headers: K: V, …)`; then `; your environment variables: A, B` when it expands any. Values
 * are as written (before `${VAR}` expansion): that is what is trusted. Everything that decides
 * what runs or what is sent is shown: the environment (NODE_OPTIONS, LD_PRELOAD, PATH), the
 * headers (a token), and the names of the person's variables that go into them.
 */
export function mcpServerLabel(entry: CheckedServerEntry): string {
  const names = entryVariables(entry);
  const uses = names.length > 0 ? `; your environment variables: ${names.join(', ')}` : '';
  if (entry.type !== 'stdio') {
    const headers = Object.entries(entry.fields.headers ?? {}).map(([key, value]) => `${key}: ${shellWord(value)}`);
    const sent = headers.length > 0 ? ` (headers: ${headers.join(', ')})` : '';
    return visibleLine(`MCP server ${entry.name}: ${entry.url}${entry.type === 'sse' ? ' (sse)' : ''}${sent}${uses}`);
  }
  const env = Object.entries(entry.fields.env ?? {}).map(([key, value]) => `${key}=${shellWord(value)}`);
  const command = [entry.command, ...(entry.fields.args ?? [])].map(shellWord);
  const domains = entry.fields.allowedDomains ?? [];
  const containment = entry.fields.sandbox === false ? 'not sandboxed' : domains.length > 0 ? `sandboxed, network: ${domains.join(', ')}` : 'sandboxed';
  return visibleLine(`MCP server ${entry.name}: ${[...env, ...command].join(' ')} (${containment})${uses}`);
}

/** `.mcp.json`: one entry per server that would start (a disabled one would not). */
export const mcpLoader: FolderConfigLoader = {
  kind: 'mcp',
  entries(folder) {
    const file = projectMcpFile(folder);
    const read = readServerEntries(file, 'project');
    const entries: TrustEntry[] = read.entries
      .filter((entry) => entry.fields.disabled !== true)
      .map((entry) => ({ kind: 'mcp', key: mcpTrustKey(entry.name), file, digest: projectServerDigest(folder, entry), label: mcpServerLabel(entry) }));
    return Promise.resolve({ entries, problems: read.problems.map(problemLine) });
  },
};

/** The project's skills folders: one entry per valid skill (`Skill NAME: .claude/skills/NAME/SKILL.md`). */
export const skillLoader: FolderConfigLoader = {
  kind: 'skill',
  entries: (folder) => Promise.resolve().then(() => projectSkillTrustEntries(folder)),
};

/** `.deepdesk/hooks.json`: one entry per hook command, `Hook EVENT [MATCHER]: COMMAND`. */
export const hookLoader: FolderConfigLoader = {
  kind: 'hook',
  entries(folder) {
    const file = projectHooksFile(folder);
    const read = readHooksFile(file, 'project');
    const entries: TrustEntry[] = read.hooks.map((hook) => ({
      kind: 'hook',
      key: hookTrustKey(hook),
      file,
      digest: projectHookDigest(folder, hook),
      label: visibleLine(`Hook ${hook.event}${hook.matcher !== undefined ? ` [${hook.matcher}]` : ''}: ${hook.command}`),
    }));
    return Promise.resolve({ entries, problems: read.problems.map(problemLine) });
  },
};

export const FOLDER_CONFIG_LOADERS: readonly FolderConfigLoader[] = [mcpLoader, hookLoader, skillLoader];
