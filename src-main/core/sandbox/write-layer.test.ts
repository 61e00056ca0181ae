// The write layer on its own: real overlays over real folders (names that overlay's option
// syntax would break among them), and the application of a layer as the person, which must
// never write through a link put in a parent folder while the command ran.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setRaceHookForTests } from '../fs/no-follow';
import { setInsideDeferredHookForTests } from './defer-signals';
import { applyLayer, createWriteLayer, discardLayer, readLayer, setStageHookForTests, writeLayerTools, type WriteLayer } from './write-layer';

const tools = await writeLayerTools();

let dir: string;
const layers: WriteLayer[] = [];
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-wl-')));
});
afterEach(() => {
  setStageHookForTests(null);
  setInsideDeferredHookForTests(null);
  setRaceHookForTests(null);
  for (const l of layers.splice(0)) discardLayer(l.dir);
  fs.rmSync(dir, { recursive: true, force: true });
});

function runIn(project: string, script: string): Promise<{ code: number; stderr: string }> {
  const layer = createWriteLayer(tools!, project);
  layers.push(layer);
  const { file, args } = layer.wrap('/bin/sh', ['-c', `cd "$1" && ${script}`, 'sh', project]);
  return new Promise((resolve) => {
    execFile(file, args, { env: process.env }, (error, _stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr: String(stderr) }));
  });
}

// The layer's suites skip where no layer can be made; on Linux that is a broken build, not a skip.
it.runIf(process.platform === 'linux')('is available on Linux: overlay-exec is built (npm run build) and overlays with a whiteout and an opaque folder', () => {
  expect(tools?.overlayExec).toMatch(/\/out\/native\/overlay-exec$/);
});

