// The files a folder's configuration runs (entry-files.ts), kept out of the reach of what the
// agent causes (SPEC §9): the sandbox of every command and server of the folder keeps them
// read-only, and the agent's writes to them ask. Every entry counts, trusted or not: one
// trusted later must find its files as they were shown.

import { homedir } from 'node:os';
import { relative } from 'node:path';
import { folderEntryFiles, personEntryFolderFiles } from '../config/registry';
import type { SandboxPolicy } from './types';
import { realOrSelf } from '../config/entry-files';
import { isPathInside } from '../fs/path-inside';

/** Why the agent's change to `path` (absolute, in `folder`) must ask, or null. */
export function entryFilesReason(folder: string, path: string): string | null {
  const targets = new Set([path, realOrSelf(path)]);
  for (const file of folderEntryFiles(folder)) {
    for (const target of targets) {
      if (isPathInside(target, file)) {
        return `the folder's configuration runs it (${relative(folder, file) || file}) once trusted, and a change to it needs trust again`;
      }
    }
  }
  return null;
}

/**
 * The folder's sandbox policy with every file inside it that a hook or server of any source
 * runs kept read-only — the folder's own entries', and the person's and their plugins' hooks'
 * (`$CLAUDE_PROJECT_DIR/…`): read again for every command and server the sandbox prepares
 * (the configuration may change between them).
 */
export function folderSandboxPolicy(policy: SandboxPolicy, home: string = homedir()): SandboxPolicy {
  const base = policy.protectedPaths ?? [];
  const result: SandboxPolicy = {
    projectDir: policy.projectDir,
    dataDir: policy.dataDir,
    ...(policy.allowedDomains ? { allowedDomains: policy.allowedDomains } : {}),
    ...(policy.readablePaths?.length ? { readablePaths: policy.readablePaths } : {}),
    ...(policy.writablePaths?.length ? { writablePaths: policy.writablePaths } : {}),
    ...(policy.forwards?.length ? { forwards: policy.forwards } : {}),
    ...(policy.privateTmp ? { privateTmp: true } : {}),
  };
  Object.defineProperty(result, 'protectedPaths', {
    enumerable: true,
    get: () => {
      const folder = realOrSelf(policy.projectDir);
      return [...new Set([...base, ...folderEntryFiles(folder), ...personEntryFolderFiles(folder, { dataDir: policy.dataDir, home })])];
    },
  });
  return result;
}
