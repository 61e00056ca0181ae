// The layer's view (layer-view.ts) must show git's surface exactly as it is once the layer
// is applied: the check runs on the view, so any difference is a hole. Each case runs a real
// command on a real overlay, reads the surface through the view, applies the layer and reads
// the real folder's surface again.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotGitSurface, type GitSurface } from '../git/surface';
import { layerView } from './layer-view';
import { applyLayer, createWriteLayer, discardLayer, readLayer, writeLayerTools, type WriteLayer } from './write-layer';

const tools = await writeLayerTools();

let dir: string;
let project: string;
let home: string;
const layers: WriteLayer[] = [];
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-lview-')));
  project = path.join(dir, 'p');
  home = path.join(dir, 'home');
  fs.mkdirSync(project);
  fs.mkdirSync(home);
});
afterEach(() => {
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

function summary(s: GitSurface): Record<string, unknown> {
  return {
    gitDirs: [...s.gitDirs.keys()].sort(),
    targets: [...s.targets].sort(),
    entries: [...s.entries]
      .map(([p, e]) => [p, e.role, e.kind, e.gitDir, e.mode, e.content?.toString('utf8') ?? e.digest])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  };
}

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' }, encoding: 'utf8' });

const cases: Array<{ name: string; before?: () => void; script: string }> = [
  { name: 'a new repository', script: 'git init -q fresh && git -C fresh config core.fsmonitor "x; false"' },
  { name: 'a .git file pointing at a folder it completes', before: () => fs.mkdirSync(path.join(project, 'ev', 'refs'), { recursive: true }), script: 'mkdir ev/objects && echo ref: refs/heads/m > ev/HEAD && echo "gitdir: ev" > .git' },
  { name: 'a commondir in an existing repository', before: () => void git(project, 'init', '-q'), script: 'cp -r .git ev && echo ../ev > .git/commondir; true' },
  { name: 'links the layer makes on the way to a repository', script: 'git init -q real && ln -s real alias && echo "gitdir: alias/.git" > .git' },
  {
    name: 'a folder removed and made anew (opaque) holding a repository',
    before: () => {
      fs.mkdirSync(path.join(project, 'sub', 'old'), { recursive: true });
      fs.writeFileSync(path.join(project, 'sub', 'old', 'f'), 'x');
    },
    script: 'rm -rf sub && mkdir sub && git init -q sub/r',
  },
  {
    name: 'a file removed from a folder that was a repository',
    before: () => {
      fs.mkdirSync(path.join(project, 'bare', 'objects'), { recursive: true });
      fs.mkdirSync(path.join(project, 'bare', 'refs'));
      fs.writeFileSync(path.join(project, 'bare', 'HEAD'), 'ref: refs/heads/m\n');
      fs.writeFileSync(path.join(project, 'bare', 'config'), '[core]\n\tbare = true\n');
    },
    script: 'rm bare/HEAD && echo "[core]" > bare/config',
  },
];

describe.skipIf(!tools)("the layer's view shows git's surface as applying the layer makes it", () => {
  for (const c of cases) {
    it(c.name, async () => {
      c.before?.();
      const layer = await runIn(c.script);
      const entries = await readLayer(layer);
      const seen = summary(await snapshotGitSurface(project, home, undefined, layerView(project, path.join(layer.dir, 'upper'), entries)));
      const applied = applyLayer(layer, entries);
      expect(applied.failed).toEqual([]);
      expect(seen).toEqual(summary(await snapshotGitSurface(project, home)));
    });
  }
});
