// Robustness 3: a change belongs to the agent's step only if the step's own processes made
// it. A real sandboxed command runs in a real pty while this test, as the person, saves files
// in the same folder; the recorder must give the person's saves to the person, and a
// restore of the step must keep them (and never report them as the agent's).

import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from '../sandbox';
import { runFoldersDir } from '../sandbox/run-folders';
import { writeLayerTools } from '../sandbox/write-layer';
import { CheckpointHistory } from './history';
import { CheckpointRecorder, type StepInfo } from './recorder';
import { CheckpointStore } from './store';

const layered = (await detectSandbox()).available && (await writeLayerTools()) !== undefined;

let dir: string;
let root: string;
let gate: string;
let store: CheckpointStore;
let history: CheckpointHistory;
let recorder: CheckpointRecorder;
let backend: LocalShellBackend;

beforeEach(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-cw-')));
  root = path.join(dir, 'project');
  gate = path.join(dir, 'gate');
  fs.mkdirSync(root);
  fs.mkdirSync(gate);
  store = CheckpointStore.open(path.join(dir, 'data'));
  history = new CheckpointHistory(store);
  recorder = new CheckpointRecorder(store, root);
  const sandbox = await createSandbox({ projectDir: root, dataDir: path.join(dir, 'data') });
  backend = new LocalShellBackend({ rootDir: root, env: { HOME: dir }, ...(sandbox ? { sandbox } : {}) });
});

afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const info: StepInfo = { threadId: 't1', messageIndex: 0, messageLine: 'fix it', toolCallId: 'call-1', tool: 'execute' };
const p = (rel: string): string => path.join(root, rel);
const write = (rel: string, data: string): void => {
  fs.mkdirSync(path.dirname(p(rel)), { recursive: true });
  fs.writeFileSync(p(rel), data);
};
const read = (rel: string): string => fs.readFileSync(p(rel), 'utf8');

/**
 * Runs `before`, says READY, waits until the person has done `person` (the gate file), then
 * runs `after`: a real concurrent writer during a real command, without a sleep as sync.
 */
async function commandWithPersonInBetween(before: string, person: () => void, after: string) {
  let seen = '';
  let released = false;
  const go = path.join(gate, 'go');
  const command = `${before}; echo READY; until [ -e '${go}' ]; do sleep 0.02; done; ${after}`;
  return recorder.step(info, 'command', (attribution) =>
    backend.execute(command, {
      attribution,
      timeoutS: 30,
      onData: (chunk) => {
        seen += chunk;
        if (!released && seen.includes('READY')) {
          released = true;
          person();
          fs.writeFileSync(go, '');
        }
      },
    }),
  );
}

