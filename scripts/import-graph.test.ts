// No file of src-main imports itself around a loop, not even through a type or an import():
// a cycle means a shared piece that belongs in a module below both. Folders keep the floors
// eslint.config.js declares (docs/development.md, "Layers"): no folder loop, no pair of app
// folders importing each other, nothing at app's root.

import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_FLOORS, CORE_FLOORS, VALUES_FROM_ABOVE } from '../eslint.config.js';
import { folderArrows, importCycles, importGraph, isTestFile } from './import-graph';

const repo = resolve(import.meta.dirname, '..');
const srcMain = join(repo, 'src-main');
let measured: ReturnType<typeof folderArrows> | undefined;
const arrowsOfSrcMain = (): ReturnType<typeof folderArrows> => (measured ??= folderArrows(srcMain));

describe('the import graph', () => {
  it('has no cycle in src-main, type imports and import() included', () => {
    const cycles = importCycles(importGraph(srcMain)).map((group) => group.map((file) => relative(repo, file)).join(' <-> '));
    expect(cycles).toEqual([]);
  });

  it('has no folder loop through values, import() included (only the one declared in VALUES_FROM_ABOVE)', () => {
    const arrows = arrowsOfSrcMain();
    const values = new Map([...arrows].map(([from, to]) => [from, [...to].filter(([, value]) => value).map(([target]) => target)]));
    const declared = new Set(Object.entries(VALUES_FROM_ABOVE).flatMap(([below, above]) => above.map((a) => `core/${below.split('/')[0]} -> core/${a}`)));
    for (const [from, to] of values) values.set(from, to.filter((target) => !declared.has(`${from} -> ${target}`)));
    expect(importCycles(values)).toEqual([]);
  });

  it('keeps app on its floors: every folder declared, nothing at its root, no pair both ways, at most 2 type-only arrows up', () => {
    // app's folders, and adapters' (a floor each): nothing at either root.
    for (const [dir, floors] of [
      ['app', APP_FLOORS.map((floor) => floor.split('/')[0]!)],
      ['app/adapters', APP_FLOORS.filter((floor) => floor.startsWith('adapters/')).map((floor) => floor.slice('adapters/'.length))],
    ] as const) {
      const entries = readdirSync(join(srcMain, dir), { withFileTypes: true });
      expect(entries.filter((e) => e.isFile() && !isTestFile(join(srcMain, dir, e.name))).map((e) => e.name)).toEqual([]);
      expect(entries.filter((e) => e.isDirectory()).map((e) => e.name).sort()).toEqual([...new Set(floors)].sort());
    }
    const arrows = arrowsOfSrcMain();
    const floorOf = (unit: string): number => (unit.startsWith('app/') ? APP_FLOORS.indexOf(unit.slice(4)) : -1);
    const bothWays: string[] = [];
    const climbs: string[] = [];
    for (const [from, to] of arrows) {
      if (!from.startsWith('app/')) continue;
      for (const [target, value] of to) {
        if (!target.startsWith('app/')) continue;
        if (arrows.get(target)?.has(from)) bothWays.push(`${from} <-> ${target}`);
        if (floorOf(target) > floorOf(from)) climbs.push(`${from} -> ${target}${value ? ' (values)' : ''}`);
      }
    }
    expect(bothWays).toEqual([]);
    expect(climbs.filter((c) => c.endsWith('(values)'))).toEqual([]);
    expect(climbs.length).toBeLessThanOrEqual(2);
  });

  it('keeps core on its floors: every folder declared', () => {
    const dirs = readdirSync(join(srcMain, 'core'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(dirs.sort()).toEqual([...CORE_FLOORS].sort());
  });

  it('has the command line above the clients, never both ways', () => {
    const arrows = arrowsOfSrcMain();
    expect(arrows.get('clients')?.has('cli') ?? false).toBe(false);
  });

  it('finds a cycle made only of type imports and re-exports, or held by an import()', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-graph-'));
    try {
      mkdirSync(join(dir, 'low'));
      writeFileSync(join(dir, 'low', 'a.ts'), "import type { B } from '../b';\nexport interface A { b?: B }\n");
      writeFileSync(join(dir, 'b.ts'), "export type { C as B } from './c.js';\n");
      writeFileSync(join(dir, 'c.ts'), "import { type A } from './low/a';\nexport interface C { a?: A }\n");
      writeFileSync(join(dir, 'd.ts'), "import type { A } from './low/a';\nexport type D = A;\n");
      writeFileSync(join(dir, 'e.ts'), "export const e = async () => (await import('./f')).f;\n");
      writeFileSync(join(dir, 'f.ts'), "import { e } from './e';\nexport const f = e;\n");
      writeFileSync(join(dir, 'g.ts'), "export const g = () => require('./h');\n");
      writeFileSync(join(dir, 'h.ts'), "import { g } from './g';\nexport const h = g;\n");
      const cycles = importCycles(importGraph(dir)).map((group) => group.map((file) => relative(dir, file)));
      expect(cycles.sort()).toEqual([['b.ts', 'c.ts', 'low/a.ts'], ['e.ts', 'f.ts'], ['g.ts', 'h.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
