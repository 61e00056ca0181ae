// A RemoteBackend over the test sshd (testing/sshd.ts) on a fresh local temp folder: the
// remote is this machine, so tests set up and check the folder with node:fs.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RemoteBackend, type RemoteBackendOptions } from '../remote-backend';
import { SshConnection } from '../ssh-connection';
import { parseSshTarget } from '../ssh-target';
import type { TestSshd } from './sshd';

export interface TestRemoteFolder {
  /** The folder's real path (local and remote alike). */
  dir: string;
  backend: RemoteBackend;
  connection: SshConnection;
  remove(): void;
}

export function openTestRemoteFolder(sshd: TestSshd, options: Omit<RemoteBackendOptions, 'connection'> = {}): TestRemoteFolder {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-remote-')));
  const connection = new SshConnection({ target: parseSshTarget(sshd.folderUrl(dir)), controlDir: path.join(sshd.dir, 'cm'), sshCommand: sshd.sshCommand });
  return {
    dir,
    connection,
    backend: new RemoteBackend({ connection, ...options }),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
