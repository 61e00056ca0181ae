// The first snapshot of a folder, taken in the background (Scale 1): in slices, its content
// written by a worker thread; stoppable, and complete once it says so.

import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointRecorder } from './recorder';
import { sha256 } from './scan';
import { CheckpointStore } from './store';

let dir: string;
let root: string;
let store: CheckpointStore;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-baseline-')));
  root = path.join(dir, 'project');
  // About 3 MB in 400 files: more than one batch for the writer.
  for (let d = 0; d < 8; d++) {
    fs.mkdirSync(path.join(root, `pkg${d}`, 'src'), { recursive: true });
    for (let f = 0; f < 50; f++) fs.writeFileSync(path.join(root, `pkg${d}`, 'src', `file${f}.ts`), `// ${d}/${f}\n` + `export const v = '${'x'.repeat(7000 + f)}';\n`);
  }
  store = CheckpointStore.open(path.join(dir, 'data'));
});

afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the first snapshot, in the background', () => {
  it('keeps every file exactly (written by the worker), and says it has a baseline only at the end', async () => {
    const recorder = new CheckpointRecorder(store, root);
    expect(store.hasBaseline(recorder.root)).toBe(false);
    await recorder.prepareBaseline();
    expect(store.hasBaseline(recorder.root)).toBe(true);
    const manifest = store.manifest(recorder.root);
    const files = [...manifest.values()].filter((row) => row.type === 'f');
    expect(files).toHaveLength(400);
    for (const row of files) {
      const data = fs.readFileSync(path.join(recorder.root, row.path));
      expect(row.hash).toBe(sha256(data));
      expect(store.blob(row.hash)?.equals(data)).toBe(true);
    }
  });

  it('stops when asked, without claiming a baseline, and a later one completes', async () => {
    const recorder = new CheckpointRecorder(store, root);
    const stop = new AbortController();
    stop.abort();
    await expect(recorder.prepareBaseline(stop.signal)).rejects.toThrow();
    expect(store.hasBaseline(recorder.root)).toBe(false);
    await recorder.prepareBaseline();
    expect(store.hasBaseline(recorder.root)).toBe(true);
    expect([...store.manifest(recorder.root).values()].filter((row) => row.type === 'f')).toHaveLength(400);
  });

  it('stores its rows as it goes, each only once its content is stored: one stopped midway leaves rows that a later one builds on', async () => {
    const recorder = new CheckpointRecorder(store, root);
    // Stopped at the first look after some rows were stored (the walk looks between slices).
    const stop = new AbortController();
    stop.signal.throwIfAborted = () => {
      if (store.manifestSize(recorder.root) > 0) throw new Error('stopped midway');
    };
    await expect(recorder.prepareBaseline(stop.signal)).rejects.toThrow('stopped midway');
    expect(store.hasBaseline(recorder.root)).toBe(false);
    const stored = [...store.manifest(recorder.root).values()].filter((row) => row.type === 'f');
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.length).toBeLessThan(400);
    for (const row of stored) expect(store.blob(row.hash)?.equals(fs.readFileSync(path.join(recorder.root, row.path)))).toBe(true);
    await recorder.prepareBaseline();
    expect(store.hasBaseline(recorder.root)).toBe(true);
    expect([...store.manifest(recorder.root).values()].filter((row) => row.type === 'f')).toHaveLength(400);
  });
});
