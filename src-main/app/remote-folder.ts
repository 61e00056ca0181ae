// A remote folder for the app (SPEC §13): what createApp needs of it (its backend with
// commands, the person's login shell there) and what this version does not do on it, said
// once in one line where it opens. The folder's own configuration (its MCP servers, hooks and
// skills) is not loaded: the trust gate reads it from the local disk, and its servers and
// hooks would have to run on the remote, contained there; the person's own configuration
// loads as for any folder.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../core/backends/protocol';
import { projectHooksFile } from '../core/extensions/hooks/config';
import { PROJECT_SKILL_DIRS } from '../core/extensions/skills/discover';
import { projectMcpFile } from '../core/trust/loaders';
import { remoteLoginShellCommandLine } from '../core/backends/remote/remote-exec';
import { RemoteShellBackend } from '../core/backends/remote/remote-shell';
import type { App } from './app';
import { openFolderBackend, type FolderBackendOptions } from './folders/folder-backend';
import { remoteFolderLabel, type SshFolderLocation } from './folders/folder-location';

export interface RemoteAppFolder {
  /** `dev@box:/srv/proj`, for messages. */
  label: string;
  /** The folder's files and commands (inside the remote's bubblewrap when it has one). */
  shell: RemoteShellBackend;
  /** The person's shell tab: their login shell in the folder, spawned in a local pty. */
  loginShell: { file: string; args: string[] };
  /** How often the file tree lists the folders it shows (default PollWatcher's). */
  pollIntervalMs?: number;
  /** Ends the folder's connection. */
  close(): Promise<void>;
}

/** Connects and checks the remote folder (rejecting with the reason, naming the host) for createApp. */
export async function openRemoteAppFolder(location: SshFolderLocation, options: FolderBackendOptions): Promise<RemoteAppFolder> {
  const opened = await openFolderBackend(location, options);
  const shell = opened.shell;
  if (!(shell instanceof RemoteShellBackend)) {
    await opened.close();
    throw new Error(`${remoteFolderLabel(location)} was opened without commands`);
  }
  const poll = Number(options.env?.DEEPDESK_REMOTE_POLL_MS);
  return {
    label: remoteFolderLabel(location),
    shell,
    loginShell: remoteLoginShellCommandLine(shell.connection, location.target.path),
    ...(Number.isInteger(poll) && poll > 0 ? { pollIntervalMs: poll } : {}),
    close: () => opened.close(),
  };
}

/**
 * The app of a remote folder, for createFolderHost's openRemoteApp: the folder connected and
 * checked, then `build` on it; the connection is closed when building fails (else with the app).
 */
export async function openRemoteApp(location: SshFolderLocation, options: FolderBackendOptions, build: (remote: RemoteAppFolder) => Promise<App>): Promise<App> {
  const remote = await openRemoteAppFolder(location, options);
  try {
    return await build(remote);
  } catch (err) {
    await remote.close();
    throw err;
  }
}

/** What a remote folder's own configuration holds, of what this version does not load. */
export type RemoteConfigKind = '.mcp.json' | 'hooks' | 'skills';

/** The one notice line for a remote folder (`dev@box:/srv/proj`) and the configuration found there. */
export function remoteFolderLimitsNotice(label: string, found: readonly RemoteConfigKind[]): string {
  return `${label} is a remote folder: its own configuration (${found.join(', ')}) is not loaded in this version.`;
}

/**
 * The configuration the remote folder has of its own (a few looks over its connection, for the
 * notice to be given only when there is something not loaded). Never rejects: a look that
 * fails for another reason than the path being absent is tried again (a connection lost just
 * then is made anew on the next call), then counts as absent.
 */
export async function remoteFolderConfiguration(files: Pick<Backend, 'stat' | 'ls' | 'readRaw'>, retryDelayMs = 500): Promise<RemoteConfigKind[]> {
  const look = async <T extends { error?: string }>(call: () => Promise<T>): Promise<T | null> => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await call().catch((err: unknown) => ({ error: String(err) }) as T);
      if (result.error === undefined) return result;
      if (/not found/i.test(result.error)) return null;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
    }
    return null;
  };
  const exists = async (path: string): Promise<boolean> => (await look(() => files.stat(path))) !== null;
  const claudeHooks = async (): Promise<boolean> => {
    const raw = await look(() => files.readRaw('/.claude/settings.json'));
    return raw?.data !== undefined && new TextDecoder().decode(raw.data).includes('"hooks"');
  };
  const hasEntries = async (dir: string): Promise<boolean> => ((await look(() => files.ls(dir)))?.entries?.length ?? 0) > 0;
  // One after another: the folder's connection is shared with the window's own requests.
  const found: RemoteConfigKind[] = [];
  // The folder's own paths as the local loaders name them, the remote folder's root being '/'.
  if (await exists(projectMcpFile('/'))) found.push('.mcp.json');
  if ((await exists(projectHooksFile('/'))) || (await claudeHooks())) found.push('hooks');
  for (const dir of PROJECT_SKILL_DIRS) {
    if (await hasEntries(`/${dir}`)) {
      found.push('skills');
      break;
    }
  }
  return found;
}

/**
 * An empty local folder the folder-configuration services (MCP, skills, hooks, trust) look at
 * for a remote folder: they find none of the folder's own, and the person's own still load.
 */
export function remoteConfigStandIn(dataDir: string): string {
  const dir = join(dataDir, 'remote-folder-config');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
