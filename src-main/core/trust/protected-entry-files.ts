// The files a folder's configuration runs (entry-files.ts), kept out of the reach of what the
// agent causes (SPEC §9): the sandbox of every command and server of the folder keeps them
// read-only, and the agent's writes to them ask. Every entry counts, trusted or not: one
// trusted later must find its files as they were shown.

import { isAbsolute, join, relative } from 'node:path';
import { readServerEntries } from '../config/mcp-config';
import { projectHooksFile, readHooksFile } from '../extensions/hooks/config';
import type { SandboxPolicy } from '../sandbox/types';
import { hookFiles, realOrSelf, serverFiles } from './entry-files';

/** Every file the folder's hooks and unsandboxed servers name (trusted or not): what the sandbox keeps read-only. */
export function entryFilesOf(folder: string): string[] {
  const hooks = readHooksFile(projectHooksFile(folder), 'project').hooks.flatMap((hook) => hookFiles(folder, hook));
  const servers = readServerEntries(join(folder, '.mcp.json'), 'project').entries.flatMap((entry) => serverFiles(folder, entry));
  return [...new Set([...hooks, ...servers])].sort();
}

/** Why the agent's change to `path` (absolute, in `folder`) must ask, or null. */
export function entryFilesReason(folder: string, path: string): string | null {
  const targets = new Set([path, realOrSelf(path)]);
  for (const file of entryFilesOf(folder)) {
    for (const target of targets) {
      const rel = relative(target, file);
      if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
        return `the folder's configuration runs it (${relative(folder, file) || file}) once trusted, and a change to it needs trust again`;
      }
    }
  }
  return null;
}

/**
 * The folder's sandbox policy with what its entries run kept read-only: read again for every
 * command and server the sandbox prepares (the configuration may change between them).
 */
export function folderSandboxPolicy(policy: SandboxPolicy): SandboxPolicy {
  const base = policy.protectedPaths ?? [];
  const result: SandboxPolicy = { projectDir: policy.projectDir, dataDir: policy.dataDir, ...(policy.allowedDomains ? { allowedDomains: policy.allowedDomains } : {}) };
  Object.defineProperty(result, 'protectedPaths', {
    enumerable: true,
    get: () => [...base, ...entryFilesOf(realOrSelf(policy.projectDir))],
  });
  return result;
}
