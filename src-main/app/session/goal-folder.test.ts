// A goal's diff base where the folder is not on this computer (SPEC §21): git runs there,
// through the thread's own command path, over a real ssh to a real sshd on 127.0.0.1. Here and
// on this computer, nothing the repository's config names runs, or shapes the evidence.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSshd, type TestSshd } from '../../core/backends/remote/testing/sshd';
import { openFolderBackend } from '../places/folder-backend';
import { sshFolderLocation } from '../places/folder-location';
import { gitGoalFolder, shellGoalFolder } from './goal-folder';

let sshd: TestSshd;
let root: string;

beforeAll(async () => {
  sshd = await startTestSshd();
  root = mkdtempSync(join(tmpdir(), 'deepdesk-goal-folder-'));
});
afterAll(async () => {
  await sshd?.dispose();
  rmSync(root, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });

async function sshShell(folder: string) {
  const opened = await openFolderBackend(sshFolderLocation(sshd.folderUrl(folder.split('/').map(encodeURIComponent).join('/'))), { dataDir: join(root, 'data'), sshCommand: sshd.sshCommand });
  if (!opened.shell) throw new Error('no shell over ssh');
  return opened.shell;
}

describe('a goal’s diff over SSH', () => {
  it('takes the tree there, and the diff from it names the files touched; the person’s index is untouched', { timeout: 60_000 }, async () => {
    const folder = join(root, 'repo');
    mkdirSync(folder);
    writeFileSync(join(folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
    git(folder, 'init', '-q');
    git(folder, 'add', '.');
    git(folder, 'commit', '-qm', 'fixture');
    const place = shellGoalFolder(await sshShell(folder));
    const base = await place.tree();
    expect(base).toMatch(/^[0-9a-f]{40}$/);
    // Nothing changed: the same tree (what the stall watch compares).
    expect(await place.tree()).toBe(base);
    writeFileSync(join(folder, 'sum.js'), 'module.exports = (a, b) => a + b;\n');
    writeFileSync(join(folder, 'new.txt'), 'new\n');
    const now = await place.tree();
    expect(now).not.toBe(base);
    const changed = await place.diff(base!);
    expect(changed?.files.sort()).toEqual(['new.txt', 'sum.js']);
    expect(changed?.diff).toContain('+module.exports = (a, b) => a + b;');
    expect(git(folder, 'status', '--porcelain')).toBe(' M sum.js\n?? new.txt\n');
  });

  it('has no tree where the folder is not a git repository, and takes no base that is not an object id', { timeout: 60_000 }, async () => {
    const folder = join(root, 'plain');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.txt'), 'a\n');
    const place = shellGoalFolder(await sshShell(folder));
    expect(await place.tree()).toBeUndefined();
    const repo = join(root, 'repo');
    const inRepo = shellGoalFolder(await sshShell(repo));
    expect(await inRepo.diff('HEAD; touch pwned')).toBeUndefined();
  });
});

/**
 * A repository whose own config names programs for its files (the agent can write one): a
 * text converter that would show every changed file as unchanged, a clean filter, a pager.
 * Each would leave a marker in the folder if it ran.
 */
async function repositoryThatHidesItsChanges(name: string) {
  const folder = join(root, name);
  mkdirSync(folder);
  writeFileSync(join(folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
  git(folder, 'init', '-q');
  git(folder, 'add', '.');
  git(folder, 'commit', '-qm', 'fixture');
  const change = async () => {
    writeFileSync(join(folder, '.gitattributes'), '*.js diff=same filter=same\n');
    git(folder, 'config', 'diff.same.textconv', `sh -c 'touch ran-textconv; echo same'`);
    git(folder, 'config', 'filter.same.clean', `sh -c 'touch ran-clean; cat'`);
    git(folder, 'config', 'core.pager', `sh -c 'touch ran-pager; cat'`);
    writeFileSync(join(folder, 'sum.js'), 'module.exports = (a, b) => a + b;\n');
  };
  const ran = () => ['ran-textconv', 'ran-clean', 'ran-pager'].filter((marker) => existsSync(join(folder, marker)));
  return { folder, change, ran };
}

describe('a goal’s evidence is git’s own text of the change', () => {
  const places = [
    { where: 'over SSH', place: async (folder: string) => shellGoalFolder(await sshShell(folder)) },
    { where: 'on this computer', place: async (folder: string) => gitGoalFolder(folder) },
  ];
  it.each(places)('$where: no program the repository’s config names runs, and the diff shows the change', { timeout: 60_000 }, async ({ where, place: at }) => {
    const repo = await repositoryThatHidesItsChanges(`hides-${where.replaceAll(' ', '-')}`);
    const place = await at(repo.folder);
    const base = await place.tree();
    await repo.change();
    const changed = await place.diff(base!);
    expect(changed?.files.sort()).toEqual(['.gitattributes', 'sum.js']);
    expect(changed?.diff).toContain('+module.exports = (a, b) => a + b;');
    expect(repo.ran()).toEqual([]);
  });

  it.each(places)('$where: the repository’s attributes do not turn a rewrite of the verify script into "Binary files differ"', { timeout: 60_000 }, async ({ place: at }) => {
    const folder = join(root, `attributes-${Math.random().toString(36).slice(2)}`);
    mkdirSync(folder);
    writeFileSync(join(folder, 'test.sh'), 'npm test\n');
    writeFileSync(join(folder, 'logo.bin'), Buffer.from([0, 1, 2, 3]));
    git(folder, 'init', '-q');
    git(folder, 'add', '.');
    git(folder, 'commit', '-qm', 'fixture');
    const place = await at(folder);
    const base = await place.tree();
    writeFileSync(join(folder, '.gitattributes'), 'test.sh -diff\n*.sh binary\n');
    writeFileSync(join(folder, 'test.sh'), 'exit 0\n');
    writeFileSync(join(folder, 'logo.bin'), Buffer.from([0, 9, 9, 9]));
    const changed = await place.diff(base!);
    expect(changed?.files.sort()).toEqual(['.gitattributes', 'logo.bin', 'test.sh']);
    expect(changed?.diff).toContain('-npm test\n+exit 0');
    expect(changed?.diff).not.toContain('Binary files a/test.sh');
    // What is binary by its bytes still is.
    expect(changed?.diff).toContain('Binary files a/logo.bin and b/logo.bin differ');
  });
});
