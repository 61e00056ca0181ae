import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeProjectName, importSourceDir, placeImports, planImport, type PlannedImport } from './import-memories';

let root: string;
let home: string;
let projectDir: string;

function put(file: string, content: string | Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'import-memories-'));
  home = join(root, 'home');
  projectDir = join(root, 'x', 'my proj');
  mkdirSync(projectDir, { recursive: true });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('claudeProjectName', () => {
  it('turns every character other than A–Z, a–z, 0–9 into -', () => {
    expect(claudeProjectName('/tmp/x/my proj')).toBe('-tmp-x-my-proj');
    expect(claudeProjectName('/Users/ann/code/app_v2.0')).toBe('-Users-ann-code-app-v2-0');
    expect(claudeProjectName('C:\\work\\é')).toBe('C--work--');
  });
});

describe('importSourceDir', () => {
  it('is Claude Code’s project memory folder and Codex’s memories folder', () => {
    expect(importSourceDir('claude-code', { home, projectDir })).toBe(join(home, '.claude', 'projects', claudeProjectName(projectDir), 'memory'));
    expect(importSourceDir('codex', { home, projectDir })).toBe(join(home, '.codex', 'memories'));
  });
});

describe('planImport', () => {
  it('brings Claude Code’s MEMORY.md and topic files of this project into the project scope', async () => {
    const memory = join(home, '.claude', 'projects', projectDir.replace(/[^A-Za-z0-9]/g, '-'), 'memory');
    expect(memory).toContain('-x-my-proj');
    put(join(memory, 'MEMORY.md'), '# Index\n- see debugging.md\n');
    put(join(memory, 'debugging.md'), 'Run tests with `npm test`.\n');
    put(join(memory, 'topics', 'api.txt'), 'REST, not GraphQL');
    put(join(memory, '.hidden.md'), 'secret');
    put(join(memory, '.git', 'notes.md'), 'hidden folder');
    put(join(memory, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    put(join(memory, 'binary.md'), Buffer.from([0x61, 0, 0x62]));
    put(join(memory, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    put(join(memory, 'huge.md'), 'a'.repeat(1024 * 1024 + 1));
    put(join(memory, 'settings.json'), '{}');
    // Another project's memory is not brought.
    put(join(home, '.claude', 'projects', '-other', 'memory', 'MEMORY.md'), 'other project');

    const planned = await planImport('claude-code', { home, projectDir });
    expect(planned).toEqual([
      { scope: 'project', path: '/MEMORY.md', content: '# Index\n- see debugging.md\n', source: join(memory, 'MEMORY.md') },
      { scope: 'project', path: '/debugging.md', content: 'Run tests with `npm test`.\n', source: join(memory, 'debugging.md') },
      { scope: 'project', path: '/topics/api.txt', content: 'REST, not GraphQL', source: join(memory, 'topics', 'api.txt') },
    ]);
  });

  it('keeps a file of exactly 1 MB', async () => {
    const memory = importSourceDir('codex', { home, projectDir });
    put(join(memory, 'big.md'), 'b'.repeat(1024 * 1024));
    expect((await planImport('codex', { home, projectDir })).map((p) => p.path)).toEqual(['/big.md']);
  });

  it('brings Codex’s memories into the global scope', async () => {
    const memories = join(home, '.codex', 'memories');
    put(join(memories, 'memory_summary.md'), 'Prefers pnpm.');
    put(join(memories, 'rollout_summaries', '2025-01-01.md'), 'Fixed the build.');
    const planned = await planImport('codex', { home, projectDir });
    expect(planned).toEqual([
      { scope: 'global', path: '/memory_summary.md', content: 'Prefers pnpm.', source: join(memories, 'memory_summary.md') },
      { scope: 'global', path: '/rollout_summaries/2025-01-01.md', content: 'Fixed the build.', source: join(memories, 'rollout_summaries', '2025-01-01.md') },
    ]);
  });

  it('reads from --from instead of the default folder', async () => {
    put(join(importSourceDir('claude-code', { home, projectDir }), 'MEMORY.md'), 'default');
    const from = join(root, 'elsewhere');
    put(join(from, 'notes.md'), 'from elsewhere');
    expect(await planImport('claude-code', { home, projectDir, from })).toEqual([
      { scope: 'project', path: '/notes.md', content: 'from elsewhere', source: join(from, 'notes.md') },
    ]);
    expect((await planImport('codex', { home, projectDir, from }))[0]?.scope).toBe('global');
  });

  it('does not follow links out of the folder', async () => {
    const memories = join(home, '.codex', 'memories');
    put(join(root, 'outside', 'secret.md'), 'outside');
    mkdirSync(memories, { recursive: true });
    symlinkSync(join(root, 'outside', 'secret.md'), join(memories, 'link.md'));
    symlinkSync(join(root, 'outside'), join(memories, 'linked-folder'));
    expect(await planImport('codex', { home, projectDir })).toEqual([]);
  });

  it('finds nothing in an empty folder', async () => {
    mkdirSync(importSourceDir('claude-code', { home, projectDir }), { recursive: true });
    mkdirSync(importSourceDir('codex', { home, projectDir }), { recursive: true });
    expect(await planImport('claude-code', { home, projectDir })).toEqual([]);
    expect(await planImport('codex', { home, projectDir })).toEqual([]);
  });

  it('names the folder when there is none', async () => {
    const claude = importSourceDir('claude-code', { home, projectDir });
    await expect(planImport('claude-code', { home, projectDir })).rejects.toThrow(`no Claude Code memories at ${claude}`);
    await expect(planImport('codex', { home, projectDir })).rejects.toThrow(`no Codex memories at ${join(home, '.codex', 'memories')}`);
    const from = join(root, 'missing');
    await expect(planImport('codex', { home, projectDir, from })).rejects.toThrow(`no Codex memories at ${from}`);
    put(join(root, 'a-file'), 'not a folder');
    await expect(planImport('claude-code', { home, projectDir, from: join(root, 'a-file') })).rejects.toThrow(`no Claude Code memories at ${join(root, 'a-file')}`);
  });
});

describe('placeImports', () => {
  const plan = (scope: 'project' | 'global', path: string): PlannedImport => ({ scope, path, content: path, source: `/src${path}` });
  const takenIn = (names: string[]) => (scope: 'project' | 'global', path: string) => Promise.resolve(names.includes(`${scope}:${path}`));

  it('keeps free names and renames a taken one with -imported before its extension', async () => {
    const placed = await placeImports(
      [plan('project', '/MEMORY.md'), plan('project', '/debugging.md'), plan('global', '/MEMORY.md'), plan('project', '/notes/todo'), plan('project', '/a.b/c.tar.md')],
      takenIn(['project:/MEMORY.md', 'project:/notes/todo', 'project:/a.b/c.tar.md']),
    );
    expect(placed.map((p) => `${p.scope}:${p.path}`)).toEqual([
      'project:/MEMORY-imported.md',
      'project:/debugging.md',
      'global:/MEMORY.md',
      'project:/notes/todo-imported',
      'project:/a.b/c.tar-imported.md',
    ]);
    expect(placed[0]).toMatchObject({ content: '/MEMORY.md', source: '/src/MEMORY.md' });
  });

  it('counts on when -imported is taken too', async () => {
    const placed = await placeImports([plan('global', '/x.md')], takenIn(['global:/x.md', 'global:/x-imported.md', 'global:/x-imported-2.md']));
    expect(placed.map((p) => p.path)).toEqual(['/x-imported-3.md']);
  });

  it('never lands two imports on one name', async () => {
    const placed = await placeImports(
      [plan('project', '/x.md'), plan('project', '/x.md'), plan('project', '/x.md'), plan('global', '/x.md')],
      takenIn([]),
    );
    expect(placed.map((p) => `${p.scope}:${p.path}`)).toEqual(['project:/x.md', 'project:/x-imported.md', 'project:/x-imported-2.md', 'global:/x.md']);
  });

  it('lets an import keep its own name before a renamed one would take it', async () => {
    const placed = await placeImports([plan('project', '/x.md'), plan('project', '/x-imported.md')], takenIn(['project:/x.md']));
    expect(placed.map((p) => p.path)).toEqual(['/x-imported-2.md', '/x-imported.md']);
  });

  it('places the plan read from real folders against memories already there', async () => {
    const memory = importSourceDir('claude-code', { home, projectDir });
    put(join(memory, 'MEMORY.md'), 'index');
    put(join(memory, 'debugging.md'), 'tips');
    const placed = await placeImports(await planImport('claude-code', { home, projectDir }), takenIn(['project:/MEMORY.md']));
    expect(placed.map((p) => [p.path, p.content])).toEqual([['/MEMORY-imported.md', 'index'], ['/debugging.md', 'tips']]);
  });
});
