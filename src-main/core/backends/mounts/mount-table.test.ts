// The mount table on real folders and a real bare git repository: local and read-only
// mounts in the composite (ls /, reads, refused writes with the mount's path), flags over
// Settings at the same prefix, Settings changes applying to the next call, a missing folder
// told and left out, and a git mount committing a step (history shows it).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitToolStep } from '../../agent/middleware/mount-steps';
import { makeRemote, remoteFile } from '../git-mount/git-mount.test-support';
import { parseMountSpec } from './mount-spec';
import { parseMountFlags } from './mount-flags';
import { MountTable, type SavedMount } from './mount-table';
import { createDefaultMounts } from './mounts';
import { readOnlyBackend } from './read-only';
import { StateBackend } from '../store/state';

let tmp: string;
let db: Database.Database;
const tables: MountTable[] = [];

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-mount-table-')));
  db = new Database(path.join(tmp, 'deepdesk.db'));
  for (const dir of ['project', 'docs', 'ref', 'other']) fs.mkdirSync(path.join(tmp, dir));
  fs.writeFileSync(path.join(tmp, 'docs', 'guide.md'), 'the guide\n');
  fs.writeFileSync(path.join(tmp, 'ref', 'api.md'), 'the api\n');
  fs.writeFileSync(path.join(tmp, 'other', 'other.md'), 'other\n');
});
afterEach(async () => {
  for (const t of tables.splice(0)) await t.close();
  db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function table(flags: string[], saved: () => readonly SavedMount[] = () => [], problems: string[] = []): MountTable {
  const t = new MountTable({ cacheRoot: path.join(tmp, 'data', 'mounts'), flags: parseMountFlags(flags, tmp), saved, onProblem: (m) => problems.push(m) });
  tables.push(t);
  return t;
}

const paths = (items: { path: string }[] | undefined) => (items ?? []).map((i) => i.path);

describe('readOnlyBackend', () => {
  it('passes reads through and refuses every change without touching the backend', async () => {
    const inner = new StateBackend();
    await inner.write('/a.md', 'a\n');
    const ro = readOnlyBackend(inner);
    expect((await ro.read('/a.md')).fileData?.content).toBe('a');
    expect((await ro.grep('a', '/')).matches).toEqual([{ path: '/a.md', line: 1, text: 'a' }]);
    expect(await ro.write('/b.md', 'b')).toEqual({ error: "'/b.md' is on a read-only mount" });
    expect(await ro.edit('/a.md', 'a', 'b')).toEqual({ error: "'/a.md' is on a read-only mount" });
    expect(await ro.delete('/a.md')).toEqual({ error: "'/a.md' is on a read-only mount" });
    expect(await ro.uploadFiles([{ path: '/c.md', content: new Uint8Array([1]) }])).toEqual([{ path: '/c.md', error: 'permission_denied' }]);
    expect(paths((await inner.ls('/')).entries)).toEqual(['/a.md']);
    expect((await inner.read('/a.md')).fileData?.content).toBe('a');
  });
});

describe('MountTable', () => {
  it('mounts local and read-only folders: ls / shows them, reads work, writes to ro: are refused with the mount path', async () => {
    const t = table(['/docs/=docs', '/ref/=ro:ref']);
    const mounts = createDefaultMounts({ folder: path.join(tmp, 'project'), db, execute: false, extraMounts: () => t.routes() });
    expect(paths((await mounts.backend.ls('/')).entries)).toEqual(['/docs/', '/memories/', '/ref/']);
    expect((await mounts.backend.read('/ref/api.md')).fileData?.content).toBe('the api');
    expect((await mounts.backend.write('/ref/new.md', 'x')).error).toBe("'/ref/new.md' is on a read-only mount");
    expect((await mounts.backend.edit('/ref/api.md', 'api', 'x')).error).toBe("'/ref/api.md' is on a read-only mount");
    expect(fs.readFileSync(path.join(tmp, 'ref', 'api.md'), 'utf8')).toBe('the api\n');
    expect(fs.existsSync(path.join(tmp, 'ref', 'new.md'))).toBe(false);
    expect(await mounts.backend.write('/docs/new.md', 'written\n')).toEqual({ path: '/docs/new.md' });
    expect(fs.readFileSync(path.join(tmp, 'docs', 'new.md'), 'utf8')).toBe('written\n');
    expect((await mounts.backend.grep('the', '/')).matches?.map((m) => m.path)).toEqual(['/docs/guide.md', '/ref/api.md']);
    // The mount never reaches outside its folder.
    expect((await mounts.backend.read('/docs/../other/other.md')).error).toMatch(/'\.\.'/);
    expect(t.list()).toEqual([
      { prefix: '/docs/', source: path.join(tmp, 'docs'), kind: 'local', readOnly: false, from: 'flag' },
      { prefix: '/ref/', source: `ro:${path.join(tmp, 'ref')}`, kind: 'local', readOnly: true, from: 'flag' },
    ]);
  });

  it('puts flags over Settings at the same prefix, and applies a Settings change to the next call', async () => {
    let saved: SavedMount[] = [
      { prefix: '/docs/', spec: path.join(tmp, 'other') },
      { prefix: '/more/', spec: `ro:${path.join(tmp, 'other')}` },
    ];
    const t = table(['/docs/=ro:docs'], () => saved);
    const mounts = createDefaultMounts({ folder: path.join(tmp, 'project'), db, execute: false, extraMounts: () => t.routes() });
    expect((await mounts.backend.read('/docs/guide.md')).fileData?.content).toBe('the guide');
    expect((await mounts.backend.write('/docs/x.md', 'x')).error).toMatch(/read-only mount/);
    expect(t.list().map((m) => [m.prefix, m.from, m.readOnly])).toEqual([
      ['/docs/', 'flag', true],
      ['/more/', 'settings', true],
    ]);
    const routes = t.routes();
    expect(t.routes()).toBe(routes); // unchanged: the same array (the composite keeps its sorted table)
    saved = [{ prefix: '/extra/', spec: path.join(tmp, 'ref') }];
    expect(paths((await mounts.backend.ls('/')).entries)).toEqual(['/docs/', '/extra/', '/memories/']);
    expect((await mounts.backend.read('/extra/api.md')).fileData?.content).toBe('the api');
    expect((await mounts.backend.ls('/more')).entries).toBeUndefined();
  });

  it('tells of a saved mount whose folder is gone (once) and leaves it out', async () => {
    const problems: string[] = [];
    const t = table([], () => [{ prefix: '/gone/', spec: path.join(tmp, 'nope') }], problems);
    expect(t.routes()).toEqual([]);
    expect(t.list()).toEqual([{ prefix: '/gone/', source: path.join(tmp, 'nope'), kind: 'local', readOnly: false, from: 'settings', problem: `folder not found: ${path.join(tmp, 'nope')}` }]);
    t.routes();
    expect(problems).toEqual([`The mount /gone/ is not mounted: folder not found: ${path.join(tmp, 'nope')}`]);
  });

  it('opens a git remote as a git mount under <data-dir>/mounts: a step is one commit, shown in its history', async () => {
    const bare = makeRemote(tmp, { 'readme.md': 'hello\n' });
    const t = table([`/kb/=git+file://${bare}`]);
    const mounts = createDefaultMounts({ folder: path.join(tmp, 'project'), db, execute: false, extraMounts: () => t.routes() });
    expect(t.list()).toEqual([{ prefix: '/kb/', source: `git+file://${bare}`, kind: 'git', readOnly: false, from: 'flag' }]);
    expect((await mounts.backend.read('/kb/readme.md')).fileData?.content).toBe('hello');
    expect(await mounts.backend.write('/kb/note.md', 'note\n')).toEqual({ path: '/kb/note.md' });
    const result = { text: 'Updated file /kb/note.md' };
    expect(await commitToolStep(t.gitMounts(), result)).toBe(result);
    const history = await t.history('/kb/');
    expect(history?.[0]?.subject).toMatch(/^deepdesk: write_file \/kb\/note\.md/);
    expect(history?.map((c) => c.subject).at(-1)).toBe('seed');
    expect(remoteFile(bare, 'note.md')).toBe('note\n');
    expect(fs.readdirSync(path.join(tmp, 'data', 'mounts')).length).toBeGreaterThan(0);
    expect(await t.history('/nope/')).toBeUndefined();
  });

  it('parses flags relative to the working folder and refuses one prefix given twice', () => {
    expect(parseMountFlags(['/d/=docs'], tmp)[0]).toEqual(parseMountSpec('/d/=docs', tmp));
    expect(() => parseMountFlags(['/d/=docs', '/d=ref'], tmp)).toThrow(/--mount|mounted twice/);
    expect(() => parseMountFlags(['/memories/x/=docs'], tmp)).toThrow(/--mount \/memories\/x\/=docs: \/memories\/ is Deepdesk's own folder/);
  });
});
