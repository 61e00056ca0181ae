// `deepdesk memories` through the built bin (SPEC §25): each command on the project of
// `--folder`, versions and restore, proposals answered, imports from another agent, and
// `deepdesk tools` writing as a client that is no person. Real data folders, folders and git.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databasePath } from '../app/base/data-dir';
import { openDatabase } from '../core/backends/store/store';
import { openMemoriesStore } from '../core/backends/store/memory-store';
import { claudeProjectName } from '../core/memories/import-memories';
import { openMemoryBook } from '../core/memories/open-memory-book';
import { projectKeyOf } from '../core/memories/project-key';
import { proposedNotice, type MemoryWriter } from '../core/memories/memory-types';
import { asMemoryWriter } from '../core/memories/write-context';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-memories-cli');

/** Another project folder, and a home folder for imports. */
let other: string;
let home: string;
beforeEach(() => {
  other = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-memories-cli-other-')));
  home = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-memories-cli-home-')));
});
afterEach(() => {
  rmSync(other, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

async function ok(args: string[], input?: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await t.deepdesk(['memories', ...args], env, input);
  expect(r.code, `memories ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

/** A model's write through a thread's /memories/, made beside untrusted sources: proposed. */
async function propose(folder: string, thread: string, path: string, text: string): Promise<void> {
  const db = openDatabase(databasePath(t.dataDir));
  const opened = openMemoriesStore(undefined, db, () => undefined);
  try {
    const book = await openMemoryBook({ store: opened.store, db, projectKey: projectKeyOf(folder), review: () => 'person' });
    const writer: MemoryWriter = { kind: 'agent', thread, turn: 2, model: 'scripted-model' };
    const res = await asMemoryWriter({ writer, sources: () => ['read_file /README.md', 'execute npm test'], personText: () => 'look around' }, () =>
      book.forThread(thread).write(path, text));
    expect(res).toMatchObject({ proposed: true });
  } finally {
    await opened.store.close();
    db.close();
  }
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=p', '-c', 'user.email=p@example.com', ...args], { cwd, encoding: 'utf8' });
}

describe('deepdesk memories: scopes', () => {
  it("a project's memories are its own; global/ ones are every project's", async () => {
    await ok(['write', '/memories/style.md', '--folder', t.folder], 'Tabs.\n');
    await ok(['write', '/memories/global/me.md', '--folder', t.folder], 'I am Ada.\n');
    expect(await ok(['ls', '--folder', t.folder])).toBe('/memories/style.md\n/memories/global/me.md\n');
    expect(await ok(['ls', '--folder', other])).toBe('/memories/global/me.md\n');
    const elsewhere = await t.deepdesk(['memories', 'cat', '/memories/style.md', '--folder', other]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("'/memories/style.md' not found");
    expect(await ok(['cat', '/memories/global/me.md', '--folder', other])).toBe('I am Ada.\n');
    // The same name in the other project is another memory.
    await ok(['write', 'style.md', '--folder', other], 'Spaces.\n');
    expect(await ok(['cat', 'style.md', '--folder', t.folder])).toBe('Tabs.\n');
    expect(await ok(['cat', 'style.md', '--folder', other])).toBe('Spaces.\n');
  });

  it('a git repository, a folder inside it and its linked worktree are one project', async () => {
    git(t.folder, 'init', '-q');
    writeFileSync(join(t.folder, 'a.txt'), 'a\n');
    mkdirSync(join(t.folder, 'sub'));
    writeFileSync(join(t.folder, 'sub', 'b.txt'), 'b\n');
    git(t.folder, 'add', '-A');
    git(t.folder, 'commit', '-qm', 'init');
    const worktree = join(other, 'wt');
    git(t.folder, 'worktree', 'add', '-q', worktree);
    await ok(['write', '/memories/build.md', '--folder', worktree], 'npm run build\n');
    expect(await ok(['ls', '--folder', t.folder])).toBe('/memories/build.md\n');
    expect(await ok(['cat', 'build.md', '--folder', join(t.folder, 'sub')])).toBe('npm run build\n');
    // A folder outside the repository is another project.
    const outside = join(other, 'plain');
    mkdirSync(outside);
    expect(await ok(['ls', '--folder', outside])).toBe('');
  });

  it('without --folder, the current folder is the project', async () => {
    const r = await t.deepdesk(['memories', 'write', '/memories/here.md'], {}, 'x\n');
    expect(r.code, r.stderr).toBe(0);
    // The harness runs the bin in the repository: its project, not the test's folder.
    expect(await ok(['ls'])).toBe('/memories/here.md\n');
    expect(await ok(['ls', '--folder', t.folder])).toBe('');
  });
});

describe('deepdesk memories: versions', () => {
  it('log lists every version oldest first; restore brings one back as a new version', async () => {
    const folder = ['--folder', t.folder];
    await ok(['write', 'notes.md', ...folder], 'one\n');
    await ok(['write', 'notes.md', ...folder], 'two\n');
    await ok(['rm', 'notes.md', ...folder]);
    expect(await ok(['ls', ...folder])).toBe('');
    const log = lines(await ok(['log', '/memories/notes.md', ...folder]));
    expect(log).toHaveLength(3);
    expect(log[0]).toMatch(/^v1 {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}write {2}active {2}person$/);
    expect(log[1]).toMatch(/^v2 {2}\S+ {2}write {2}active {2}person$/);
    expect(log[2]).toMatch(/^v3 {2}\S+ {2}delete {2}deleted {2}person$/);
    // A delete keeps the history: any version can be read and brought back.
    expect(await ok(['cat', 'notes.md', '--version', '1', ...folder])).toBe('one\n');
    expect(await ok(['restore', 'notes.md', '--version', '1', ...folder])).toBe('Restored /memories/notes.md to version 1 (now version 4)\n');
    expect(await ok(['cat', 'notes.md', ...folder])).toBe('one\n');
    const json = JSON.parse(await ok(['log', 'notes.md', '--json', ...folder])) as Array<Record<string, unknown>>;
    expect(json.map((v) => [v.version, v.action, v.status, v.text])).toEqual([
      [1, 'write', 'active', 'one\n'],
      [2, 'write', 'active', 'two\n'],
      [3, 'delete', 'deleted', null],
      [4, 'restore', 'active', 'one\n'],
    ]);
    expect(json[3]).toEqual({ version: 4, action: 'restore', status: 'active', at: expect.any(String), writer: { kind: 'person' }, writerLabel: 'person', sources: [], text: 'one\n' });
    // Restoring the delete deletes again.
    await ok(['restore', 'notes.md', '--version', '3', ...folder]);
    expect(await ok(['ls', ...folder])).toBe('');
  });

  it("a memory kept before versions is its version 1, the person's", async () => {
    // Written straight into the store, as before SPEC §25 (the global scope is where those lived).
    const db = openDatabase(databasePath(t.dataDir));
    const opened = openMemoriesStore(undefined, db, () => undefined);
    try {
      await opened.store.write('/old.md', 'from before\n');
    } finally {
      await opened.store.close();
      db.close();
    }
    expect(lines(await ok(['log', '/memories/global/old.md', '--folder', t.folder]))).toEqual([expect.stringMatching(/^v1 {2}\S+ {2}write {2}active {2}person$/)]);
    const missing = await t.deepdesk(['memories', 'log', '/memories/never.md', '--folder', t.folder]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("'/memories/never.md' not found");
  });
});

describe('deepdesk memories: proposals', () => {
  it('a proposal is listed with its writer and sources, used nowhere until approved, and kept as approved', async () => {
    const folder = ['--folder', t.folder];
    await propose(t.folder, 'thread-a', '/deploys.md', 'Deploy with make ship.\n');
    expect(await ok(['ls', ...folder])).toBe('');
    expect(await ok(['ls', '--proposed', ...folder])).toBe(
      '/memories/deploys.md (proposed) version 1 by agent (thread thread-a, turn 2, scripted-model) from read_file /README.md, execute npm test\n',
    );
    expect((await t.deepdesk(['memories', 'cat', 'deploys.md', ...folder])).code).toBe(1);
    expect(await ok(['cat', 'deploys.md', '--version', '1', ...folder])).toBe('Deploy with make ship.\n');
    // Not another project's to answer.
    expect((await t.deepdesk(['memories', 'approve', 'deploys.md', '--folder', other])).code).toBe(1);

    expect(await ok(['approve', '/memories/deploys.md', ...folder])).toBe('Approved /memories/deploys.md (now version 2)\n');
    expect(await ok(['ls', ...folder])).toBe('/memories/deploys.md\n');
    expect(await ok(['cat', 'deploys.md', ...folder])).toBe('Deploy with make ship.\n');
    expect(await ok(['ls', '--proposed', ...folder])).toBe('');
    const log = JSON.parse(await ok(['log', 'deploys.md', '--json', ...folder])) as Array<Record<string, unknown>>;
    expect(log).toEqual([
      {
        version: 1, action: 'write', status: 'approved', at: expect.any(String),
        writer: { kind: 'agent', thread: 'thread-a', turn: 2, model: 'scripted-model' }, writerLabel: 'agent (thread thread-a, turn 2, scripted-model)',
        thread: 'thread-a', sources: ['read_file /README.md', 'execute npm test'], text: 'Deploy with make ship.\n',
      },
      { version: 2, action: 'approve', status: 'active', at: expect.any(String), writer: { kind: 'person' }, writerLabel: 'person', sources: [], text: 'Deploy with make ship.\n' },
    ]);
    expect(lines(await ok(['log', 'deploys.md', ...folder]))[0]).toMatch(
      /^v1 {2}\S+ {2}write {2}approved {2}agent \(thread thread-a, turn 2, scripted-model\) {2}sources: read_file \/README\.md, execute npm test$/,
    );
    // Nothing left to approve.
    const again = await t.deepdesk(['memories', 'approve', 'deploys.md', ...folder]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no proposed memory at deploys.md');
  });

  it('reject keeps the proposal in the history as rejected; --version answers one of several', async () => {
    const folder = ['--folder', t.folder];
    await ok(['write', 'style.md', ...folder], 'Tabs.\n');
    await propose(t.folder, 'thread-a', '/style.md', 'Spaces, always.\n');
    await propose(t.folder, 'thread-b', '/global/style.md', 'Use 2 spaces.\n');
    await propose(t.folder, 'thread-c', '/style.md', 'Spaces for YAML.\n');
    expect(lines(await ok(['ls', '--proposed', ...folder])).map((l) => l.split(' by ')[0])).toEqual([
      '/memories/style.md (proposed) version 2',
      '/memories/style.md (proposed) version 3',
      '/memories/global/style.md (proposed) version 1',
    ]);
    expect(await ok(['reject', 'style.md', '--version', '2', ...folder])).toBe('Rejected /memories/style.md\n');
    expect(await ok(['cat', 'style.md', ...folder])).toBe('Tabs.\n');
    expect(lines(await ok(['ls', '--proposed', ...folder])).map((l) => l.split(' by ')[0])).toEqual([
      '/memories/style.md (proposed) version 3',
      '/memories/global/style.md (proposed) version 1',
    ]);
    await ok(['reject', '/memories/global/style.md', ...folder]);
    await ok(['approve', 'style.md', ...folder]);
    expect(await ok(['cat', 'style.md', ...folder])).toBe('Spaces for YAML.\n');
    const statuses = (JSON.parse(await ok(['log', 'style.md', '--json', ...folder])) as Array<{ status: string }>).map((v) => v.status);
    expect(statuses).toEqual(['active', 'rejected', 'approved', 'active']);
    expect((JSON.parse(await ok(['log', 'global/style.md', '--json', ...folder])) as Array<{ status: string }>).map((v) => v.status)).toEqual(['rejected']);
    expect(await ok(['ls', '--folder', other])).toBe('');
  });

  it("deepdesk tools writes as a client, not the person: proposed, its own to read, the person's to approve", async () => {
    const session = await t.deepdesk(['tools', '--folder', t.folder], {}, [
      { tool: 'write_file', args: { file_path: '/memories/x.md', content: 'from a script\n' } },
      { tool: 'ls', args: { path: '/memories/' } },
      { tool: 'read_file', args: { file_path: '/memories/x.md' } },
    ].map((c) => JSON.stringify(c)).join('\n') + '\n');
    expect(session.code, session.stderr).toBe(0);
    const [wrote, listed, read] = lines(session.stdout).map((l) => (JSON.parse(l) as { output: string }).output);
    expect(wrote).toBe(proposedNotice('/memories/x.md'));
    expect(listed).toContain('/memories/x.md (proposed)');
    expect(read).toContain('from a script');
    // Another session sees none of it.
    const next = await t.deepdesk(['tools', '--folder', t.folder], {}, JSON.stringify({ tool: 'read_file', args: { file_path: '/memories/x.md' } }) + '\n');
    expect((JSON.parse(next.stdout) as { output: string }).output).toMatch(/^Error: /);
    expect(await ok(['ls', '--proposed', '--folder', t.folder])).toBe('/memories/x.md (proposed) version 1 by protocol client from deepdesk tools\n');
    await ok(['approve', 'x.md', '--folder', t.folder]);
    expect(await ok(['cat', 'x.md', '--folder', t.folder])).toBe('from a script\n');

    // With review off, every write is active at once.
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ memories: { review: 'off' } }));
    const off = await t.deepdesk(['tools', '--folder', t.folder], {}, JSON.stringify({ tool: 'write_file', args: { file_path: '/memories/y.md', content: 'y\n' } }) + '\n');
    expect((JSON.parse(off.stdout) as { output: string }).output).toBe('Updated file /memories/y.md');
    expect(await ok(['ls', '--folder', t.folder])).toBe('/memories/x.md\n/memories/y.md\n');
    expect(JSON.parse(await ok(['log', 'y.md', '--json', '--folder', t.folder]))).toEqual([expect.objectContaining({ status: 'active', writer: { kind: 'protocol-client' }, sources: ['deepdesk tools'] })]);
  });
});

describe('deepdesk tools: stale memories', () => {
  it("marks a memory that names what the folder no longer has, in the session's ls", async () => {
    mkdirSync(join(t.folder, 'scripts'));
    writeFileSync(join(t.folder, 'scripts', 'test.sh'), 'true\n');
    await ok(['write', '/memories/build.md', '--folder', t.folder], 'Build with scripts/build.sh, test with scripts/test.sh.\n');
    const listed = async () => {
      const r = await t.deepdesk(['tools', '--folder', t.folder], {}, JSON.stringify({ tool: 'ls', args: { path: '/memories/' } }) + '\n');
      return (JSON.parse(r.stdout) as { output: string }).output;
    };
    expect(await listed()).toContain('/memories/build.md [stale: scripts/build.sh no longer exists]');
    writeFileSync(join(t.folder, 'scripts', 'build.sh'), 'true\n');
    expect(await listed()).toMatch(/\/memories\/build\.md \(\d+ bytes\)/);
  });
});

describe('deepdesk memories import', () => {
  function claudeMemory(files: Record<string, string>): string {
    const dir = join(home, '.claude', 'projects', claudeProjectName(t.folder), 'memory');
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return dir;
  }

  it("brings Claude Code's memory of the project into its scope, never over a memory, and --dry-run writes nothing", async () => {
    const dir = claudeMemory({ 'MEMORY.md': '# Index\n- [testing](testing.md)\n', 'testing.md': 'Run vitest with --project unit.\n' });
    const env = { HOME: home };
    const folder = ['--folder', t.folder];
    await ok(['write', 'MEMORY.md', ...folder], 'Mine.\n');
    const planned = `/memories/MEMORY-imported.md ← ${join(dir, 'MEMORY.md')}\n/memories/testing.md ← ${join(dir, 'testing.md')}\n`;
    expect(await ok(['import', 'claude-code', '--dry-run', ...folder], undefined, env)).toBe(planned);
    expect(await ok(['ls', ...folder])).toBe('/memories/MEMORY.md\n');

    expect(await ok(['import', 'claude-code', ...folder], undefined, env)).toBe(planned);
    expect(await ok(['ls', ...folder])).toBe('/memories/MEMORY-imported.md\n/memories/MEMORY.md\n/memories/testing.md\n');
    expect(await ok(['cat', 'MEMORY.md', ...folder])).toBe('Mine.\n');
    expect(await ok(['cat', 'MEMORY-imported.md', ...folder])).toBe('# Index\n- [testing](testing.md)\n');
    expect(lines(await ok(['log', 'testing.md', ...folder]))).toEqual([expect.stringMatching(/^v1 {2}\S+ {2}import {2}active {2}import:claude-code$/)]);
    // Another project has none of them.
    expect(await ok(['ls', '--folder', other])).toBe('');
    // Again: every name is taken now, and nothing is overwritten.
    expect(lines(await ok(['import', 'claude-code', ...folder], undefined, env))).toEqual([
      `/memories/MEMORY-imported-2.md ← ${join(dir, 'MEMORY.md')}`,
      `/memories/testing-imported.md ← ${join(dir, 'testing.md')}`,
    ]);
  });

  it("brings Codex's memories into global/, from --from DIR too; a missing folder is an error", async () => {
    const missing = await t.deepdesk(['memories', 'import', 'codex', '--folder', t.folder], { HOME: home });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no Codex memories at ${join(home, '.codex', 'memories')}`);
    mkdirSync(join(home, '.codex', 'memories'), { recursive: true });
    writeFileSync(join(home, '.codex', 'memories', 'prefs.md'), 'Short answers.\n');
    expect(await ok(['import', 'codex', '--folder', t.folder], undefined, { HOME: home })).toBe(`/memories/global/prefs.md ← ${join(home, '.codex', 'memories', 'prefs.md')}\n`);
    expect(await ok(['ls', '--folder', other])).toBe('/memories/global/prefs.md\n');
    expect(lines(await ok(['log', 'global/prefs.md', '--folder', other]))).toEqual([expect.stringMatching(/ import {2}active {2}import:codex$/)]);

    const from = join(other, 'elsewhere');
    mkdirSync(from);
    writeFileSync(join(from, 'prefs.md'), 'Long answers.\n');
    expect(await ok(['import', 'codex', '--from', from, '--folder', t.folder])).toBe(`/memories/global/prefs-imported.md ← ${join(from, 'prefs.md')}\n`);
    expect(await ok(['cat', 'global/prefs.md', '--folder', t.folder])).toBe('Short answers.\n');
  });
});

describe('deepdesk memories: bad usage', () => {
  it('exits 2 with what was wrong', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /expected one of: memories ls/],
      [['copy', 'x.md'], /expected one of/],
      [['cat'], /memories cat needs a PATH/],
      [['log'], /memories log needs a PATH/],
      [['restore', 'x.md'], /memories restore needs --version N/],
      [['restore', 'x.md', '--version', 'two'], /--version must be a version number from 1 \(got 'two'\)/],
      [['approve', 'x.md', '--version', '0'], /--version must be a version number from 1/],
      [['ls', '--json'], /memories ls does not take --json/],
      [['ls', 'x.md'], /memories ls takes no PATH/],
      [['import', 'cursor'], /memories import takes claude-code or codex \(got 'cursor'\)/],
      [['write', '/elsewhere/../../x.md'], /./],
      [['cat', '/memories/'], /a memory path names a file/],
      [['ls', '--folder', join(tmpdir(), 'deepdesk-no-such-folder')], /folder not found/],
    ];
    for (const [args, message] of cases) {
      const r = await t.deepdesk(['memories', ...args], {}, '');
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toMatch(message);
    }
  });
});
