// Opening a folder's backend wherever it lives (SPEC §13): a local folder gets today's
// backends; a remote one is connected over the system ssh to a real sshd on 127.0.0.1 (the
// remote is this machine, so its folders are temp folders made here) and checked there.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemBackend } from '../../core/backends/filesystem/filesystem';
import { TMP_SOCKET_DIRS } from '../../core/sandbox/policy';
import { isShellBackend } from '../../core/backends/protocol';
import { SshConnectionError } from '../../core/backends/remote/ssh-connection';
import { startTestSshd, type TestSshd } from '../../core/backends/remote/testing/sshd';
import { openFolderBackend, RemoteFolderError, sshControlDir } from './folder-backend';
import { sshFolderLocation } from './folder-location';

let sshd: TestSshd;
let root: string;

beforeAll(async () => {
  sshd = await startTestSshd();
  root = mkdtempSync(join(tmpdir(), 'deepdesk-folder-backend-'));
});
afterAll(async () => {
  await sshd?.dispose();
  rmSync(root, { recursive: true, force: true });
});

const options = () => ({ dataDir: join(root, 'data'), sshCommand: sshd.sshCommand });

describe('openFolderBackend', () => {
  it('gives a local folder today’s backends: files only, or with commands', async () => {
    const folder = join(root, 'local');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.txt'), 'a\n');
    const files = await openFolderBackend({ kind: 'local', path: folder }, { ...options(), execute: false });
    expect(files.backend).toBeInstanceOf(FilesystemBackend);
    expect(isShellBackend(files.backend)).toBe(false);
    expect(files.shell).toBeUndefined();
    expect((await files.backend.ls('/')).entries?.map((e) => e.path)).toEqual(['/a.txt']);
    const shell = await openFolderBackend({ kind: 'local', path: folder }, options());
    expect(shell.shell).toBe(shell.backend);
    expect((await shell.shell!.execute('cat a.txt')).output.trim()).toBe('a');
  });

  it('checks a remote folder over ssh and says, naming the host, when it is not there or is a file', async () => {
    const missing = join(root, 'not here');
    const err = await openFolderBackend(sshFolderLocation(sshd.folderUrl(missing.split('/').map(encodeURIComponent).join('/'))), options()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteFolderError);
    expect(err).toMatchObject({ message: `There is no folder at deepdesk-test:${missing}.`, code: 'not_found' });

    const file = join(root, "it's a file.txt");
    writeFileSync(file, 'x\n');
    const url = sshd.folderUrl(file.split('/').map(encodeURIComponent).join('/'));
    await expect(openFolderBackend(sshFolderLocation(url), options())).rejects.toMatchObject({
      message: `deepdesk-test:${file} is a file, not a folder. Choose the folder that holds it.`,
      code: 'bad_request',
    });
  });

  it('opens a remote folder that is there: its files and commands are the folder on the remote', async () => {
    const folder = join(root, 'remote "proj" $x');
    mkdirSync(folder);
    const url = sshd.folderUrl(folder.split('/').map(encodeURIComponent).join('/'));
    const opened = await openFolderBackend(sshFolderLocation(url), options());
    try {
      expect(await opened.backend.write('/a.txt', 'hi\n')).toEqual({ path: '/a.txt' });
      expect(readFileSync(join(folder, 'a.txt'), 'utf8')).toBe('hi\n');
      const r = await opened.shell!.execute('cat a.txt');
      // The last line: a login shell's rc files may print first (this machine's pyenv does, in the sandbox).
      expect(r.output.trim().split('\n').at(-1)).toBe('hi');
      expect(r.exitCode).toBe(0);
    } finally {
      await opened.close();
    }
    const filesOnly = await openFolderBackend(sshFolderLocation(url), { ...options(), execute: false });
    expect(filesOnly.shell).toBeUndefined();
    expect((await filesOnly.backend.ls('/')).entries?.map((e) => e.path)).toEqual(['/a.txt']);
    await filesOnly.close();
  });

  it('a host that cannot be reached is an SshConnectionError naming it', async () => {
    await sshd.stop();
    try {
      const err = await openFolderBackend(sshFolderLocation(sshd.folderUrl('/tmp')), options()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SshConnectionError);
      expect((err as Error).message).toContain('deepdesk-test');
    } finally {
      await sshd.start();
    }
  });
});

describe('sshControlDir', () => {
  it('keeps the control sockets in the data folder when a socket path fits there, else in a /tmp folder the sandbox hides', () => {
    expect(sshControlDir('/home/ann/.deepdesk')).toBe('/home/ann/.deepdesk/ssh');
    const deep = `/home/ann/${'very-long-folder-name/'.repeat(5)}data`;
    const elsewhere = sshControlDir(deep);
    expect(elsewhere.startsWith('/tmp/deepdesk-ssh-')).toBe(true);
    // The local sandbox hides /tmp folders of this name from commands (a master socket runs commands on the remote).
    expect(TMP_SOCKET_DIRS.test(basename(elsewhere))).toBe(true);
    expect(Buffer.byteLength(elsewhere) + 41).toBeLessThanOrEqual(100);
    expect(sshControlDir(deep)).toBe(elsewhere);
    expect(sshControlDir(`${deep}2`)).not.toBe(elsewhere);
  });
});
