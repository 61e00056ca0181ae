// The backend of a project folder wherever it lives (SPEC §13): what every command and the
// window open for `--folder` / Open folder. A local folder gets today's backends; a remote one
// one SshConnection (the system ssh, one master per folder), its folder checked on the remote
// before anything is built on it.

import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilesystemBackend } from '../../core/backends/filesystem/filesystem';
import { LocalShellBackend } from '../../core/backends/filesystem/local-shell';
import type { Backend, ShellBackend } from '../../core/backends/protocol';
import { RemoteBackend } from '../../core/backends/remote/remote-backend';
import { createRemoteSandbox } from '../../core/backends/remote/remote-sandbox';
import { RemoteShellBackend } from '../../core/backends/remote/remote-shell';
import { SshConnection } from '../../core/backends/remote/ssh-connection';
import { shQuote } from '../../core/text/shell-quote';
import type { Sandbox } from '../../core/sandbox/types';
import { remoteFolderLabel, type FolderLocation, type SshFolderLocation } from './folder-location';

export interface FolderBackendOptions {
  /** The data folder (the ssh control sockets live below it when its path is short enough). */
  dataDir: string;
  /** Run commands (a ShellBackend) or not. Default true. */
  execute?: boolean;
  /** Local commands run inside it (SPEC §7). */
  sandbox?: Sandbox;
  /** A remote folder's commands run in the remote's bubblewrap when it has one. Default true. */
  remoteSandbox?: boolean;
  /** The ssh command (default: DEEPDESK_SSH_COMMAND, else `ssh`). */
  sshCommand?: string;
  env?: NodeJS.ProcessEnv;
}

export interface OpenedFolderBackend {
  backend: Backend;
  /** The same backend when it runs commands. */
  shell?: ShellBackend;
  close(): Promise<void>;
}

/** Why a remote folder cannot be opened, in words for the person; `code` as the contract's errors have it. */
export class RemoteFolderError extends Error {
  constructor(
    message: string,
    readonly code: 'not_found' | 'bad_request' | 'failed',
  ) {
    super(message);
  }
}

/**
 * Opens the folder's backend. A remote folder is connected and checked first: an unreachable
 * host, a refused host key or a missing folder reject with the reason (SshConnectionError or
 * RemoteFolderError), naming the host.
 */
export async function openFolderBackend(location: FolderLocation, options: FolderBackendOptions): Promise<OpenedFolderBackend> {
  if (location.kind === 'local') {
    if (options.execute === false) return { backend: new FilesystemBackend({ rootDir: location.path }), close: async () => undefined };
    const shell = new LocalShellBackend({ rootDir: location.path, ...(options.sandbox ? { sandbox: options.sandbox } : {}) });
    return { backend: shell, shell, close: async () => undefined };
  }
  const connection = await connectRemoteFolder(location, options);
  if (options.execute === false) return { backend: new RemoteBackend({ connection }), close: () => connection.close() };
  try {
    // Commands run in the remote's bubblewrap when it has one; else the backend has no sandbox
    // (the header reads `Not sandboxed` and commands ask, SPEC §7).
    const sandbox = options.remoteSandbox === false ? undefined : await createRemoteSandbox(connection, { projectDir: location.target.path, dataDir: '' });
    const shell = new RemoteShellBackend({ connection, ...(sandbox ? { sandbox } : {}) });
    return { backend: shell, shell, close: () => connection.close() };
  } catch (err) {
    await connection.close();
    throw err;
  }
}

/** One connection for the folder, its folder checked on the remote (it exists, is a folder, can be listed). */
export async function connectRemoteFolder(location: SshFolderLocation, options: FolderBackendOptions): Promise<SshConnection> {
  const connection = new SshConnection({
    target: location.target,
    controlDir: sshControlDir(options.dataDir),
    ...(options.sshCommand !== undefined ? { sshCommand: options.sshCommand } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
  try {
    await checkRemoteFolder(connection, location);
    return connection;
  } catch (err) {
    await connection.close();
    throw err;
  }
}

const CHECK_SCRIPT = (path: string) =>
  `p=${shQuote(path)}
if [ -d "$p" ]; then if [ -r "$p" ] && [ -x "$p" ]; then echo ok; else echo denied; fi
elif [ -e "$p" ]; then echo file
else echo missing; fi`;

async function checkRemoteFolder(connection: SshConnection, location: SshFolderLocation): Promise<void> {
  const label = remoteFolderLabel(location);
  const { code, stdout, stderr } = await connection.run(CHECK_SCRIPT(location.target.path), { timeoutMs: 60_000 });
  const answer = stdout.toString('utf8').trim();
  if (code === 0 && answer === 'ok') return;
  if (answer === 'missing') throw new RemoteFolderError(`There is no folder at ${label}.`, 'not_found');
  if (answer === 'file') throw new RemoteFolderError(`${label} is a file, not a folder. Choose the folder that holds it.`, 'bad_request');
  if (answer === 'denied') throw new RemoteFolderError(`${label} cannot be opened: permission denied.`, 'failed');
  throw new RemoteFolderError(`${label} cannot be opened: the remote shell said ${JSON.stringify((stderr.trim() || answer).slice(0, 200))} (exit ${code})`, 'failed');
}

/**
 * Where the folder connections' control sockets live. Whoever can reach a master's socket runs
 * commands on the remote with the person's login, so it must be where a sandboxed command
 * cannot go: `<data-dir>/ssh` (the sandbox hides the data folder) when a socket path fits there
 * (sockets have a ~100-byte limit; a connection's socket name is 16 characters, and ssh binds it
 * first with 17 more: 40 leaves room), else `/tmp/deepdesk-ssh-UID-HASH`
 * (the sandbox hides /tmp's socket folders of that name: policy.ts TMP_SOCKET_DIRS), which
 * SshConnection refuses unless it is the person's own and closed to everyone else.
 */
export function sshControlDir(dataDir: string): string {
  const inData = join(dataDir, 'ssh');
  if (Buffer.byteLength(inData) + 1 + 40 <= 100) return inData;
  const uid = process.getuid?.() ?? 0;
  return join(process.platform === 'win32' ? tmpdir() : '/tmp', `deepdesk-ssh-${uid}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
}
