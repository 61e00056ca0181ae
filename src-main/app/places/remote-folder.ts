// A remote folder for the app (SPEC §13): what createApp needs of it (its backend with
// commands, the person's login shell there) and what this version does not do on it, said
// once in one line where it opens. The folder's own configuration (its MCP servers, hooks and
// skills) is not loaded: the trust gate reads it from the local disk, and its servers and
// hooks would have to run on the remote, contained there; the person's own configuration
// loads as for any folder.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../../core/backends/protocol';
import { CONFIG_KINDS, type ConfigKind } from '../../core/config/registry';
import { remoteLoginShellCommandLine } from '../../core/backends/remote/remote-exec';
import { RemoteShellBackend } from '../../core/backends/remote/remote-shell';
import { openFolderBackend, type FolderBackendOptions } from './folder-backend';
import { remoteFolderLabel, type SshFolderLocation } from './folder-location';

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
 * The app of a remote folder, for createWindowFolders's openRemoteApp: the folder connected and
 * checked, then `build` on it; the connection is closed when building fails (else with the app).
 */
export async function openRemoteApp<App>(location: SshFolderLocation, options: FolderBackendOptions, build: (remote: RemoteAppFolder) => Promise<App>): Promise<App> {
  const remote = await openRemoteAppFolder(location, options);
  try {
    return await build(remote);
  } catch (err) {
    await remote.close();
    throw err;
  }
}

/** The one notice line for a remote folder (`dev@box:/srv/proj`) and the kinds of configuration found there (their nouns). */
export function remoteFolderLimitsNotice(label: string, found: readonly string[]): string {
  return `${label} is a remote folder: its own configuration (${found.join(', ')}) is not loaded in this version.`;
}

/**
 * The kinds of configuration the remote folder has of its own, by their nouns (a few looks
 * over its connection at every kind's places, for the notice to be given only when there is
 * something not loaded). Never rejects: a look that fails for another reason than the path
 * being absent is tried again (a connection lost just then is made anew on the next call),
 * then counts as absent.
 */
export async function remoteFolderConfiguration(files: Pick<Backend, 'stat' | 'ls' | 'readRaw'>, retryDelayMs = 500): Promise<string[]> {
  const look = async <T extends { error?: string }>(call: () => Promise<T>): Promise<T | null> => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await call().catch((err: unknown) => ({ error: String(err) }) as T);
      if (result.error === undefined) return result;
      if (/not found/i.test(result.error)) return null;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
    }
    return null;
  };
  // A place holds something: a folder with entries, a file (a shared JSON file: a value at the kind's key).
  const holds = async (kind: ConfigKind, place: string): Promise<boolean> => {
    const path = `/${place}`;
    const stat = await look(() => files.stat(path));
    if (stat === null) return false;
    if (stat.info?.isDir === true) return ((await look(() => files.ls(path)))?.entries?.length ?? 0) > 0;
    if (kind.jsonKey === undefined) return true;
    const raw = await look(() => files.readRaw(path));
    return raw?.data !== undefined && hasValueAt(new TextDecoder().decode(raw.data), kind.jsonKey);
  };
  // One look after another: the folder's connection is shared with the window's own requests.
  const found: string[] = [];
  for (const kind of CONFIG_KINDS) {
    for (const place of kind.projectPaths) {
      if (await holds(kind, place)) {
        found.push(kind.noun);
        break;
      }
    }
  }
  return [...new Set(found)];
}

function hasValueAt(text: string, key: string): boolean {
  try {
    const value: unknown = (JSON.parse(text) as Record<string, unknown> | null)?.[key];
    return value !== undefined && value !== null && (typeof value !== 'object' || Object.keys(value).length > 0);
  } catch {
    return false;
  }
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
