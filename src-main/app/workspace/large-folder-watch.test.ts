// The Files tree in a big repository (issue 42): a new top-level file must reach the window
// at once, whatever the folder's size and shape: `.git` and ignored folders full of files
// (which once made the whole-folder subscription take 27 s at 100,000 files, the tree
// hearing nothing meanwhile), and a folder over the system's watch limit.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemBackend } from '../../core/backends/filesystem/filesystem';
import { createApp, type App } from '../window/folder-app';
import type { EventFrame, FileEntry } from '../contract';
import { FileSecretStore } from '../settings/file-secret-store';
import { IGNORED_PATHS } from './folder-watcher';
import { WorkspaceService, type FileChange } from './workspace-service';

/** A repository of `files` files in folders of 20, a .gitignore and an ignored dist/ of as many files again. */
function makeRepository(files: number): string {
  const root = mkdtempSync(join(tmpdir(), 'deepdesk-big-repo-'));
  for (let d = 0; d < files / 20; d++) {
    const dir = join(root, `pkg${Math.floor(d / 50)}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(dir, `file${f}.ts`), `export const v${f} = ${d * 20 + f};\n`);
    const out = join(root, 'dist', `chunk${Math.floor(d / 50)}`, `part${d}`);
    mkdirSync(out, { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(out, `out${f}.js`), `x${f}\n`);
  }
  writeFileSync(join(root, '.gitignore'), 'dist/\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
  return root;
}

const changedPaths = (events: EventFrame[]) =>
  events.filter((e) => e.event === 'files.changed').flatMap((e) => (e.payload as { paths: FileChange[] }).paths.map((p) => p.path));

describe('a big repository in the Files tree', () => {
  let repo: string;
  let dataDir: string;
  let app: App | undefined;
  beforeAll(() => {
    repo = makeRepository(5_000);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('shows a new top-level file written as soon as the window is ready, while the folder is still being watched whole', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-big-repo-data-'));
    app = await createApp({ folder: repo, dataDir, secrets: new FileSecretStore(dataDir), transport: 'web', env: { ...process.env, OPENAI_API_KEY: '' } });
    const events: EventFrame[] = [];
    app.onEvent((frame) => events.push(frame));
    writeFileSync(join(repo, 'NOTES.md'), 'new\n');
    await expect.poll(() => changedPaths(events), { timeout: 60_000 }).toContain('/NOTES.md');
    const listed = (await app.handle('files.list', { path: '/' })) as FileEntry[];
    expect(listed.map((e) => e.path)).toContain('/NOTES.md');
  });
});

describe('a folder over the watch limit', () => {
  let folder: string;
  let service: WorkspaceService | undefined;
  afterEach(async () => {
    await service?.dispose();
    service = undefined;
    rmSync(folder, { recursive: true, force: true });
  });

  it('still follows the top level and the folders the tree opened, and says it cannot follow the rest', async () => {
    folder = mkdtempSync(join(tmpdir(), 'deepdesk-limit-'));
    mkdirSync(join(folder, 'src/deep'), { recursive: true });
    const heard: string[] = [];
    const notices: string[] = [];
    service = new WorkspaceService({
      folder,
      backend: new FilesystemBackend({ rootDir: folder }),
      onChange: (changes) => heard.push(...changes.map((c) => `${c.kind} ${c.path}`)),
      onWatchLimited: (message) => notices.push(message),
      // What @parcel/watcher throws when inotify has no watch left for a folder.
      subscribe: () => Promise.reject(new Error(`inotify_add_watch on '${folder}/src/deep' failed: No space left on device`)),
    });
    await service.start();
    expect(notices).toEqual([expect.stringContaining('more folders than the system lets Deepdesk watch')]);

    writeFileSync(join(folder, 'top.txt'), 'a');
    await expect.poll(() => heard).toContain('add /top.txt');
    await service.list('/src');
    writeFileSync(join(folder, 'src/opened.txt'), 'b');
    await expect.poll(() => heard).toContain('add /src/opened.txt');
    writeFileSync(join(folder, 'top.txt'), 'changed');
    await expect.poll(() => heard).toContain('change /top.txt');
  });
});

describe('the hand-over from the folders’ own watches to the whole-folder subscription', () => {
  let folder: string;
  let service: WorkspaceService | undefined;
  afterEach(async () => {
    await service?.dispose();
    service = undefined;
    rmSync(folder, { recursive: true, force: true });
  });

  it('keeps a change made while the subscription was being set up, which the subscription never reports', async () => {
    folder = mkdtempSync(join(tmpdir(), 'deepdesk-handover-'));
    const heard: string[] = [];
    service = new WorkspaceService({
      folder,
      backend: new FilesystemBackend({ rootDir: folder }),
      onChange: (changes: FileChange[]) => heard.push(...changes.map((c) => `${c.kind} ${c.path}`)),
      // A subscription whose watches begin just after the write: it is up, and hears nothing of it.
      subscribe: async () => {
        writeFileSync(join(folder, 'early.txt'), 'a');
        return { unsubscribe: async () => {} };
      },
    });
    await service.start();
    await expect.poll(() => heard, { timeout: 60_000 }).toContain('add /early.txt');
  });

  it('hears nothing once it is disposed', async () => {
    folder = mkdtempSync(join(tmpdir(), 'deepdesk-handover-'));
    const heard: string[] = [];
    service = new WorkspaceService({
      folder,
      backend: new FilesystemBackend({ rootDir: folder }),
      onChange: (changes: FileChange[]) => heard.push(...changes.map((c) => `${c.kind} ${c.path}`)),
      subscribe: async () => ({ unsubscribe: async () => {} }),
    });
    await service.start();
    await service.dispose();
    service = undefined;
    writeFileSync(join(folder, 'late.txt'), 'b');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(heard).toEqual([]);
  });
});

describe('what the whole-folder watch leaves out', () => {
  it('is .git anywhere and what is below a dependency folder’s own entries, in one expression', () => {
    const ignored = (rel: string) => IGNORED_PATHS.test(rel);
    expect(['.git', '.git/objects/ab', 'vendor/lib/.git', 'node_modules/react/index.js', 'a/node_modules/b/c', '.venv/lib/python3']
      .filter((p) => !ignored(p))).toEqual([]);
    expect(['src', 'src/a.ts', 'node_modules', 'node_modules/react', 'a/node_modules/b', '.gitignore', 'x.git/y', 'my_node_modules/a/b'].filter(ignored)).toEqual([]);
  });
});
