// The StoreBackend answers grep, glob and ls from indexes (the trigram index, path ranges,
// a pattern's literal folder); StateBackend answers them by scanning every file. On one
// store of hostile names and contents, both must give exactly the same results.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompositeBackend } from '../mounts/composite';
import type { FileInfo } from '../protocol';
import { StateBackend } from './state';
import { StoreBackend } from './store';
import { hostileFiles } from './__fixtures__/hostile-store';

let dir: string;
let store: StoreBackend;
const state = new StateBackend();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-store-parity-'));
  store = new StoreBackend({ db: path.join(dir, 'deepdesk.db'), namespace: 'memories' });
  const files = hostileFiles();
  for (const backend of [store, state]) expect((await backend.uploadFiles(files)).every((r) => r.error === undefined)).toBe(true);
});
afterAll(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const infos = (list: FileInfo[] | undefined) => list?.map((f) => ({ path: f.path, isDir: f.isDir ?? false, size: f.size }));
const FOLDERS = ['/', '/a', '/dir', '/dir/sub', '/é', '/sub', '/a0', '/nope', '/a/b.md', '/.git'];

describe('StoreBackend grep, glob and ls on hostile names and contents match a full scan', () => {
  it('ls', async () => {
    for (const folder of FOLDERS) {
      const [ours, scan] = await Promise.all([store.ls(folder), state.ls(folder)]);
      expect([folder, infos(ours.entries), ours.error]).toEqual([folder, infos(scan.entries), scan.error]);
    }
  });

  it('glob', async () => {
    const patterns = [
      '*', '**', '**/*', '*.md', '**/*.txt', 'dir/*.md', 'dir/sub/*', '/dir/**/*.md', 'dir/**', 'a/*', 'a/**', '.dot/*', '.git/*', 'sub/.git/*',
      '**/.git/*', 'é/*', '[abc].md', '\\[abc\\].md', 'a*', '{dir,a}/**', '{dir,a}/*.md', 'dir\\sub\\*', './dir/*', 'dir/./sub/*', 'dir//sub/*',
      'nope/*', 'dir/sub/', 'sp ace/*', 'near/*', 'dir/s*/*', 'dir/sub/deeper/x.txt', 'a0', '/a0', 'a', '..', 'a/../b.md', '*/', '**/*.md',
    ];
    for (const folder of FOLDERS) {
      for (const pattern of patterns) {
        const [ours, scan] = await Promise.all([store.glob(pattern, folder), state.glob(pattern, folder)]);
        expect([folder, pattern, infos(ours.matches), ours.error]).toEqual([folder, pattern, infos(scan.matches), scan.error]);
      }
    }
  });

  it('grep, case-sensitive and literal, with and without a glob, truncated alike', async () => {
    const patterns = [
      'needle', 'NEEDLE', 'Needle', 'eedl', 'EEDL', '"', '"stop"', '%', '50%', '_', 'e_c', 'AND', 'and', 'NEAR(', 'NEAR(a b)', '*', 'a**b',
      'a', 'ab', 'x', 'é', 'É', 'café', 'CAFÉ', 'Café', '😀', 'smile 😀', "'", "O'Brien", '\r', 'line\r', 'haystack\nNEEDLE', 'zzz',
    ];
    for (const folder of ['/', '/a', '/dir', '/sub', '/a/b.md', '/nope', '/nul.md']) {
      for (const pattern of patterns) {
        for (const glob of [undefined, '*.md', '**/*.txt', 'dir/**']) {
          for (const max of [1000, 3]) {
            const [ours, scan] = await Promise.all([store.grep(pattern, folder, glob, max), state.grep(pattern, folder, glob, max)]);
            expect([folder, pattern, glob, max, ours]).toEqual([folder, pattern, glob, max, scan]);
          }
        }
      }
    }
  });

  it('and so do the agent\'s tools on /memories/ (mounted in a composite, as threads see it)', async () => {
    const mounted = (memories: StoreBackend | StateBackend) => new CompositeBackend(new StateBackend(), [{ prefix: '/memories/', backend: memories, listInRoot: 'always' }]);
    const ours = mounted(store);
    const scan = mounted(state);
    for (const folder of ['/', '/memories', '/memories/dir', '/memories/a', '/memories/nope']) {
      const [a, b] = await Promise.all([ours.ls(folder), scan.ls(folder)]);
      expect([folder, infos(a.entries), a.error]).toEqual([folder, infos(b.entries), b.error]);
      for (const pattern of ['**/*.md', 'memories/**/*.txt', 'memories/dir/*', '/memories/a/*', '*.md', 'dir/sub/*', '{memories,x}/a/**']) {
        const [g, h] = await Promise.all([ours.glob(pattern, folder), scan.glob(pattern, folder)]);
        expect([folder, pattern, infos(g.matches), g.error]).toEqual([folder, pattern, infos(h.matches), h.error]);
      }
      for (const pattern of ['needle', 'NEEDLE', 'a', '"stop"', 'café']) {
        expect([folder, pattern, await ours.grep(pattern, folder)]).toEqual([folder, pattern, await scan.grep(pattern, folder)]);
      }
    }
  });
});
