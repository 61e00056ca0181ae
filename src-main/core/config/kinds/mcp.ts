// MCP servers (SPEC §10): the person's `<data-dir>/mcp.json` and the folder's `.mcp.json`,
// one trust entry per server that would start.

import { join } from 'node:path';
import { entryVariables, readServerEntries, runnerHosts, type CheckedServerEntry } from '../mcp-config';
import { problemLine } from '../mcp-config-types';
import { projectServerDigest, serverFiles } from '../entry-files';
import { visibleLine } from '../../text/visible-line';
import { shellWord } from '../../text/shell-quote';
import { FOLDER_CONFIG_PLACES } from '../places';
import type { ConfigKind, FolderItems } from './kind';

/** The folder's own MCP servers file. */
export function projectMcpFile(folder: string): string {
  return join(folder, '.mcp.json');
}

/** The person's own MCP servers file. */
export function userMcpFile(dataDir: string): string {
  return join(dataDir, 'mcp.json');
}

/** The trust key of a project MCP server entry. */
export function mcpTrustKey(name: string): string {
  return `mcp:${name}`;
}

/**
 * `MCP server NAME: [ENV=VALUE…] COMMAND ARGS… (sandboxed[, network: DOMAINS])` or
 * `(not sandboxed)`; `MCP server NAME: URL` (with ` (sse)` for the older transport) and
 * `(headers: K: V, …)`; then `; your environment variables: A, B` when it expands any, and
 * `; Deepdesk's credentials it takes: K` when its `credentials` names any. Values
 * are as written (before `${VAR}` expansion): that is what is trusted. Everything that decides
 * what runs or what is sent is shown: the environment (NODE_OPTIONS, LD_PRELOAD, PATH), the
 * headers (a token), and the names of the person's variables that go into them.
 */
export function mcpServerLabel(entry: CheckedServerEntry, personEnv: NodeJS.ProcessEnv = process.env): string {
  const names = entryVariables(entry);
  const credentials = [...new Set(entry.fields.credentials ?? [])].sort();
  const uses =
    (names.length > 0 ? `; your environment variables: ${names.join(', ')}` : '') +
    // What it is trusted with of Deepdesk's own (nothing else of them expands): trusting the line is trusting exactly these.
    (credentials.length > 0 ? `; Deepdesk's credentials it takes: ${credentials.join(', ')}` : '');
  if (entry.type !== 'stdio') {
    const headers = Object.entries(entry.fields.headers ?? {}).map(([key, value]) => `${key}: ${shellWord(value)}`);
    const sent = headers.length > 0 ? ` (headers: ${headers.join(', ')})` : '';
    return visibleLine(`MCP server ${entry.name}: ${entry.url}${entry.type === 'sse' ? ' (sse)' : ''}${sent}${uses}`);
  }
  const env = Object.entries(entry.fields.env ?? {}).map(([key, value]) => `${key}=${shellWord(value)}`);
  const command = [entry.command, ...(entry.fields.args ?? [])].map(shellWord);
  const runner = runnerHosts(entry.command, entry.fields.args ?? [], personEnv).map((host) => `${host} (package runner)`);
  const domains = [...(entry.fields.allowedDomains ?? []), ...runner];
  const containment = entry.fields.sandbox === false ? 'not sandboxed' : domains.length > 0 ? `sandboxed, network: ${domains.join(', ')}` : 'sandboxed';
  return visibleLine(`MCP server ${entry.name}: ${[...env, ...command].join(' ')} (${containment})${uses}`);
}

/**
 * Every server entry of the folder's (real path) `.mcp.json`, disabled ones too, with the trust
 * entry its loaders check (the digest holds what an unsandboxed one runs from the folder).
 */
export function projectServerItems(folder: string, env: NodeJS.ProcessEnv): FolderItems<CheckedServerEntry> {
  const file = projectMcpFile(folder);
  const read = readServerEntries(file, 'project');
  const items = read.entries.map((entry) => ({ entry: { kind: 'mcp' as const, key: mcpTrustKey(entry.name), file, digest: projectServerDigest(folder, entry), label: mcpServerLabel(entry, env) }, value: entry }));
  return { items, problems: read.problems.map(problemLine) };
}

export const mcpKind: ConfigKind = {
  kind: 'mcp',
  noun: '.mcp.json',
  projectPaths: FOLDER_CONFIG_PLACES.mcp,
  userPaths: ({ dataDir }) => [userMcpFile(dataDir)],
  // One entry per server that would start (a disabled one would not, so trust is not asked for it).
  folderItems(folder, env) {
    const read = projectServerItems(folder, env);
    return { items: read.items.filter((item) => item.value.fields.disabled !== true), problems: read.problems };
  },
  // What unsandboxed servers run from the folder (a sandboxed one is contained whatever it runs).
  entryFiles: (folder) => readServerEntries(projectMcpFile(folder), 'project').entries.flatMap((entry) => serverFiles(folder, entry)),
};
