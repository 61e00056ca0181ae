// The git remote mount (SPEC §13) against real bare repositories: lazy clone, one commit
// per step, replay after a rejected push, conflicts, unreachable remotes, branches.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkGitUrl, redact } from './git-url';
import { withMountOperationTag, type GitMountBackend } from './git-mount';
import { git, makeRemote, openMount, pushFiles, remoteFile, remoteSubjects, tempDir } from './git-mount.test-support';

let root: string;
let mounts: GitMountBackend[];

beforeEach(() => {
  root = tempDir('gitmount');
  mounts = [];
});
afterEach(async () => {
  for (const m of mounts) await m.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function mount(url: string, cache = 'cache', extra: Parameters<typeof openMount>[2] = {}): GitMountBackend {
  const m = openMount(url, path.join(root, cache), extra);
  mounts.push(m);
  return m;
}

describe('git mount', () => {
  it('clones lazily, reads the remote, and commits one step as one commit seen by a second clone', async () => {
    const bare = makeRemote(root, { 'README.md': 'hello\nworld\n', 'src/a.ts': 'export const a = 1;\n' });
    const m = mount(`file://${bare}`, 'cache', { prefix: '/docs/' });
    expect(fs.existsSync(path.join(root, 'cache'))).toBe(false);
    expect((await m.read('/README.md')).fileData?.content).toBe('hello\nworld');
    expect(m.branchName).toBe('main');
    expect((await m.ls('/')).entries?.map((e) => e.path)).toEqual(['/README.md', '/src/']);
    expect((await m.grep('const', '/')).matches).toEqual([{ path: '/src/a.ts', line: 1, text: 'export const a = 1;' }]);

    expect((await m.write('/notes/n.md', 'one\n')).error).toBeUndefined();
    expect((await m.edit('/README.md', 'world', 'there')).occurrences).toBe(1);
    expect(m.hasPending()).toBe(true);
    const step = await m.commitStep();
    expect(step).toMatchObject({ committed: true });
    expect(remoteSubjects(bare)).toEqual(['deepdesk: write_file /docs/notes/n.md edit_file /docs/README.md', 'seed']);
    expect(remoteFile(bare, 'README.md')).toBe('hello\nthere\n');
    expect(remoteFile(bare, 'notes/n.md')).toBe('one\n');
    // The Deepdesk identity (the test's git config has none).
    expect((await m.history())[0]).toMatchObject({ commit: step.commit, author: 'Deepdesk <deepdesk@localhost>', subject: 'deepdesk: write_file /docs/notes/n.md edit_file /docs/README.md' });

    const second = mount(`file://${bare}`, 'cache2');
    expect((await second.read('/notes/n.md')).fileData?.content).toBe('one');
    expect(await m.commitStep()).toEqual({ committed: false });
  });

  it('keeps the clone in the data folder with git apart from the work tree, and refuses .git paths', async () => {
    const bare = makeRemote(root, { 'a.txt': 'a\n' });
    const m = mount(bare);
    expect((await m.ls('/')).entries?.map((e) => e.path)).toEqual(['/a.txt']);
    expect(m.workTreeDir?.startsWith(path.join(root, 'cache'))).toBe(true);
    expect(fs.existsSync(path.join(m.workTreeDir!, '.git'))).toBe(false);
    expect((await m.write('/.git/config', '[core]\n\thooksPath = /tmp\n')).error).toMatch(/\.git folder/);
    expect((await m.read('/sub/.GIT/HEAD')).error).toMatch(/\.git folder/);
    expect((await m.uploadFiles([{ path: '/.git/hooks/pre-commit', content: new Uint8Array([1]) }]))[0]?.error).toBe('invalid_path');
    expect(m.hasPending()).toBe(false);
  });

  it('two mounts of one remote racing: the second push is rejected, fetched, replayed and pushed; both changes land', async () => {
    const bare = makeRemote(root, { 'shared.md': 'top\nmiddle\nbottom\n' });
    const a = mount(`file://${bare}`, 'a');
    const b = mount(`file://${bare}`, 'b');
    expect((await a.read('/shared.md')).error).toBeUndefined();
    expect((await b.read('/shared.md')).error).toBeUndefined();
    await a.edit('/shared.md', 'top', 'TOP');
    await b.edit('/shared.md', 'bottom', 'BOTTOM');
    await b.write('/b.md', 'from b\n');
    expect((await a.commitStep()).committed).toBe(true);
    const second = await b.commitStep();
    expect(second).toMatchObject({ committed: true });
    expect(second.failed).toBeUndefined();
    expect(remoteFile(bare, 'shared.md')).toBe('TOP\nmiddle\nBOTTOM\n');
    expect(remoteFile(bare, 'b.md')).toBe('from b\n');
    expect(remoteSubjects(bare)).toEqual(['deepdesk: edit_file /shared.md write_file /b.md', 'deepdesk: edit_file /shared.md', 'seed']);
    // b's copy now holds both.
    expect((await b.read('/shared.md')).fileData?.content).toBe('TOP\nmiddle\nBOTTOM');
  });

  it('an edit whose old text the other side removed fails with no commit for it; the step\'s other changes commit', async () => {
    const bare = makeRemote(root, { 'doc.md': 'alpha\nbeta\n' });
    const m = mount(`file://${bare}`);
    expect((await m.read('/doc.md')).error).toBeUndefined();
    pushFiles(bare, { 'doc.md': 'alpha\ngamma\n' });
    await withMountOperationTag('call-1', () => m.edit('/doc.md', 'beta', 'BETA'));
    const alone = await m.commitStep();
    expect(alone.committed).toBe(false);
    expect(alone.error).toBeUndefined();
    expect(alone.failed).toEqual([
      { tool: 'edit_file', path: '/doc.md', tag: 'call-1', error: expect.stringMatching(/^edit_file \/doc\.md was not committed \(.*remote\.git changed meanwhile\): String not found in file: 'beta'/) as unknown },
    ]);
    expect(remoteSubjects(bare)).toEqual(['other', 'seed']);
    expect((await m.read('/doc.md')).fileData?.content).toBe('alpha\ngamma');

    pushFiles(bare, { 'doc.md': 'alpha\ndelta\n' });
    await m.edit('/doc.md', 'gamma', 'GAMMA');
    await m.write('/new.md', 'kept\n');
    const mixed = await m.commitStep();
    expect(mixed.committed).toBe(true);
    expect(mixed.failed?.map((f) => f.path)).toEqual(['/doc.md']);
    expect(remoteSubjects(bare)[0]).toBe('deepdesk: write_file /new.md');
    expect(remoteFile(bare, 'doc.md')).toBe('alpha\ndelta\n');
  });

  it('sees another writer\'s pushes on the next read once the refresh interval passed', async () => {
    const bare = makeRemote(root, { 'x.md': 'one\n' });
    const m = mount(`file://${bare}`, 'cache', { refreshIntervalMs: 0 });
    expect((await m.read('/x.md')).fileData?.content).toBe('one');
    pushFiles(bare, { 'x.md': 'two\n', 'y.md': 'new\n' });
    expect((await m.read('/x.md')).fileData?.content).toBe('two');
    expect((await m.glob('*.md')).matches?.map((f) => f.path)).toEqual(['/x.md', '/y.md']);
  });

  it('an empty remote works: the first step creates the branch', async () => {
    const bare = makeRemote(root);
    const m = mount(`file://${bare}`);
    expect((await m.ls('/')).entries).toEqual([]);
    await m.write('/first.md', 'hi\n');
    expect((await m.commitStep()).committed).toBe(true);
    expect(remoteSubjects(bare)).toEqual(['deepdesk: write_file /first.md']);
  });

  it('#BRANCH mounts that branch; a branch the remote lacks starts empty and is created by the first step', async () => {
    const bare = makeRemote(root, { 'main.md': 'main\n' });
    pushFiles(bare, { 'dev.md': 'dev\n' }, 'main', 'more');
    git(['--git-dir', bare, 'branch', 'dev', 'main~1']);
    pushFiles(bare, { 'only-dev.md': 'd\n' }, 'dev', 'dev work');
    const dev = mount(`file://${bare}`, 'c1', { branch: 'dev' });
    expect((await dev.ls('/')).entries?.map((e) => e.path)).toEqual(['/main.md', '/only-dev.md']);
    await dev.write('/x.md', 'x\n');
    expect((await dev.commitStep()).committed).toBe(true);
    expect(remoteFile(bare, 'x.md', 'dev')).toBe('x\n');
    expect(remoteFile(bare, 'x.md', 'main')).toBeNull();

    const fresh = mount(`file://${bare}`, 'c2', { branch: 'agent/notes' });
    expect((await fresh.ls('/')).entries).toEqual([]);
    await fresh.write('/n.md', 'n\n');
    expect((await fresh.commitStep()).committed).toBe(true);
    expect(remoteSubjects(bare, 'agent/notes')).toEqual(['deepdesk: write_file /n.md']);
  });

  it('an unreachable remote is an Error naming it, never a throw; the next step tries again', async () => {
    const missing = mount(`file://${root}/nowhere.git`);
    const read = await missing.read('/a.md');
    expect(read.error).toMatch(new RegExp(`^git remote file://${root}/nowhere\\.git is unreachable: `));

    const port = await closedPort();
    const http = mount(`https://user:s3cret@127.0.0.1:${port}/repo.git`, 'h');
    const res = await http.ls('/');
    expect(res.error).toMatch(new RegExp(`^git remote https://127\\.0\\.0\\.1:${port}/repo\\.git is unreachable: `));
    expect(res.error).not.toContain('s3cret');
    expect(http.label).toBe(`https://127.0.0.1:${port}/repo.git`);

    // Becomes reachable: the next call clones.
    makeRemote(path.join(root), {});
    fs.renameSync(path.join(root, 'remote.git'), path.join(root, 'nowhere.git'));
    expect((await missing.ls('/')).entries).toEqual([]);
  });

  it('a push that cannot reach the remote is an Error; the commit is kept and pushed by the next step', async () => {
    const bare = makeRemote(root, { 'a.md': 'a\n' });
    const m = mount(`file://${bare}`);
    await m.read('/a.md');
    await m.write('/b.md', 'b\n');
    fs.renameSync(bare, `${bare}.away`);
    const failed = await m.commitStep();
    expect(failed.committed).toBe(false);
    expect(failed.error).toMatch(/^could not push to file:\/\/.*remote\.git: .*kept in the local copy/);
    fs.renameSync(`${bare}.away`, bare);
    expect((await m.commitStep()).committed).toBe(true);
    expect(remoteFile(bare, 'b.md')).toBe('b\n');
  });

  it('refuses URLs that would run a program or are not git remotes', () => {
    expect(checkGitUrl('ext::sh -c touch% /tmp/pwned').ok).toBe(false);
    expect(checkGitUrl('fd::17').ok).toBe(false);
    expect(checkGitUrl('-uhelp').ok).toBe(false);
    expect(checkGitUrl('ftp://host/x.git').ok).toBe(false);
    expect(checkGitUrl('relative/path').ok).toBe(false);
    expect(checkGitUrl('git@github.com:me/notes.git')).toMatchObject({ ok: true, transport: 'ssh' });
    expect(checkGitUrl('/srv/notes.git')).toMatchObject({ ok: true, transport: 'file' });
    expect(redact('https://me:tok@host/x.git')).toBe('https://host/x.git');
    expect(redact('ssh://me:pw@host/x.git')).toBe('ssh://me@host/x.git');
  });

  it('a refused URL is an Error from every operation', async () => {
    const m = mount('ext::sh -c id');
    expect((await m.read('/a')).error).toMatch(/transport helper/);
    expect(await m.commitStep()).toEqual({ committed: false });
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
