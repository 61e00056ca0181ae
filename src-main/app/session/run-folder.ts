// The project folder of `deepdesk run`, local or remote (SPEC §13): its backend (commands
// included), the sandbox its commands run in, and the text its thread is recorded under.

import { createSandbox } from '../../core/sandbox';
import type { Backend } from '../../core/backends/protocol';
import type { FolderSource } from '../../core/checkpoints/folder-source';
import { remoteFolderSource } from '../../core/checkpoints/remote-folder';
import { RemoteShellBackend } from '../../core/backends/remote/remote-shell';
import type { Sandbox } from '../../core/sandbox/types';
import { openFolderBackend, RemoteFolderError } from '../folders/folder-backend';
import { ContractError } from '../contract';
import { folderLocationText, remoteFolderLabel, type FolderLocation } from '../folders/folder-location';
import { remoteFolderConfiguration, remoteFolderLimitsNotice } from '../remote-folder';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';

export interface RunFolder {
  /** The local path or the ssh:// URL (the thread's folder). */
  text: string;
  /** Set for a local folder only: what reads the folder's configuration needs. */
  localPath?: string;
  /** What checkpoints record: the local path, or the remote folder's files over its connection. */
  checkpointFolder: string | FolderSource;
  backend: Backend;
  /** Where the agent's commands run sandboxed: this machine's, or the remote's bubblewrap. */
  sandbox?: Sandbox;
  close(): Promise<void>;
}

export async function openRunFolder(location: FolderLocation, options: { dataDir: string; env: NodeJS.ProcessEnv; say: (line: string) => void }): Promise<RunFolder> {
  const text = folderLocationText(location);
  if (location.kind === 'local') {
    // Every command of the agent runs sandboxed where a sandbox exists (SPEC §7).
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: location.path, dataDir: options.dataDir }));
    const opened = await openFolderBackend(location, { dataDir: options.dataDir, env: options.env, ...(sandbox ? { sandbox } : {}) });
    return { text, localPath: location.path, checkpointFolder: location.path, backend: opened.backend, ...(sandbox ? { sandbox } : {}), close: () => opened.close() };
  }
  const opened = await openFolderBackend(location, { dataDir: options.dataDir, env: options.env }).catch((err: unknown) => {
    // A remote folder that is not there, or is a file, is bad usage as a local one is.
    if (err instanceof RemoteFolderError && err.code !== 'failed') throw new ContractError(err.message, 'bad_request');
    throw err;
  });
  if (!(opened.shell instanceof RemoteShellBackend)) {
    await opened.close();
    throw new Error(`${remoteFolderLabel(location)} was opened without commands`);
  }
  const sandbox = opened.shell.sandbox;
  const found = await remoteFolderConfiguration(opened.backend);
  if (found.length > 0) options.say(remoteFolderLimitsNotice(remoteFolderLabel(location), found));
  return {
    text,
    checkpointFolder: remoteFolderSource(opened.shell.connection),
    backend: opened.backend,
    ...(sandbox ? { sandbox } : {}),
    close: () => opened.close(),
  };
}
