// The layer check on its own, over real overlays: what it refuses and how it says so.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkLayer } from './layer-check';
import { createWriteLayer, discardLayer, readLayer, writeLayerTools, type WriteLayer } from './write-layer';

const tools = await writeLayerTools();

let dir: string;
let project: string;
let home: string;
const layers: WriteLayer[] = [];
const cleanups: Array<() => void> = [];
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-lcheck-')));
  project = path.join(dir, 'p');
  home = path.join(dir, 'home');
  fs.mkdirSync(project);
  fs.mkdirSync(home);
});
afterEach(() => {
  for (const undo of cleanups.splice(0)) undo();
  for (const l of layers.splice(0)) discardLayer(l.dir);
  fs.rmSync(dir, { recursive: true, force: true });
});

function runIn(script: string): Promise<WriteLayer> {
  const layer = createWriteLayer(tools!, project);
  layers.push(layer);
  const { file, args } = layer.wrap('/bin/sh', ['-c', `cd "$1" && ${script}`, 'sh', project]);
  const env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
  return new Promise((resolve, reject) => {
    execFile(file, args, { env }, (error, _out, stderr) => (error ? reject(new Error(stderr)) : resolve(layer)));
  });
}

const whys = (items: Awaited<ReturnType<typeof checkLayer>>['items']): string[] => items.map((i) => ('path' in i ? `${path.relative(project, i.path)}: ${i.why}` : ''));

describe.skipIf(!tools)('checking a write layer before it is applied', () => {
  it("a new repository's config is applied reduced to what runs nothing", async () => {
    const layer = await runIn('git init -q n && git -C n config core.fsmonitor "touch /tmp/never; false"');
    const verdict = await checkLayer(layer, await readLayer(layer), { home, protectedPaths: [] });
    expect(verdict.apply.map((e) => e.rel)).toContain('n/.git/config');
    expect(fs.readFileSync(path.join(layer.dir, 'upper', 'n', '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(whys(verdict.items)).toEqual(['n/.git/config: settings that run programs; reset']);
  });

  it('a config that cannot be reduced is not applied, and the result says it could not be reset', async () => {
    const layer = await runIn('git init -q n && git -C n config core.fsmonitor "touch /tmp/never; false"');
    const config = path.join(layer.dir, 'upper', 'n', '.git', 'config');
    try {
      execFileSync('chattr', ['+i', config], { stdio: 'ignore' });
    } catch {
      return;
    }
    cleanups.push(() => execFileSync('chattr', ['-i', config], { stdio: 'ignore' }));
    const verdict = await checkLayer(layer, await readLayer(layer), { home, protectedPaths: [] });
    expect(verdict.apply.map((e) => e.rel)).not.toContain('n/.git/config');
    expect(whys(verdict.items).join('\n')).toMatch(/n\/\.git\/config: could not reset \(EPERM\)/);
  });

  it('a hook of a new repository is left out, the rest of the layer is not', async () => {
    const layer = await runIn('git init -q n && printf "#!/bin/sh\\n" > n/.git/hooks/pre-commit && echo a > a.txt');
    const verdict = await checkLayer(layer, await readLayer(layer), { home, protectedPaths: [] });
    const rels = verdict.apply.map((e) => e.rel);
    expect(rels).not.toContain('n/.git/hooks/pre-commit');
    expect(rels).toContain('a.txt');
    expect(rels).toContain('n/.git/HEAD');
    expect(whys(verdict.items)).toEqual(['n/.git/hooks/pre-commit: a git hook would run outside the sandbox; not applied']);
  });
});
