// A command in a provider's sandbox is recorded by the checkpoints exactly as a sandboxed command
// on this machine is (SPEC §8, §18): what it changed reaches the folder through the one checked
// layer step (core/sandbox/apply-checked-layer.ts), applied as the step's own, with the attribution
// its tool call was given. So a save of the person's made meanwhile is the person's, not the step's,
// and the step's checkpoint is attributed (a restore need not ask about it); a hunk of its change
// is the thread's and goes back byte for byte (SPEC §24). The provider is the
// Daytona adapter and its official SDK over the Daytona stand-in; the local command runs under
// bubblewrap on its write layer.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ExecuteOptions, ExecuteResult } from '../../core/backends/protocol';
import { LocalShellBackend } from '../../core/backends/filesystem/local-shell';
import { CheckpointHistory } from '../../core/checkpoints/history';
import { CheckpointRecorder, recorderFor, type StepInfo } from '../../core/checkpoints/recorder';
import { CheckpointStore } from '../../core/checkpoints/store';
import { createSandbox, detectSandbox } from '../../core/sandbox';
import { writeLayerTools } from '../../core/sandbox/write-layer';
import { createDaytonaProvider } from '../../core/sandbox-providers/daytona/daytona-provider';
import type { SandboxProvider } from '../../core/sandbox-providers/provider';
import { startDaytonaStandin } from '../../core/sandbox-providers/testing/daytona-standin';
import type { ProviderStandin } from '../../core/sandbox-providers/testing/standin';
import { openSandboxPlace } from './sandbox-place';
import { SandboxStore } from './sandbox-store';

const layered = (await detectSandbox()).available && (await writeLayerTools()) !== undefined;

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

let standin: ProviderStandin | undefined;
let provider: SandboxProvider | undefined;
beforeAll(async () => {
  standin = await startDaytonaStandin();
  provider = createDaytonaProvider({ env: { ...standin.env } });
});
afterAll(async () => {
  await standin?.close();
});

const info: StepInfo = { threadId: 'thread-1', messageIndex: 0, messageLine: 'make it', toolCallId: 'call-7', tool: 'execute' };

interface Place {
  folder: string;
  execute(command: string, options: ExecuteOptions): Promise<ExecuteResult>;
}

function folder(): { folder: string; dataDir: string } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-step-attr-')));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const project = path.join(dir, 'w');
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(project);
  fs.mkdirSync(dataDir);
  execFileSync('git', ['init', '-q'], { cwd: project });
  fs.writeFileSync(path.join(project, 'notes.md'), 'mine\n');
  return { folder: project, dataDir };
}

const places: Record<'a sandboxed command on this machine' | 'a command in a Daytona sandbox', () => Promise<Place>> = {
  'a sandboxed command on this machine': async () => {
    const { folder: project, dataDir } = folder();
    const sandbox = await createSandbox({ projectDir: project, dataDir });
    const shell = new LocalShellBackend({ rootDir: project, env: { HOME: path.dirname(project) }, ...(sandbox ? { sandbox } : {}) });
    return { folder: project, execute: (command, options) => shell.execute(command, options) };
  },
  'a command in a Daytona sandbox': async () => {
    const { folder: project, dataDir } = folder();
    const db = new Database(':memory:');
    cleanup.push(() => db.close());
    const store = new SandboxStore(db);
    const record = store.put({ folder: project, worktree: 'w', provider: 'daytona' });
    const place = await openSandboxPlace({ record, store, dataDir, env: process.env, settings: () => ({}), savedKeys: async () => ({}), say: () => undefined, provider: provider! });
    cleanup.push(async () => {
      await place.close();
      await provider!.remove(place.sandbox.id).catch(() => undefined);
    });
    return { folder: project, execute: (command, options) => place.shell.execute(command, options) };
  },
};

