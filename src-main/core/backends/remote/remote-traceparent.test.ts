// TRACEPARENT on a remote folder (SPEC §17, §13): the variable reaches the command on the
// remote (the real sshd on 127.0.0.1), in and out of the remote sandbox; a malformed value,
// shell syntax included, does not.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteSandbox } from './remote-sandbox';
import { RemoteShellBackend } from './remote-shell';
import { openTestRemoteFolder, type TestRemoteFolder } from './testing/remote-folder';
import { startTestSshd, type TestSshd } from './testing/sshd';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const PRINT = 'printf "[%s]" "${TRACEPARENT:-none}"';

let sshd: TestSshd;
let folder: TestRemoteFolder;

beforeAll(async () => {
  sshd = await startTestSshd();
  folder = openTestRemoteFolder(sshd);
}, 30_000);

afterAll(async () => {
  folder?.remove();
  await folder?.connection.close();
  await sshd?.dispose();
});

describe('RemoteShellBackend passes TRACEPARENT', () => {
  it('to the remote command, sandboxed or not; never a malformed value', async () => {
    const sandbox = await createRemoteSandbox(folder.connection, { projectDir: folder.dir, dataDir: '' });
    const backend = new RemoteShellBackend({ connection: folder.connection, ...(sandbox ? { sandbox } : {}) });
    for (const options of [{}, { sandbox: false }]) {
      expect((await backend.execute(PRINT, { ...options, traceparent: TRACEPARENT })).output).toBe(`[${TRACEPARENT}]`);
      expect((await backend.execute(PRINT, options)).output).toBe('[none]');
      const injected = `${TRACEPARENT}'; touch pwned; '`;
      expect((await backend.execute(PRINT, { ...options, traceparent: injected })).output).toBe('[none]');
      expect(fs.existsSync(path.join(folder.dir, 'pwned'))).toBe(false);
    }
  });
});
