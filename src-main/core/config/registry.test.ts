import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changesFolderConfiguration, CONFIG_KINDS, folderConfigPaths, folderConfiguration, isFolderConfigPath, personConfigPaths } from './registry';
import { watchPersonConfiguration } from './watch-person-configuration';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dd-registry-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the folder-configuration registry', () => {
  it('every kind is one entry with its places, and no two kinds are the same kind', () => {
    expect(new Set(CONFIG_KINDS.map((k) => k.kind)).size).toBe(CONFIG_KINDS.length);
    for (const kind of CONFIG_KINDS) {
      expect(kind.projectPaths.length, kind.kind).toBeGreaterThan(0);
      expect(kind.userPaths({ dataDir: '/data', home: '/home/p' }).length, kind.kind).toBeGreaterThan(0);
    }
    expect(folderConfigPaths()).toEqual(expect.arrayContaining(['.mcp.json', '.deepdesk/hooks.json', '.claude/skills']));
    expect(personConfigPaths({ dataDir: '/data', home: '/home/p' })).toEqual(expect.arrayContaining(['/data/mcp.json', '/data/hooks.json', '/home/p/.claude/skills']));
  });

  it('a change at a configuration place, below one, or to a folder on the way to one, is a configuration change', () => {
    for (const path of ['/.mcp.json', '/.deepdesk/hooks.json', '/.claude/skills/pdf/SKILL.md', '/.claude/skills', '/.claude', '/.deepdesk', '/.agents']) expect(isFolderConfigPath(path), path).toBe(true);
    for (const path of ['/', '/src/a.ts', '/.mcp.json.bak', '/.claudex', '/.claude-skills/x', '/README.md']) expect(isFolderConfigPath(path), path).toBe(false);
  });

  it('a script a folder hook runs is part of its configuration: changing it is a configuration change', () => {
    mkdirSync(join(dir, '.deepdesk'));
    writeFileSync(join(dir, '.deepdesk', 'hooks.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'sh tools/stop.sh' }] }] } }));
    mkdirSync(join(dir, 'tools'));
    writeFileSync(join(dir, 'tools', 'stop.sh'), 'exit 0\n');
    expect(changesFolderConfiguration(dir, [{ path: '/tools/stop.sh' }])).toBe(true);
    expect(changesFolderConfiguration(dir, [{ path: '/tools' }])).toBe(true);
    expect(changesFolderConfiguration(dir, [{ path: '/src/other.sh' }])).toBe(false);
  });

  it("reads every kind of the folder's configuration, and a broken file is a problem, not a throw", () => {
    writeFileSync(join(dir, '.mcp.json'), '{ not json');
    mkdirSync(join(dir, '.claude', 'skills', 'pdf'), { recursive: true });
    writeFileSync(join(dir, '.claude', 'skills', 'pdf', 'SKILL.md'), '---\nname: pdf\ndescription: PDFs\n---\nbody\n');
    const read = folderConfiguration(dir, {});
    expect(read.entries.map((e) => e.key)).toEqual(['skill:.claude/skills/pdf']);
    expect(read.problems).toEqual([expect.stringContaining('.mcp.json')]);
  });
});

describe("the person's configuration watcher", () => {
  it('calls back once for a burst of changes, and for a place made after it started', async () => {
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    let calls = 0;
    const watcher = watchPersonConfiguration(personConfigPaths({ dataDir, home: join(dir, 'home') }), () => calls++);
    try {
      writeFileSync(join(dataDir, 'mcp.json'), '{}');
      writeFileSync(join(dataDir, 'hooks.json'), '{}');
      await expect.poll(() => calls, { timeout: 60_000 }).toBe(1);
      writeFileSync(join(dataDir, 'unrelated.txt'), 'x');
      mkdirSync(join(dataDir, 'skills'));
      await expect.poll(() => calls, { timeout: 60_000 }).toBe(2);
    } finally {
      watcher.close();
    }
  });
});
