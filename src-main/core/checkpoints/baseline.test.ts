// The first snapshot of a folder, taken in the background (Scale 1): in slices, its content
// written by a worker thread; stoppable, and complete once it says so.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointRecorder } from './recorder';
import { workerExecArgv } from './blob-writer';
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

describe('the first snapshot where the agent host runs', () => {
  it('is written by the worker in a process started with --input-type=module (as the host is): the folder has its baseline', () => {
    const here = path.dirname(new URL(import.meta.url).pathname);
    const program = `
      import { CheckpointRecorder } from ${JSON.stringify(path.join(here, 'recorder.ts'))};
      import { CheckpointStore } from ${JSON.stringify(path.join(here, 'store.ts'))};
      const store = CheckpointStore.open(${JSON.stringify(path.join(dir, 'data'))});
      const recorder = new CheckpointRecorder(store, ${JSON.stringify(root)});
      await recorder.prepareBaseline();
      process.stdout.write(String(store.hasBaseline(recorder.root)));
      store.close();`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 60_000 });
    expect(out).toBe('true');
    expect(store.hasBaseline(root)).toBe(true);
    expect([...store.manifest(root).values()].filter((row) => row.type === 'f')).toHaveLength(400);
  });

  it('the worker leaves out the options that make its script a module, and V8’s heap sizes (a worker refuses them)', () => {
    expect(
      workerExecArgv(['--input-type=module', '--max-old-space-size=4096', '--input-type', 'module', '--experimental-default-type=module', '--max-semi-space-size', '4', '--max_semi_space_size=4', '--enable-source-maps']),
    ).toEqual(['--enable-source-maps']);
  });

  it('has its worker in a process started with the agent host’s V8 options (its young generation held small)', () => {
    const here = path.dirname(new URL(import.meta.url).pathname);
    const program = `
      import { BlobWriter } from ${JSON.stringify(path.join(here, 'blob-writer.ts'))};
      import { CheckpointStore } from ${JSON.stringify(path.join(here, 'store.ts'))};
      const store = CheckpointStore.open(${JSON.stringify(path.join(dir, 'data'))});
      const writer = BlobWriter.start(store.db);
      if (writer) {
        await writer.put([{ hash: 'h', data: Buffer.from('held in the worker') }]);
        await writer.close();
      }
      process.stdout.write(writer ? 'worker' : 'none');
      store.close();`;
    // As clients/host-client/launch.ts starts the host (HOST_V8_FLAGS).
    const out = execFileSync(process.execPath, ['--max-semi-space-size=4', '--import', 'tsx', '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 60_000 });
    expect(out).toBe('worker');
    expect(store.blob('h')?.toString()).toBe('held in the worker');
  });
});

describe('a step on a folder without its first snapshot', () => {
  it('a command that said nothing of how it ran counts none of the folder’s files as added; the snapshot is taken then, and the next step is exact', async () => {
    const recorder = new CheckpointRecorder(store, root);
    const info = { threadId: 't', messageIndex: 0, messageLine: 'go' };
    const first = await recorder.step({ ...info, toolCallId: 'c1', tool: 'execute' }, 'command', async () => {
      fs.writeFileSync(path.join(root, 'made.txt'), 'new\n');
    });
    expect(first.changes).toEqual([]);
    expect(store.hasBaseline(recorder.root)).toBe(true);
    const second = await recorder.step({ ...info, toolCallId: 'c2', tool: 'execute' }, 'command', async () => {
      fs.writeFileSync(path.join(root, 'pkg0', 'src', 'file0.ts'), 'changed\n');
    });
    expect(second.changes.map((c) => c.path)).toEqual(['pkg0/src/file0.ts']);
  });
});
