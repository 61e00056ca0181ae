// No file of src-main imports itself around a loop, not even through a type: a cycle means
// a shared piece that belongs in a module below both (docs/development.md, "Layers").

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './import-graph';

const repo = resolve(import.meta.dirname, '..');

describe('the import graph', () => {
  it('has no cycle in src-main, type imports included', () => {
    const cycles = importCycles(importGraph(join(repo, 'src-main'))).map((group) => group.map((file) => relative(repo, file)).join(' <-> '));
    expect(cycles).toEqual([]);
  });

  it('finds a cycle made only of type imports and re-exports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-graph-'));
    try {
      mkdirSync(join(dir, 'low'));
      writeFileSync(join(dir, 'low', 'a.ts'), "import type { B } from '../b';\nexport interface A { b?: B }\n");
      writeFileSync(join(dir, 'b.ts'), "export type { C as B } from './c.js';\n");
      writeFileSync(join(dir, 'c.ts'), "import { type A } from './low/a';\nexport interface C { a?: A }\n");
      writeFileSync(join(dir, 'd.ts'), "import type { A } from './low/a';\nexport type D = A;\n");
      const cycles = importCycles(importGraph(dir)).map((group) => group.map((file) => relative(dir, file)));
      expect(cycles).toEqual([['b.ts', 'c.ts', 'low/a.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
