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
import { CheckpointHistory } from './history';
import { CheckpointRecorder, recorderFor, type StepInfo } from './recorder';
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
    write(`${'long-folder-'.repeat(10)}/${'long-name-'.repeat(15)}.txt`, 'a path longer than a tar header holds\n');
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
    const ran = await recorder.step({ ...info, tool: 'execute' }, 'command', (attribution) => shell.execute('mkdir -p made && echo new > made/new.txt && rm keep.txt', { attribution }));
    expect(ran.result.exitCode).toBe(0);
    expect(ran.changes.map((c) => `${c.path} ${c.before === null ? 'added' : c.after === null ? 'deleted' : 'modified'}`)).toEqual(['keep.txt deleted', 'made added', 'made/new.txt added']);
    expect(store.blob(ran.changes[0]!.before!.hash)?.toString()).toBe('keep\n');
  });

  it('a lost connection never stops the agent’s step (it is not recorded); the next step records again, and a restore fails naming the host', async () => {
    write('a.txt', 'v1\n');
    const recorder = recorderFor(store, source);
    await recorder.prepareBaseline();
    const changed = await recorder.step(info, 'all', async () => write('a.txt', 'v2\n'));
    await sshd.stop();
    try {
      const lost = await recorder.step(info, 'all', async () => 'still done');
      expect(lost).toEqual({ result: 'still done', changes: [] });
      await expect(new CheckpointHistory(store).restoreTo(changed.checkpoint!.id, 'take-restore')).rejects.toThrow(/deepdesk-test/);
      expect(fs.readFileSync(p('a.txt'), 'utf8')).toBe('v2\n');
    } finally {
      await sshd.start();
    }
    const again = await recorder.step(info, 'all', async () => write('a.txt', 'v3\n'));
    expect(again.changes.map((c) => c.path)).toEqual(['a.txt']);
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

  describe('restore on the remote', () => {
    let home: string;
    let recorder: CheckpointRecorder;
    let history: CheckpointHistory;
    const LINK = 'goes through a link';
    const step = (fn: () => void): Promise<string> => recorder.step(info, 'all', async () => fn()).then((s) => s.checkpoint?.id ?? 'none');
    /** Every entry below `abs` with its content or link target. */
    const listing = (abs: string): Record<string, string> => {
      const out: Record<string, string> = {};
      const walk = (a: string, rel: string): void => {
        for (const name of fs.readdirSync(a).sort()) {
          const child = path.join(a, name);
          const r = rel ? `${rel}/${name}` : name;
          const st = fs.lstatSync(child);
          if (st.isSymbolicLink()) out[r] = `link ${fs.readlinkSync(child)}`;
          else if (st.isDirectory()) {
            out[r + '/'] = `dir ${(st.mode & 0o777).toString(8)}`;
            walk(child, r);
          } else out[r] = `file ${(st.mode & 0o777).toString(8)} ${fs.readFileSync(child).toString('base64')}`;
        }
      };
      walk(abs, '');
      return out;
    };
    const replaceByLink = (rel: string, target: string): void => {
      fs.rmSync(p(rel), { recursive: true, force: true });
      fs.symlinkSync(target, p(rel));
    };

    beforeEach(async () => {
      home = fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-rcp-home-'));
      fs.mkdirSync(path.join(home, '.ssh'));
      execFileSync('git', ['init', '-q'], { cwd: folder.dir });
      fs.mkdirSync(path.join(folder.dir, '.git', 'hooks'), { recursive: true });
      recorder = recorderFor(store, source);
      history = new CheckpointHistory(store);
      await recorder.prepareBaseline();
    });
    afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

    it('puts every kind of change back on the remote byte for byte (a history found by the ssh:// URL), and the restore can be undone', async () => {
      write('crlf.txt', 'one\r\ntwo\r\n');
      write('bin.dat', Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]));
      write('run.sh', '#!/bin/sh\n', 0o755);
      write('gone/deep/file.txt', 'will be deleted\n', 0o640);
      write('-dash and space.txt', 'odd\n');
      fs.symlinkSync('crlf.txt', p('link'));
      await step(() => {});
      const before = listing(folder.dir);
      const id = await step(() => {
        write('crlf.txt', 'one\r\nTWO\r\nthree\r\n');
        write('bin.dat', Buffer.from([9, 9, 0]));
        fs.chmodSync(p('run.sh'), 0o644);
        fs.rmSync(p('gone'), { recursive: true });
        fs.rmSync(p('-dash and space.txt'));
        fs.unlinkSync(p('link'));
        fs.symlinkSync('bin.dat', p('link'));
        write('made/new.txt', 'new\n');
      });
      const after = listing(folder.dir);
      const restored = await history.restoreTo(id, 'ask');
      expect(restored.conflicts).toEqual([]);
      expect(restored.skipped).toEqual([]);
      expect(listing(folder.dir)).toEqual(before);
      const undone = await history.undoRestore(restored.checkpoint!.id, 'ask');
      expect(undone.conflicts).toEqual([]);
      expect(listing(folder.dir)).toEqual(after);
    });

    it('a link to .git/hooks planted on the remote: restore and take-restore never install the hook', async () => {
      await step(() => write('x/post-checkout', '#!/bin/sh\necho v1\n', 0o755));
      const second = await step(() => write('x/post-checkout', '#!/bin/sh\necho v2\n', 0o755));
      const gitBefore = listing(path.join(folder.dir, '.git'));
      replaceByLink('x', '.git/hooks');
      const asked = await history.restoreTo(second, 'ask');
      expect(asked.applied).toBe(false);
      expect(asked.conflicts).toContainEqual(expect.objectContaining({ path: 'x/post-checkout', reason: LINK }));
      const forced = await history.restoreTo(second, 'take-restore');
      expect(forced.conflicts).toContainEqual(expect.objectContaining({ path: 'x/post-checkout', reason: LINK }));
      expect(forced.restored).not.toContain('x/post-checkout');
      expect(listing(path.join(folder.dir, '.git'))).toEqual(gitBefore);
      expect(fs.readlinkSync(p('x'))).toBe('.git/hooks');
    });

    it('a link to a folder outside the project (a home’s .ssh): nothing is written, read or kept there', async () => {
      await step(() => write('y/authorized_keys2', 'v1\n'));
      const second = await step(() => write('y/authorized_keys2', 'v2\n'));
      fs.writeFileSync(path.join(home, '.ssh', 'authorized_keys2'), 'SECRET KEY\n');
      const before = listing(home);
      replaceByLink('y', path.join(home, '.ssh'));
      const forced = await history.restoreTo(second, 'take-restore');
      expect(forced.conflicts).toEqual([{ path: 'y/authorized_keys2', reason: LINK, refused: true }]);
      expect(listing(home)).toEqual(before);
      expect(store.blob(sha256('SECRET KEY\n'))).toBeUndefined();
    });

    it('each operation refuses a link in a parent itself (one swapped in after the plan): nothing written, made or removed behind it', async () => {
      fs.writeFileSync(path.join(home, 'victim.txt'), 'keep me\n');
      fs.symlinkSync(home, p('swapped'));
      const before = listing(home);
      const results = await source.applyRestore([
        { op: 'unlink', rel: 'swapped/victim.txt' },
        { op: 'rmdir', rel: 'swapped/.ssh' },
        { op: 'mkdir', rel: 'swapped/made', mode: 0o755, replace: false },
        { op: 'put', rel: 'swapped/.ssh/authorized_keys', type: 'f', content: Buffer.from('planted\n'), mode: 0o600, replaceFolder: false },
        { op: 'put', rel: 'swapped/new/link', type: 'l', content: Buffer.from('/etc'), mode: 0o777, replaceFolder: false },
        { op: 'put', rel: 'fine/after.txt', type: 'f', content: Buffer.from('in step\n'), mode: 0o640, replaceFolder: false },
      ]);
      expect(results).toEqual(['link', 'link', 'link', 'link', 'link', 'ok']);
      expect(listing(home)).toEqual(before);
      expect(fs.readFileSync(p('fine/after.txt'), 'utf8')).toBe('in step\n');
      expect(fs.statSync(p('fine/after.txt')).mode & 0o777).toBe(0o640);
    });

    it('a dangling link as a parent: nothing is created where it points', async () => {
      await step(() => write('z/a/b.txt', 'v1\n'));
      const second = await step(() => write('z/a/b.txt', 'v2\n'));
      replaceByLink('z', path.join(home, 'missing'));
      const forced = await history.restoreTo(second, 'take-restore');
      expect(forced.conflicts).toContainEqual(expect.objectContaining({ path: 'z/a/b.txt', reason: LINK }));
      expect(fs.existsSync(path.join(home, 'missing'))).toBe(false);
    });

    it('never deletes through a link: what is behind it survives', async () => {
      fs.mkdirSync(p('w'));
      await step(() => {});
      const id = await step(() => {
        write('w/file.txt', 'agent\n');
        fs.mkdirSync(p('w/sub'));
      });
      fs.mkdirSync(path.join(home, 'keep', 'sub'), { recursive: true });
      fs.writeFileSync(path.join(home, 'keep', 'file.txt'), 'agent\n');
      const before = listing(home);
      replaceByLink('w', path.join(home, 'keep'));
      const forced = await history.restoreTo(id, 'take-restore');
      expect(forced.conflicts.map((c) => [c.path, c.reason])).toEqual([
        ['w/file.txt', LINK],
        ['w/sub', LINK],
      ]);
      expect(listing(home)).toEqual(before);
    });
  });
});
