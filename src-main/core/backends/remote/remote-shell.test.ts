// The remote folder as the agent's ShellBackend: its commands and its files are the same
// folder on the remote, and its sandbox is the remote's bubblewrap.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteSandbox } from './remote-sandbox';
import { RemoteShellBackend } from './remote-shell';
import { openTestRemoteFolder, type TestRemoteFolder } from './testing/remote-folder';
import { startTestSshd, type TestSshd } from './testing/sshd';

let sshd: TestSshd;
let folder: TestRemoteFolder;

beforeAll(async () => {
  sshd = await startTestSshd();
  folder = openTestRemoteFolder(sshd);
});
afterAll(async () => {
  folder?.remove();
  await folder?.connection.close();
  await sshd?.dispose();
});

describe('RemoteShellBackend', () => {
  it('runs commands in the remote folder, whose files the file tools then see', async () => {
    const backend = new RemoteShellBackend({ connection: folder.connection });
    const r = await backend.execute('printf "made by a command\\n" > made.txt && pwd && exit 3');
    expect(r.exitCode).toBe(3);
    expect(r.output.trim()).toBe(folder.dir);
    const read = await backend.read('/made.txt', 0, 10);
    expect(read.fileData?.content).toBe('made by a command');
  });

  it('runs them in the remote bubblewrap when it is given one: the folder is writable, what is outside is not', async () => {
    const sandbox = await createRemoteSandbox(folder.connection, { projectDir: folder.dir, dataDir: '' });
    expect(sandbox).toBeDefined();
    const backend = new RemoteShellBackend({ connection: folder.connection, sandbox: sandbox! });
    const outside = path.join(path.dirname(folder.dir), `${path.basename(folder.dir)}-outside`);
    const r = await backend.execute(`echo in > inside.txt; echo out > '${outside}'; echo done`);
    expect(fs.readFileSync(path.join(folder.dir, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(fs.existsSync(outside)).toBe(false);
    expect(r.output).toContain('done');
    const unsandboxed = await backend.execute(`echo out > '${outside}'`, { sandbox: false });
    expect(unsandboxed.exitCode).toBe(0);
    expect(fs.readFileSync(outside, 'utf8')).toBe('out\n');
    fs.rmSync(outside);
  });

  it("a command's bash, sandboxed or not, is not one sshd started: it reads no ~/.bashrc (SHLVL above 1)", async () => {
    const sandbox = await createRemoteSandbox(folder.connection, { projectDir: folder.dir, dataDir: '' });
    const backend = new RemoteShellBackend({ connection: folder.connection, sandbox: sandbox! });
    for (const options of [{}, { sandbox: false }]) {
      const r = await backend.execute('echo "level $SHLVL"', options);
      expect(Number(/^level (\d+)$/m.exec(r.output)?.[1])).toBeGreaterThanOrEqual(2);
    }
  });
});