describe.skipIf(!layered)('a person saving files while a sandboxed command runs (write layer)', () => {
  it("the person's save is the person's: not in the step's checkpoint, kept by a restore without force", async () => {
    write('app.py', 'print(1)\n');
    write('notes.md', 'mine\n');
    const step = await commandWithPersonInBetween(
      'echo "print(2)" > app.py',
      () => fs.writeFileSync(p('notes.md'), 'mine, edited during the command\n'),
      'echo built > out.txt',
    );
    expect(step.result.exitCode).toBe(0);
    expect(step.changes.map((c) => c.path).sort()).toEqual(['app.py', 'out.txt']);
    expect(history.list('t1').map((c) => c.kind)).toEqual(['agent']);
    // No walk of the folder: only what the command wrote was looked at.
    const agentEntries = store.db.prepare("SELECT COUNT(*) AS n FROM checkpoints c JOIN entries e ON e.checkpoint_seq = c.seq WHERE c.kind = 'agent' AND e.path = 'notes.md'").get() as { n: number };
    expect(agentEntries.n).toBe(0);

    const restored = await history.restoreTo(step.checkpoint!.id, 'ask');
    expect(restored.applied).toBe(true);
    expect(restored.conflicts).toEqual([]);
    expect(read('app.py')).toBe('print(1)\n');
    expect(fs.existsSync(p('out.txt'))).toBe(false);
    expect(read('notes.md')).toBe('mine, edited during the command\n');
  });

  it('the command sees the person’s save live, and what the command writes reaches the folder when it ends', async () => {
    write('config.txt', 'old\n');
    const step = await commandWithPersonInBetween(
      "test ! -e made-early.txt && echo early > made-early.txt",
      () => {
        // Not in the folder yet: the command's writes reach it when the command has ended.
        expect(fs.existsSync(p('made-early.txt'))).toBe(false);
        fs.writeFileSync(p('config.txt'), 'set by the person\n');
      },
      'cat config.txt > seen.txt',
    );
    expect(step.result.exitCode).toBe(0);
    expect(read('made-early.txt')).toBe('early\n');
    expect(read('seen.txt')).toBe('set by the person\n');
    expect(step.changes.map((c) => c.path).sort()).toEqual(['made-early.txt', 'seen.txt']);
  });

  it('both change one file: the command’s version stands, and a restore brings back the person’s, not the older one', async () => {
    write('shared.txt', 'original\n');
    const step = await commandWithPersonInBetween('true', () => fs.writeFileSync(p('shared.txt'), 'person\n'), 'echo command > shared.txt');
    expect(read('shared.txt')).toBe('command\n');
    const entry = history.entries(step.checkpoint!).find((e) => e.path === 'shared.txt')!;
    expect(entry.status).toBe('modified');
    // What the step changed starts from the person's version, seen just before the command's was applied.
    expect(history.entries(step.checkpoint!).find((e) => e.path === 'shared.txt')?.before).not.toBeNull();
    const restored = await history.restoreTo(step.checkpoint!.id, 'ask');
    expect(restored.conflicts).toEqual([]);
    expect(read('shared.txt')).toBe('person\n');
  });

  it('removals, a folder made anew, links and modes are applied exactly', async () => {
    write('keep.txt', 'keep\n');
    write('gone.txt', 'gone\n');
    write('dist/old.js', 'old\n');
    write('dist/sub/older.js', 'older\n');
    write('tree/a/b.txt', 'b\n');
    const step = await backendStep(
      'rm gone.txt && rm -rf dist && mkdir dist && echo new > dist/new.js && rm -r tree && ln -s keep.txt link && echo run > run.sh && chmod 755 run.sh && mkdir -p deep/er && echo x > deep/er/x',
    );
    expect(step.result.exitCode).toBe(0);
    expect(fs.existsSync(p('gone.txt'))).toBe(false);
    expect(fs.readdirSync(p('dist'))).toEqual(['new.js']);
    expect(fs.existsSync(p('tree'))).toBe(false);
    expect(fs.readlinkSync(p('link'))).toBe('keep.txt');
    expect(fs.statSync(p('run.sh')).mode & 0o777).toBe(0o755);
    expect(read('deep/er/x')).toBe('x\n');
    expect(read('keep.txt')).toBe('keep\n');
    // Everything is the step's, and a restore undoes all of it.
    const restored = await history.restoreTo(step.checkpoint!.id, 'ask');
    expect(restored.conflicts).toEqual([]);
    expect(read('gone.txt')).toBe('gone\n');
    expect(read('dist/old.js')).toBe('old\n');
    expect(read('dist/sub/older.js')).toBe('older\n');
    expect(fs.existsSync(p('dist/new.js'))).toBe(false);
    expect(read('tree/a/b.txt')).toBe('b\n');
    expect(fs.existsSync(p('link'))).toBe(false);
  });

  it('a file the person adds to a folder the command removes and makes again stays', async () => {
    write('build/stale.js', 'stale\n');
    const step = await commandWithPersonInBetween(
      'rm -rf build && mkdir build && echo fresh > build/fresh.js',
      () => fs.writeFileSync(p('build/person.txt'), 'mine\n'),
      'true',
    );
    expect(step.result.exitCode).toBe(0);
    // The command removed what it saw; what the person added meanwhile it never saw.
    expect(fs.existsSync(p('build/stale.js'))).toBe(false);
    expect(read('build/fresh.js')).toBe('fresh\n');
    expect(read('build/person.txt')).toBe('mine\n');
    expect(step.changes.map((c) => c.path)).not.toContain('build/person.txt');
  });

  it('a stopped command’s writes still reach the folder and are the step’s', async () => {
    const stop = new AbortController();
    let seen = '';
    const step = await recorder.step(info, 'command', (attribution) =>
      backend.execute('echo partial > part.txt; echo READY; sleep 30', {
        attribution,
        timeoutS: 60,
        signal: stop.signal,
        onData: (chunk) => {
          seen += chunk;
          if (seen.includes('READY')) stop.abort();
        },
      }),
    );
    expect(step.result.exitCode).not.toBe(0);
    expect(read('part.txt')).toBe('partial\n');
    expect(step.changes.map((c) => c.path)).toEqual(['part.txt']);
  });

  it('nothing of the layer is left in the temp folder or the project', async () => {
    // This process's (run folders are named after it; other test files run beside this one).
    const layers = (): string[] => fs.readdirSync(runFoldersDir()).filter((n) => n.startsWith('deepdesk-layer-') && n.includes(`.${process.pid}-`));
    const before = new Set(layers());
    await backendStep('echo a > a.txt');
    // Removed in the background, after the result (run-folders.ts removeRunFolderLater).
    await expect.poll(() => layers().filter((n) => !before.has(n)), { timeout: 60_000 }).toEqual([]);
    expect(fs.readdirSync(root).sort()).toEqual(['a.txt']);
  });
});

function backendStep(command: string) {
  return recorder.step(info, 'command', (attribution) => backend.execute(command, { timeoutS: 30, attribution }));
}

describe('a command whose writes cannot be observed (outside the sandbox)', () => {
  it("is never taken for the agent's alone: a restore without force asks about each of its changes, and keeps the person's save", async () => {
    const unsandboxed = new LocalShellBackend({ rootDir: root, env: { HOME: dir } });
    write('app.py', 'print(1)\n');
    write('notes.md', 'mine\n');
    let seen = '';
    const go = path.join(gate, 'go');
    const step = await recorder.step(info, 'command', (attribution) =>
      unsandboxed.execute(`echo "print(2)" > app.py; echo READY; until [ -e '${go}' ]; do sleep 0.02; done`, {
        attribution,
        timeoutS: 30,
        onData: (chunk) => {
          seen += chunk;
          if (seen.includes('READY') && !fs.existsSync(go)) {
            fs.writeFileSync(p('notes.md'), 'mine, edited during the command\n');
            fs.writeFileSync(go, '');
          }
        },
      }),
    );
    expect(step.checkpoint?.unattributed).toBe(true);
    const asked = await history.restoreTo(step.checkpoint!.id, 'ask');
    expect(asked.applied).toBe(false);
    expect(asked.conflicts.map((c) => c.path).sort()).toEqual(['app.py', 'notes.md']);
    expect(read('notes.md')).toBe('mine, edited during the command\n');
    // Keeping mine restores nothing it cannot attribute.
    const kept = await history.restoreTo(step.checkpoint!.id, 'keep-mine');
    expect(kept.restored).toEqual([]);
    expect(read('notes.md')).toBe('mine, edited during the command\n');
  });
});
