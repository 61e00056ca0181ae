// Where a session's files are and its commands run (SPEC §7, §13, §18): this machine, in its
// sandbox when it has one; an SSH remote, in the remote's bubblewrap when it has one; or a
// provider's sandbox, for a worktree folder marked to run there (app/sandboxes/). Every client
// opens its folder here, so a new place is one more kind of place.

import { realpathSync } from 'node:fs';
import type { ShellBackend } from '../../core/backends/protocol';
import { LocalShellBackend } from '../../core/backends/filesystem/local-shell';
import type { SshConnection } from '../../core/backends/remote/ssh-connection';
import type { FolderSource } from '../../core/checkpoints/folder-source';
import { remoteFolderSource } from '../../core/checkpoints/remote-folder';
import { createSandbox, detectSandbox, type SandboxAvailability } from '../../core/sandbox';
import type { Sandbox } from '../../core/sandbox/types';
import { folderSandboxPolicy } from '../../core/sandbox/protected-entry-files';
import { ContractError } from '../contract';
import { RemoteFolderError } from '../places/folder-backend';
import { folderLocationText, type FolderLocation } from '../places/folder-location';
import { openRemoteAppFolder, remoteFolderConfiguration, remoteFolderLimitsNotice, type RemoteAppFolder } from '../places/remote-folder';
import type Database from 'better-sqlite3';
import { PROVIDER_LABELS, type SandboxProviderName } from '../../core/sandbox-providers/provider';
import { SandboxStore } from '../sandboxes/sandbox-store';
import type { PlaceSandboxStatus } from '../modes/mode-service';
import { openSandboxPlace, type SandboxPlaceOptions, type SandboxPlaceState } from '../sandboxes/sandbox-place';

/** What opening a sandbox folder needs from the session: its records, Settings › Sandboxes and their keys, the ledger. */
export type PlaceSandboxes = { db: Database.Database } & Pick<SandboxPlaceOptions, 'settings' | 'savedKeys' | 'recordTime' | 'provider'>;

export interface SessionPlace {
  /** The local path or the ssh:// URL: the folder its threads are recorded under. */
  text: string;
  /** A local folder's real path: where its own configuration is read. Undefined for a remote folder. */
  localPath?: string;
  /** The folder's files and commands. */
  shell: ShellBackend;
  /** Where the agent's commands run contained (this machine's or the remote's bubblewrap). */
  sandbox?: Sandbox;
  /** Whether commands run in a sandbox here, and why not (the mode chooser and `--mode auto` say it). */
  sandboxStatus: PlaceSandboxStatus;
  /** A provider's sandbox the folder runs in (SPEC §18): `Runs in Daytona · sandbox ID`. */
  provider?: {
    name: SandboxProviderName;
    label: string;
    sandboxId: string;
    workdir: string;
    uploadSummary?: string;
    /** Where the sandbox stands (gone or removed: the thread's ways forward). */
    state(): SandboxPlaceState;
    /** Told when that changes. */
    onState(listener: (state: SandboxPlaceState) => void): () => void;
  };
  /** What checkpoints record: the local path, or the remote folder's files over its connection. */
  checkpointFolder: string | FolderSource;
  /** A remote folder: its label, connection and the person's login shell there. */
  remote?: RemoteAppFolder & { connection: SshConnection };
  close(): Promise<void>;
}

/** Whether the folder's commands are contained: an OS sandbox here or on the remote, or a provider's sandbox. */
export function placeContained(place: SessionPlace): boolean {
  return place.sandbox !== undefined || place.provider !== undefined;
}

/** What a client asks to open: a location, or a remote folder it opened already (the window's Open remote folder). */
export type PlaceRequest = FolderLocation | { kind: 'opened-remote'; remote: RemoteAppFolder; url: string };

export async function openSessionPlace(
  request: PlaceRequest,
  options: { dataDir: string; env: NodeJS.ProcessEnv; say: (line: string, kind?: 'info') => void; sandboxes?: PlaceSandboxes },
): Promise<SessionPlace> {
  if (request.kind === 'local') {
    const localPath = realpathSync(request.path);
    const store = options.sandboxes ? new SandboxStore(options.sandboxes.db) : undefined;
    const record = store?.get(localPath);
    if (store && record && options.sandboxes) {
      const { db: _db, ...sandboxes } = options.sandboxes;
      const listeners = new Set<(state: SandboxPlaceState) => void>();
      const opened = await openSandboxPlace({ record, store, dataDir: options.dataDir, env: options.env, say: options.say, ...sandboxes, onState: (state) => listeners.forEach((l) => l(state)) });
      return {
        text: request.path,
        localPath,
        shell: opened.shell,
        sandboxStatus: { available: true, kind: record.provider },
        provider: {
          name: record.provider,
          label: PROVIDER_LABELS[record.provider],
          sandboxId: opened.sandbox.id,
          workdir: opened.sandbox.workdir,
          ...(opened.uploadSummary !== undefined ? { uploadSummary: opened.uploadSummary } : {}),
          state: () => opened.state(),
          onState: (listener) => {
            listeners.add(listener);
            return () => listeners.delete(listener);
          },
        },
        // Checkpoints record the worktree, where every change comes back (a restore goes up when the folder opens next).
        checkpointFolder: request.path,
        close: () => opened.close(),
      };
    }
    // Every command of the agent runs sandboxed where a sandbox exists (SPEC §7).
    const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: localPath, dataDir: options.dataDir }));
    const sandboxStatus: SandboxAvailability = sandbox
      ? { available: true, kind: sandbox.kind }
      : await detectSandbox().then((d) => (d.available ? { available: false, reason: 'the sandbox could not be set up' } : d));
    return {
      text: request.path,
      localPath,
      shell: new LocalShellBackend({ rootDir: request.path, ...(sandbox ? { sandbox } : {}) }),
      ...(sandbox ? { sandbox } : {}),
      sandboxStatus,
      checkpointFolder: request.path,
      close: async () => undefined,
    };
  }
  const remote =
    request.kind === 'opened-remote'
      ? request.remote
      : await openRemoteAppFolder(request, { dataDir: options.dataDir, env: options.env }).catch((err: unknown) => {
          // A remote folder that is not there, or is a file, is bad usage as a local one is.
          if (err instanceof RemoteFolderError && err.code !== 'failed') throw new ContractError(err.message, 'bad_request');
          throw err;
        });
  const text = request.kind === 'opened-remote' ? request.url : folderLocationText(request);
  if (request.kind === 'ssh') {
    const found = await remoteFolderConfiguration(remote.shell);
    if (found.length > 0) options.say(remoteFolderLimitsNotice(remote.label, found));
  }
  const { sandbox, connection } = remote.shell;
  return {
    text,
    shell: remote.shell,
    ...(sandbox ? { sandbox } : {}),
    sandboxStatus: sandbox ? { available: true, kind: sandbox.kind } : { available: false, reason: `${remote.label} has no usable bubblewrap` },
    checkpointFolder: remoteFolderSource(connection),
    remote: { ...remote, connection },
    close: () => remote.close(),
  };
}