describe.skipIf(!layered)('a command step is recorded as its own, wherever the command ran', () => {
  it.each(Object.keys(places) as Array<keyof typeof places>)('%s: its change is the step’s (thread, tool call), attributed; the person’s save meanwhile is the person’s', async (where) => {
    const place = await places[where]();
    const data = path.join(path.dirname(place.folder), 'data', 'checkpoints');
    const store = CheckpointStore.open(data);
    cleanup.push(() => store.close());
    const recorder = new CheckpointRecorder(store, place.folder);
    await recorder.step({ ...info, toolCallId: 'call-0' }, ['notes.md'], async () => undefined);
    // The person saves while the thread works: not the step's.
    fs.writeFileSync(path.join(place.folder, 'notes.md'), 'mine, edited\n');

    const step = await recorder.step(info, 'command', (attribution) => place.execute('mkdir -p out && echo made > out/made.txt', { timeoutS: 60, attribution }));

    expect(step.result.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(place.folder, 'out', 'made.txt'), 'utf8')).toBe('made\n');
    expect(step.changes.map((c) => c.path).sort()).toEqual(['out', 'out/made.txt']);
    expect(step.checkpoint).toMatchObject({ threadId: 'thread-1', toolCallId: 'call-7', tool: 'execute', messageIndex: 0, messageLine: 'make it' });
    expect(step.checkpoint?.unattributed ?? false).toBe(false);
  });
});

describe.skipIf(!layered)('a hunk a command step wrote goes back byte for byte, wherever the command ran (SPEC §24)', () => {
  it.each(Object.keys(places) as Array<keyof typeof places>)('%s: the hunk is the thread’s, its revert a recorded restore, CRLF kept', async (where) => {
    const place = await places[where]();
    const store = CheckpointStore.open(path.join(path.dirname(place.folder), 'data', 'checkpoints'));
    cleanup.push(() => store.close());
    const file = path.join(place.folder, 'crlf.txt');
    fs.writeFileSync(file, 'one\r\ntwo\r\nthree\r\n');
    // The folder's one recorder, as the history's revert finds it.
    const recorder = recorderFor(store, place.folder);
    await recorder.step({ ...info, toolCallId: 'call-0' }, 'all', async () => undefined);
    await recorder.step({ ...info, model: 'model-p' }, 'command', (attribution) => place.execute(String.raw`printf 'one\r\nTWO\r\nthree\r\n' > crlf.txt`, { timeoutS: 60, attribution }));
    expect(fs.readFileSync(file, 'latin1')).toBe('one\r\nTWO\r\nthree\r\n');

    const history = new CheckpointHistory(store);
    const hunks = history.threadChanges('thread-1').find((f) => f.path === 'crlf.txt')?.hunks ?? [];
    expect(hunks.map((h) => [h.lines, h.authors])).toEqual([[['-two\r', '+TWO\r'], [{ kind: 'agent', thread: 'thread-1', model: 'model-p' }]]]);
    const outcome = await history.revertHunk('thread-1', 'crlf.txt', hunks[0]!.id, 'ask');
    expect(outcome).toMatchObject({ applied: true, restored: ['crlf.txt'], checkpoint: { kind: 'restore' } });
    expect(fs.readFileSync(file, 'latin1')).toBe('one\r\ntwo\r\nthree\r\n');
  });
});

describe.skipIf(!layered)('a command’s sensitive writes are reviewed before they reach the folder, wherever the command ran (SPEC §23 (5))', () => {
  it.each(Object.keys(places) as Array<keyof typeof places>)('%s: a refused file is left out and named, the rest lands', async (where) => {
    const place = await places[where]();
    const told: string[] = [];
    const result = await place.execute('mkdir -p .github/workflows && echo "run: x" > .github/workflows/ci.yml && echo made > made.txt', {
      timeoutS: 60,
      reviewLayer: async (writes) => {
        told.push(...writes.map((w) => w.path));
        const ci = writes.find((w) => w.path === '/.github/workflows/ci.yml');
        expect(ci?.contents()).toEqual({ before: null, after: 'run: x\n' });
        return new Map([['/.github/workflows/ci.yml', 'denied by the reviewer: no CI changes']]);
      },
    });
    expect(told).toContain('/made.txt');
    expect(fs.existsSync(path.join(place.folder, '.github/workflows/ci.yml'))).toBe(false);
    expect(fs.readFileSync(path.join(place.folder, 'made.txt'), 'utf8')).toBe('made\n');
    expect(result.output).toContain('[Sandbox blocked a write to /.github/workflows/ci.yml (denied by the reviewer: no CI changes)');
  });
});
