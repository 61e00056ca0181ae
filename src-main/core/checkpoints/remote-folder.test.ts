// Checkpoints of a remote folder, against a real sshd on this machine (the remote folder is
// a local temp folder, so the test sets it up and checks it with node:fs): the remote walk
// sees exactly what the local walk sees, and the agent's writes and commands are recorded
// in the local data folder.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RemoteShellBackend } from '../backends/remote/remote-shell';
import { openTestRemoteFolder, type TestRemoteFolder } from '../backends/remote/testing/remote-folder';
import { startTestSshd, type TestSshd } from '../backends/remote/testing/sshd';
import type { FolderSource } from './folder-source';
import { CheckpointRecorder, type StepInfo } from './recorder';
import { remoteFolderSource } from './remote-folder';
import { scanFolderSliced, sha256 } from './scan';
import { CheckpointStore } from './store';
import type { ManifestRow } from './types';

let sshd: TestSshd;
let folder: TestRemoteFolder;
let source: FolderSource;
let dataDir: string;
let store: CheckpointStore;

beforeAll(async () => {
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});
beforeEach(() => {
  folder = openTestRemoteFolder(sshd);
  source = remoteFolderSource(folder.connection);
  dataDir = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-rcp-data-'));
  store = CheckpointStore.open(dataDir);
});
afterEach(async () => {
  store.close();
  await folder.connection.close();
  folder.remove();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const p = (rel: string): string => path.join(folder.dir, rel);
const write = (rel: string, data: string | Buffer, mode?: number): void => {
  fs.mkdirSync(path.dirname(p(rel)), { recursive: true });
  fs.writeFileSync(p(rel), data);
  if (mode !== undefined) fs.chmodSync(p(rel), mode);
};
const info: StepInfo = { threadId: 't1', messageIndex: 0, messageLine: 'do it', tool: 'write_file' };
const states = (rows: ReadonlyMap<string, ManifestRow | null>): Record<string, string> =>
  Object.fromEntries([...rows].filter(([, r]) => r !== null).map(([rel, r]) => [rel, `${r!.type} ${r!.mode.toString(8)} ${r!.type === 'i' ? '' : r!.hash}`]));

describe('remote folder checkpoints', () => {
  it('the remote walk records what the local walk records: files, modes, links, CRLF, binary, .gitignore, dependency folders, .git skipped', async () => {
    execFileSync('git', ['init', '-q'], { cwd: folder.dir });
    write('crlf.txt', 'one\r\ntwo\r\n');
    write('bin.dat', Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]));
    write('run.sh', '#!/bin/sh\n', 0o755);
    write('name with spaces\nand a newline.txt', 'odd\n');
    write('-leading-dash.txt', 'dash\n');
    write('sub/deep/file.md', '# deep\n');
    write('.gitignore', 'dist/\n*.log\n');
    write('dist/bundle.js', 'ignored\n');
    write('debug.log', 'ignored too\n');
    write('node_modules/pkg/index.js', 'dependency\n');
    write('sub/.gitignore', 'local-only.txt\n');
    write('sub/local-only.txt', 'ignored by the nested .gitignore\n');
    fs.mkdirSync(p('empty'));
    fs.symlinkSync('crlf.txt', p('link'));
    fs.symlinkSync('/definitely/outside', p('dangling'));

    const remote = await source.walk(new Map(), false);
    const local = await scanFolderSliced(folder.dir, new Map(), false);
    expect(states(remote.manifest)).toEqual(states(local.manifest));
    expect(Object.keys(states(remote.manifest))).toEqual(expect.arrayContaining(['dist', 'debug.log', 'node_modules', 'sub/local-only.txt', 'name with spaces\nand a newline.txt', '-leading-dash.txt']));
    expect(remote.manifest.get('dist')?.type).toBe('i');
    expect([...remote.manifest.keys()].some((rel) => rel === '.git' || rel.startsWith('.git/') || rel.startsWith('node_modules/'))).toBe(false);
    expect([...remote.blobs.keys()].sort()).toEqual([...local.blobs.keys()].sort());
  });

  it('a second walk fetches nothing for unchanged files and reports exactly what changed, a change inside an ignored folder included', async () => {
    write('a.txt', 'a\n');
    write('b.txt', 'b\n');
    write('node_modules/x.js', 'x\n');
    const first = await source.walk(new Map(), false);
    const manifest = new Map([...first.manifest].filter((e): e is [string, ManifestRow] => e[1] !== null));
    // Files hashed within the same tick are re-read once (racy); let their times fall behind the clock.
    for (const row of manifest.values()) row.hashedAt += 1000;
    write('b.txt', 'B changed\n');
    write('node_modules/y.js', 'y\n');
    write('c.txt', 'c\n');
    fs.rmSync(p('a.txt'));
    const second = await source.walk(manifest, true);
    expect(second.changes.map((c) => `${c.path} ${c.before === null ? 'added' : c.after === null ? 'deleted' : 'modified'}`)).toEqual(['a.txt deleted', 'b.txt modified', 'c.txt added', 'node_modules modified']);
    expect([...second.blobs.keys()].sort()).toEqual([sha256('B changed\n'), sha256('c\n')].sort());
  });

  it('records an agent write and a command’s changes on the remote in the local data folder, keyed by the ssh:// URL', async () => {
    write('keep.txt', 'keep\n');
    write('edit.txt', 'before\n');
    const recorder = new CheckpointRecorder(store, source);
    expect(recorder.root).toMatch(/^ssh:\/\/deepdesk-test\//);
    await recorder.prepareBaseline();

    const wrote = await recorder.step(info, ['edit.txt'], async () => {
      await folder.backend.write('/edit.txt', 'after\n');
    });
    expect(wrote.changes.map((c) => c.path)).toEqual(['edit.txt']);
    expect(wrote.checkpoint?.folder).toBe(recorder.root);
    expect(store.blob(wrote.changes[0]!.before!.hash)?.toString()).toBe('before\n');

    const shell = new RemoteShellBackend({ connection: folder.connection });
    const ran = await recorder.step({ ...info, tool: 'execute' }, 'command', () => shell.execute('mkdir -p made && echo new > made/new.txt && rm keep.txt'));
    expect(ran.result.exitCode).toBe(0);
    expect(ran.changes.map((c) => `${c.path} ${c.before === null ? 'added' : c.after === null ? 'deleted' : 'modified'}`)).toEqual(['keep.txt deleted', 'made added', 'made/new.txt added']);
    expect(store.blob(ran.changes[0]!.before!.hash)?.toString()).toBe('keep\n');
  });

  it('never reads through a link: a folder linked to outside the project is recorded as a link, what is behind it neither listed nor kept', async () => {
    const outside = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-rcp-outside-'));
    try {
      fs.writeFileSync(path.join(outside, 'secret.txt'), 'not the project’s\n');
      fs.symlinkSync(outside, p('escape'));
      const recorder = new CheckpointRecorder(store, source);
      await recorder.prepareBaseline();
      const manifest = recorder.manifest();
      expect(manifest.get('escape')?.type).toBe('l');
      expect([...manifest.keys()].some((rel) => rel.startsWith('escape/'))).toBe(false);
      // A write step naming a path below the link: the step is walked instead, and nothing behind the link is read.
      const { states: seen, result } = await source.scanPaths(['escape', 'escape/secret.txt'], () => undefined);
      expect(seen.get('escape')?.type).toBe('l');
      expect(seen.get('escape/secret.txt')).toBeNull();
      expect([...result.blobs.values()].map(String)).not.toContain('not the project’s\n');
      expect(await source.throughLinks(['escape/secret.txt'])).toBe(true);
      expect(await source.throughLinks(['plain/file.txt'])).toBe(false);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