describe.skipIf(!tools)('the write layer', () => {
  for (const name of ['plain', 'with space', 'a,comma:colon', 'back\\slash']) {
    it(`overlays a folder named ${JSON.stringify(name)}: the command's writes stay in its layer until applied`, async () => {
      const project = path.join(dir, name);
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, 'a.txt'), 'a\n');
      const ran = await runIn(project, 'echo changed > a.txt && echo new > b.txt');
      expect(ran).toEqual({ code: 0, stderr: '' });
      expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('a\n');
      expect(fs.existsSync(path.join(project, 'b.txt'))).toBe(false);
      const layer = layers.at(-1)!;
      const applied = applyLayer(layer, await readLayer(layer));
      expect(applied.failed).toEqual([]);
      expect(applied.touched.sort()).toEqual(['a.txt', 'b.txt']);
      expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('changed\n');
      expect(fs.readFileSync(path.join(project, 'b.txt'), 'utf8')).toBe('new\n');
    });
  }

  it('a layer that cannot be mounted runs nothing: exit 125 and why, the folder untouched', async () => {
    const project = path.join(dir, 'p');
    fs.mkdirSync(project);
    const layer = createWriteLayer(tools!, project);
    layers.push(layer);
    fs.rmdirSync(path.join(layer.dir, 'work'));
    const marker = path.join(dir, 'ran');
    const launch = layer.wrap('/bin/sh', ['-c', 'touch "$1"; echo x > "$2/made"', 'sh', marker, project]);
    const ran = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(launch.file, launch.args, (error, _stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr: String(stderr) }));
    });
    expect(ran.code).toBe(125);
    expect(ran.stderr).toMatch(/^Deepdesk could not mount this command's overlay \(the overlay on .+: No such file or directory\)\n$/);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readdirSync(project)).toEqual([]);
  });

  it('the command keeps the locale it was given, set, empty or not', async () => {
    const project = path.join(dir, 'p');
    fs.mkdirSync(project);
    for (const given of [{ LC_ALL: 'C.UTF-8' }, { LC_ALL: '' }, { LC_ALL: 'x y=$z' }, {}] as Array<{ LC_ALL?: string }>) {
      const layer = createWriteLayer(tools!, project);
      layers.push(layer);
      const base: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...(given.LC_ALL !== undefined ? { LC_ALL: given.LC_ALL } : {}) };
      const launch = layer.wrap('/bin/sh', ['-c', 'printf %s "${LC_ALL-unset}"']);
      const out = await new Promise<string>((resolve, reject) => {
        execFile(launch.file, launch.args, { env: base }, (error, stdout) => (error ? reject(error) : resolve(String(stdout))));
      });
      expect(out).toBe(given.LC_ALL ?? 'unset');
    }
  });

  it('never writes or deletes through a link the person (or anyone) put in a parent folder meanwhile', async () => {
    const project = path.join(dir, 'p');
    const elsewhere = path.join(dir, 'elsewhere');
    fs.mkdirSync(path.join(project, 'sub'), { recursive: true });
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(project, 'sub', 'old.txt'), 'old\n');
    fs.writeFileSync(path.join(elsewhere, 'old.txt'), 'not the folder’s\n');
    const ran = await runIn(project, 'echo x > sub/new.txt && rm sub/old.txt');
    expect(ran.code).toBe(0);
    // Before the layer is applied, sub becomes a link out of the folder.
    fs.rmSync(path.join(project, 'sub'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(project, 'sub'));
    const layer = layers.at(-1)!;
    const applied = applyLayer(layer, await readLayer(layer));
    expect(applied.failed.map((f) => f.why)).toContain('goes through a link');
    expect(fs.readdirSync(elsewhere)).toEqual(['old.txt']);
    expect(fs.readFileSync(path.join(elsewhere, 'old.txt'), 'utf8')).toBe('not the folder’s\n');
  });

  it('a huge sparse file the command made is moved into the folder, not copied byte by byte', async () => {
    const project = path.join(dir, 'p');
    fs.mkdirSync(project);
    const ran = await runIn(project, 'truncate -s 20G sparse.bin');
    expect(ran.code).toBe(0);
    const layer = layers.at(-1)!;
    const applied = applyLayer(layer, await readLayer(layer));
    expect(applied.failed).toEqual([]);
    const st = fs.statSync(path.join(project, 'sparse.bin'));
    expect(st.size).toBe(20 * 1024 ** 3);
    expect(st.blocks * 512).toBeLessThan(1024 ** 2);
  });

  it('a path the person added while the command ran is spared by the command’s removals', async () => {
    const project = path.join(dir, 'p');
    fs.mkdirSync(path.join(project, 'out'), { recursive: true });
    fs.writeFileSync(path.join(project, 'out', 'old.js'), '1');
    const ran = await runIn(project, 'rm -r out');
    expect(ran.code).toBe(0);
    fs.writeFileSync(path.join(project, 'out', 'person.txt'), 'mine');
    const layer = layers.at(-1)!;
    applyLayer(layer, await readLayer(layer), (rel) => rel === 'out/person.txt');
    expect(fs.readdirSync(path.join(project, 'out'))).toEqual(['person.txt']);
  });

  it('a failure while staging (a full disk) leaves nothing of the layer applied, nor anything staged, and says so', async () => {
    const project = path.join(dir, 'p');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'a.txt'), 'a\n');
    const ran = await runIn(project, 'echo changed > a.txt && echo b > b.txt && echo c > c.txt && mkdir d && echo e > d/e.txt && rm -f gone');
    expect(ran.code).toBe(0);
    const layer = layers.at(-1)!;
    const entries = await readLayer(layer);
    setStageHookForTests((rel) => {
      if (rel === 'd/e.txt') throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    const applied = applyLayer(layer, entries);
    expect(applied.touched).toEqual([]);
    expect(applied.failed.map((f) => f.why).join('\n')).toMatch(/ENOSPC; none of the command's writes was applied/);
    expect(fs.readdirSync(project)).toEqual(['a.txt']);
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('an interrupt while the layer is put in place is handled only once all of it is in place', async () => {
    const project = path.join(dir, 'p');
    fs.mkdirSync(project);
    const ran = await runIn(project, 'mkdir many && cd many && seq 1 200 | sed s/^/f/ | xargs touch');
    expect(ran.code).toBe(0);
    const layer = layers.at(-1)!;
    // By identity, not by count: a file run before in this worker may still be removing its own.
    const before = new Set(process.listeners('SIGINT'));
    const sections = () => process.listeners('SIGINT').filter((l) => !before.has(l) && l !== onInterrupt);
    let seen: number | undefined;
    const onInterrupt = (): void => {
      seen = fs.readdirSync(path.join(project, 'many')).length;
    };
    process.on('SIGINT', onInterrupt);
    try {
      setInsideDeferredHookForTests(() => {
        // The default action (ending the process) is off for the section.
        expect(sections().length).toBeGreaterThan(0);
        process.kill(process.pid, 'SIGINT');
      });
      const applied = applyLayer(layer, await readLayer(layer));
      expect(applied.failed).toEqual([]);
      expect(seen).toBeUndefined();
      while (seen === undefined) await new Promise((resolve) => setImmediate(resolve));
      expect(seen).toBe(200);
      // The section's own listener is gone again.
      while (sections().length > 0) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('SIGINT', onInterrupt);
    }
  });

  it('a repository is never completed in the folder before the contents the layer gives it are there', async () => {
    // Written earlier, harmless while not a repository (no objects/): the layer makes it a
    // harmless one, and at no step of applying it is it a repository with the old config.
    const project = path.join(dir, 'p');
    fs.mkdirSync(path.join(project, 'x', 'refs', 'heads'), { recursive: true });
    fs.writeFileSync(path.join(project, 'x', 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(project, 'x', 'config'), '[core]\n\tfsmonitor = touch /tmp/never\n');
    const ran = await runIn(project, "printf '[core]\\n\\tbare = false\\n' > x/config && mkdir x/objects && echo y > x/objects/keep");
    expect(ran.code).toBe(0);
    const layer = layers.at(-1)!;
    const entries = await readLayer(layer);
    const live: string[] = [];
    setRaceHookForTests((rel) => {
      const shaped = fs.existsSync(path.join(project, 'x', 'objects'));
      if (shaped && fs.readFileSync(path.join(project, 'x', 'config'), 'utf8').includes('fsmonitor')) live.push(rel);
    });
    const applied = applyLayer(layer, entries);
    setRaceHookForTests(null);
    expect(applied.failed).toEqual([]);
    expect(live).toEqual([]);
    expect(fs.readFileSync(path.join(project, 'x', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n');
    expect(fs.readFileSync(path.join(project, 'x', 'objects', 'keep'), 'utf8')).toBe('y\n');
  });
});
