// CompositeBackend: routing, prefix restoration (paths and error texts), the merged root
// listing, fan-out searches with one match budget, and execute delegation.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecuteOptions, ExecuteResult, ShellBackend } from '../protocol';
import { isShellBackend } from '../protocol';
import type { CompositeRoute } from './composite';
import { CompositeBackend, CompositeShellBackend, createComposite } from './composite';
import { globBelowMount } from './composite-glob';
import { StateBackend } from '../store/state';
import { StoreBackend } from '../store/store';

let tmp: string;
let memories: StoreBackend;
let folder: StateBackend;
let results: StateBackend;
let composite: CompositeBackend;

function routes(): CompositeRoute[] {
  return [
    { prefix: '/memories/', backend: memories, listInRoot: 'always' },
    { prefix: '/large_tool_results/', backend: results, listInRoot: 'when-not-empty' },
  ];
}

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'deepdesk-composite-'));
  memories = new StoreBackend({ db: path.join(tmp, 'deepdesk.db'), namespace: 'memories' });
  folder = new StateBackend();
  results = new StateBackend();
  composite = createComposite(folder, routes());
});
afterEach(() => {
  memories.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const paths = (items: { path: string }[] | undefined) => (items ?? []).map((i) => i.path);

describe('routing', () => {
  it('sends a path to the longest matching prefix with the prefix stripped', async () => {
    expect(await composite.write('/memories/prefs.md', 'tabs\n')).toEqual({ path: '/memories/prefs.md' });
    expect(await composite.write('/memoriesque.md', 'not a memory\n')).toEqual({ path: '/memoriesque.md' });
    expect(await composite.write('/large_tool_results/call_1', 'big\n')).toEqual({ path: '/large_tool_results/call_1' });
    expect((await memories.read('/prefs.md')).fileData?.content).toBe('tabs');
    expect((await folder.read('/memoriesque.md')).fileData?.content).toBe('not a memory');
    expect((await results.read('/call_1')).fileData?.content).toBe('big');
    expect(paths((await composite.ls('/memories')).entries)).toEqual(['/memories/prefs.md']);
    expect(paths((await composite.ls('/memories/')).entries)).toEqual(['/memories/prefs.md']);
    expect((await composite.read('/memories/prefs.md')).fileData?.content).toBe('tabs');
  });

  it('routes nested prefixes to the longest one', async () => {
    const inner = new StateBackend();
    const nested = new CompositeBackend(folder, [...routes(), { prefix: '/memories/shared', backend: inner, listInRoot: 'always' }]);
    await nested.write('/memories/shared/team.md', 'team\n');
    await nested.write('/memories/mine.md', 'mine\n');
    expect(paths((await inner.ls('/')).entries)).toEqual(['/team.md']);
    // The outer mount's listing shows the nested mount's folder, as the root shows a mount's.
    expect(paths((await nested.ls('/memories')).entries)).toEqual(['/memories/mine.md', '/memories/shared/']);
    expect(paths((await nested.ls('/memories/shared')).entries)).toEqual(['/memories/shared/team.md']);
  });

  it('serves nested mounts (/docs/ and /docs/api/v2/) by the longest prefix, in listings and searches of the outer one', async () => {
    const docs = new StateBackend();
    const api = new StateBackend();
    const nested = new CompositeBackend(folder, [
      { prefix: '/docs/', backend: docs, listInRoot: 'always' },
      { prefix: '/docs/api/v2/', backend: api, listInRoot: 'always' },
    ]);
    await nested.write('/docs/guide.md', 'needle in the guide\n');
    await nested.write('/docs/api/v2/ref.md', 'needle in the reference\n');
    await nested.write('/top.md', 'needle at the top\n');
    expect(paths((await api.ls('/')).entries)).toEqual(['/ref.md']);
    expect(paths((await docs.ls('/')).entries)).toEqual(['/guide.md']);
    expect(paths((await nested.ls('/')).entries)).toEqual(['/docs/', '/top.md']);
    expect(paths((await nested.ls('/docs')).entries)).toEqual(['/docs/api/', '/docs/guide.md']);
    expect(paths((await nested.ls('/docs/api')).entries)).toEqual(['/docs/api/v2/']);
    expect((await nested.read('/docs/api/v2/ref.md')).fileData?.content).toBe('needle in the reference');
    expect((await nested.grep('needle', '/docs')).matches?.map((m) => m.path)).toEqual(['/docs/api/v2/ref.md', '/docs/guide.md']);
    expect((await nested.grep('needle', '/')).matches?.map((m) => m.path)).toEqual(['/docs/api/v2/ref.md', '/docs/guide.md', '/top.md']);
    expect(paths((await nested.glob('**/*.md', '/docs')).matches)).toEqual(['/docs/api/v2/ref.md', '/docs/guide.md']);
    expect(paths((await nested.glob('**/*.md', '/')).matches)).toEqual(['/docs/api/v2/ref.md', '/docs/guide.md', '/top.md']);
    // A file the outer backend has where the inner mount sits is shadowed by the mount.
    await docs.write('/api/v2/ref.md', 'shadowed needle\n');
    expect((await nested.grep('needle', '/docs')).matches?.map((m) => m.text)).toEqual(['needle in the reference', 'needle in the guide']);
  });

  it('reads its routes from a function on every call, so mounts added or removed apply at once', async () => {
    const extra = new StateBackend();
    let table: CompositeRoute[] = routes();
    const live = new CompositeBackend(folder, () => table);
    expect(paths((await live.ls('/')).entries)).toEqual(['/memories/']);
    table = [...routes(), { prefix: '/extra/', backend: extra, listInRoot: 'always' }];
    await live.write('/extra/a.md', 'a\n');
    expect((await extra.read('/a.md')).fileData?.content).toBe('a');
    expect(paths((await live.ls('/')).entries)).toEqual(['/extra/', '/memories/']);
    table = routes();
    expect(paths((await live.ls('/')).entries)).toEqual(['/memories/']);
    expect(() => new CompositeBackend(folder, () => [{ prefix: '/', backend: extra, listInRoot: 'always' }])).toThrow(/invalid mount prefix/);
  });

  it('puts the prefix back on every returned path', async () => {
    await composite.write('/memories/sub/a.md', 'alpha\n');
    expect(paths((await composite.ls('/memories')).entries)).toEqual(['/memories/sub/']);
    expect((await composite.ls('/memories/sub')).entries).toEqual([{ path: '/memories/sub/a.md', size: 6, modifiedAt: expect.any(String) }]);
    expect(await composite.edit('/memories/sub/a.md', 'alpha', 'beta')).toEqual({ path: '/memories/sub/a.md', occurrences: 1 });
    expect((await composite.grep('beta', '/memories')).matches).toEqual([{ path: '/memories/sub/a.md', line: 1, text: 'beta' }]);
    expect(paths((await composite.glob('*.md', '/memories/sub')).matches)).toEqual(['/memories/sub/a.md']);
    expect((await composite.stat('/memories/sub/a.md')).info?.path).toBe('/memories/sub/a.md');
    expect((await composite.stat('/memories')).info).toEqual({ path: '/memories/', isDir: true });
    const up = await composite.uploadFiles([
      { path: '/memories/b.md', content: new TextEncoder().encode('b') },
      { path: '../x', content: new Uint8Array() },
      { path: 'top.txt', content: new TextEncoder().encode('t') },
    ]);
    expect(up).toEqual([{ path: '/memories/b.md' }, { path: '../x', error: 'invalid_path' }, { path: '/top.txt' }]);
    const down = await composite.downloadFiles(['/top.txt', '/memories/nope.md', '/memories//b.md', '/memories/sub']);
    expect(down.map((d) => [d.path, d.error, d.content && Buffer.from(d.content).toString()])).toEqual([
      ['/top.txt', undefined, 't'],
      ['/memories/nope.md', 'file_not_found', undefined],
      ['/memories/b.md', undefined, 'b'],
      ['/memories/sub', 'is_directory', undefined],
    ]);
    expect(await composite.delete('/memories/sub/a.md')).toEqual({ path: '/memories/sub/a.md' });
  });

  it('puts the prefix back into error texts but leaves quoted edit strings alone', async () => {
    await composite.write('/memories/a.md', 'text\n');
    expect((await composite.read('/memories/nope.md')).error).toBe("File '/memories/nope.md' not found");
    expect((await composite.ls('/memories/nope')).error).toBe("Path '/memories/nope' not found");
    expect((await composite.read('/memories')).error).toBe("'/memories' is a directory, not a file");
    expect((await composite.write('/memories/a.md/b.md', 'x')).error).toBe("'/memories/a.md' is not a directory");
    expect((await composite.edit('/memories/a.md', '/a.md', 'x')).error).toBe("String not found in file: '/a.md'");
    expect((await composite.glob('*', '/memories/nope')).error).toBe("Path '/memories/nope' not found");
    expect((await composite.read('/memories/../etc')).error).toContain("'..'");
  });
});

describe('ls /', () => {
  it('always shows an "always" mount, a "when-not-empty" mount only when it holds files', async () => {
    await composite.write('/src/main.ts', 'x');
    await composite.write('/z.md', 'x');
    expect(paths((await composite.ls('/')).entries)).toEqual(['/memories/', '/src/', '/z.md']);
    await composite.write('/large_tool_results/call_1', 'big');
    const entries = (await composite.ls('/')).entries ?? [];
    expect(paths(entries)).toEqual(['/large_tool_results/', '/memories/', '/src/', '/z.md']);
    expect(entries.find((e) => e.path === '/memories/')).toEqual({ path: '/memories/', isDir: true });
  });

  it('lists the mount folder in place of a same-named entry of the default backend', async () => {
    await folder.write('/memories/on-disk.md', 'shadowed');
    await folder.write('/large_tool_results', 'a file');
    await results.write('/r', 'x');
    expect((await composite.ls('/')).entries).toEqual([
      { path: '/large_tool_results/', isDir: true },
      { path: '/memories/', isDir: true },
    ]);
  });

  it('shows mount folders in an empty default backend', async () => {
    expect((await composite.ls('/')).entries).toEqual([{ path: '/memories/', isDir: true }]);
  });
});

describe('grep and glob fan-out', () => {
  beforeEach(async () => {
    for (let i = 1; i <= 3; i++) await composite.write(`/n${i}.md`, `needle ${i}\nneedle again\n`);
    await composite.write('/memories/m.md', 'needle in memory\n');
    await composite.write('/large_tool_results/call', 'needle in result\n');
    // Shadowed by the mount: never part of a result.
    await folder.write('/memories/hidden.md', 'needle on disk\n');
  });

  it('merges every backend, sorted by path then line', async () => {
    const res = await composite.grep('needle', '/');
    expect(res.truncated).toBe(false);
    expect(res.matches?.map((m) => `${m.path}:${m.line}`)).toEqual([
      '/large_tool_results/call:1', '/memories/m.md:1', '/n1.md:1', '/n1.md:2', '/n2.md:1', '/n2.md:2', '/n3.md:1', '/n3.md:2',
    ]);
  });

  it('shares one match budget across backends', async () => {
    const res = await composite.grep('needle', '/', undefined, 3);
    expect(res.truncated).toBe(true);
    expect(res.matches?.map((m) => `${m.path}:${m.line}`)).toEqual(['/large_tool_results/call:1', '/memories/m.md:1', '/n1.md:1']);
    const exact = await composite.grep('needle', '/', undefined, 8);
    expect(exact.truncated).toBe(false);
    expect(exact.matches).toHaveLength(8);
    const zero = await composite.grep('needle', '/', undefined, 0);
    expect(zero).toEqual({ matches: [], truncated: true });
  });

  it('searches only the mount for a path under it', async () => {
    expect((await composite.grep('needle', '/memories')).matches).toEqual([{ path: '/memories/m.md', line: 1, text: 'needle in memory' }]);
    expect(paths((await composite.glob('*', '/memories')).matches)).toEqual(['/memories/m.md']);
  });

  it('applies glob filters relative to the search folder across mounts', async () => {
    const grepPaths = async (glob: string) => paths((await composite.grep('needle', '/', glob)).matches);
    expect(await grepPaths('*.md')).toEqual(['/memories/m.md', '/n1.md', '/n1.md', '/n2.md', '/n2.md', '/n3.md', '/n3.md']);
    expect(await grepPaths('memories/*.md')).toEqual(['/memories/m.md']);
    expect(await grepPaths('/n1.md')).toEqual(['/n1.md', '/n1.md']);
    expect(await grepPaths('{large_tool_results/*,n2.md}')).toEqual(['/large_tool_results/call', '/n2.md', '/n2.md']);
    expect(paths((await composite.glob('*.md')).matches)).toEqual(['/memories/m.md', '/n1.md', '/n2.md', '/n3.md']);
    expect(paths((await composite.glob('**/*')).matches)).toEqual(['/large_tool_results/call', '/memories/m.md', '/n1.md', '/n2.md', '/n3.md']);
    expect(paths((await composite.glob('/*')).matches)).toEqual(['/n1.md', '/n2.md', '/n3.md']);
    expect(paths((await composite.glob('memories/**')).matches)).toEqual(['/memories/m.md']);
  });
});

describe('globBelowMount', () => {
  it('rewrites anchored patterns past the mount folders and keeps name patterns', () => {
    expect(globBelowMount('*.md', 'memories')).toEqual(['*.md']);
    expect(globBelowMount('memories/*.md', 'memories')).toEqual(['/*.md']);
    expect(globBelowMount('/mem*/a/*.md', 'memories')).toEqual(['/a/*.md']);
    expect(globBelowMount('**/*.md', 'memories')).toEqual(['/**/*.md']);
    expect(globBelowMount('**/x/*.md', 'a/x')).toEqual(['/*.md', '/**/x/*.md']);
    expect(globBelowMount('src/*.ts', 'memories')).toEqual([]);
    expect(globBelowMount('/memories', 'memories')).toEqual([]);
    expect(globBelowMount('**/*.md', '.hidden')).toEqual([]);
    expect(globBelowMount('{memories/a.md,*.txt}', 'memories')).toEqual(['/a.md', '*.txt']);
  });
});

describe('execute delegation', () => {
  class FakeShell extends StateBackend implements ShellBackend {
    readonly id = 'shell-1';
    readonly calls: string[] = [];
    async execute(command: string, _options?: ExecuteOptions): Promise<ExecuteResult> {
      this.calls.push(command);
      return { output: `ran ${command}`, exitCode: 0, truncated: false };
    }
  }

  it('exposes execute and id only when the default backend is a shell backend', async () => {
    const shell = new FakeShell();
    const withShell = createComposite(shell, routes());
    expect(withShell).toBeInstanceOf(CompositeShellBackend);
    expect(isShellBackend(withShell)).toBe(true);
    expect(withShell.id).toBe('shell-1');
    expect(await withShell.execute('ls')).toEqual({ output: 'ran ls', exitCode: 0, truncated: false });
    expect(shell.calls).toEqual(['ls']);
    expect(isShellBackend(composite)).toBe(false);
  });
});
