// Checkpoints told by the folder watcher which paths changed (Scale 1): a step whose writes
// cannot be observed (a command outside the sandbox's write layer) checks only those paths,
// and records exactly what a walk of the whole folder would have. Real watcher, real folder,
// real SQLite; the "command" is this test writing files as an unsandboxed process would.

import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeFeed } from '../../core/checkpoints/change-feed';
import { CheckpointRecorder, type StepInfo } from '../../core/checkpoints/recorder';
import { CheckpointStore } from '../../core/checkpoints/store';
import { FilesystemBackend } from '../../core/backends/filesystem/filesystem';
import type { Change } from '../../core/checkpoints/types';
import { FolderChangeFeed } from './folder-change-feed';
import { WorkspaceService } from './workspace-service';

let dir: string;
let root: string;
let store: CheckpointStore;
let walkStore: CheckpointStore;
let workspace: WorkspaceService;
let feed: FolderChangeFeed;
/** What the recorder got from the feed, per take. */
let answers: Array<ReadonlySet<string> | 'unknown'>;
let recorder: CheckpointRecorder;
/** The same folder recorded by walking it whole: what the feed's answers must match. */
let walker: CheckpointRecorder;

async function start(options: { maxPending?: number; maxLookedInto?: number } = {}): Promise<void> {
  feed = new FolderChangeFeed(root, { ...options, onBlindSpot: () => workspace.watchAgain() });
  workspace = new WorkspaceService({ folder: root, backend: new FilesystemBackend({ rootDir: root }), onChange: () => undefined, feed });
  await workspace.start();
  const counted: ChangeFeed = {
    take: async () => {
      const answer = await feed.take();
      answers.push(answer);
      return answer;
    },
    reset: () => feed.reset(),
  };
  recorder.useChangeFeed(counted, { fromEntries: 0 });
  await recorder.prepareBaseline();
  await walker.prepareBaseline();
}

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'deepdesk-feed-')));
  root = path.join(dir, 'project');
  fs.mkdirSync(root);
  write('src/app.ts', 'export const a = 1;\n');
  write('src/lib/util.ts', 'export const u = 1;\n');
  write('README.md', 'hello\n');
  write('.gitignore', 'dist/\n*.log\n');
  write('dist/bundle.js', 'bundle\n');
  write('node_modules/left-pad/index.js', 'module.exports = 1;\n');
  store = CheckpointStore.open(path.join(dir, 'data'));
  walkStore = CheckpointStore.open(path.join(dir, 'walk-data'));
  recorder = new CheckpointRecorder(store, root);
  walker = new CheckpointRecorder(walkStore, root);
  answers = [];
});

afterEach(async () => {
  await workspace?.dispose();
  store.close();
  walkStore.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const info = (n: number): StepInfo => ({ threadId: 't1', messageIndex: n, messageLine: `step ${n}`, toolCallId: `call-${n}`, tool: 'execute' });
const p = (rel: string): string => path.join(root, rel);
function write(rel: string, data: string): void {
  fs.mkdirSync(path.dirname(p(rel)), { recursive: true });
  fs.writeFileSync(p(rel), data);
}

/** A command step that cannot be observed (outside the sandbox's write layer), recorded by both recorders. */
async function blindStep(n: number, act: () => void): Promise<{ fed: Change[]; walked: Change[] }> {
  let fed: Change[] = [];
  const walked = await walker.step(info(n), 'command', async () => {
    const outcome = await recorder.step(info(n), 'command', async (attribution) => {
      await attribution.blind();
      act();
    });
    fed = outcome.changes;
  });
  return { fed, walked: walked.changes };
}

const summary = (changes: Change[]): string[] => changes.map((c) => `${c.path} ${c.before?.type ?? '-'}${c.before?.hash.slice(0, 8) ?? ''} → ${c.after?.type ?? '-'}${c.after?.hash.slice(0, 8) ?? ''}`);

describe('checkpoints told by the folder watcher what changed', () => {
  it('records a step that ends right after its last write (the barrier waits for the watcher) without walking', async () => {
    await start();
    const { fed, walked } = await blindStep(1, () => {
      write('src/app.ts', 'export const a = 2;\n');
      write('src/new/file.ts', 'new\n');
      fs.rmSync(p('README.md'));
    });
    expect(answers.length).toBe(2);
    expect(answers.every((a) => a !== 'unknown')).toBe(true);
    expect(summary(fed)).toEqual(summary(walked));
    expect(fed.map((c) => c.path)).toEqual(['README.md', 'src/app.ts', 'src/new', 'src/new/file.ts']);
  });

  it("gives a change made between steps to the person, and one made during the step to the step", async () => {
    await start();
    write('notes.md', 'mine\n');
    const during = await blindStep(1, () => write('src/app.ts', 'changed during\n'));
    expect(during.fed.map((c) => c.path)).toEqual(['src/app.ts']);
    const person = store.db.prepare<[], { id: string }>("SELECT id FROM checkpoints WHERE kind = 'person'").all();
    expect(person.flatMap(({ id }) => store.entries(store.checkpoint(id)!).map((e) => e.path))).toEqual(['notes.md']);
  });

  it('sees folders made and removed whole, dependency folders and ignored folders, as a walk does', async () => {
    await start();
    const { fed, walked } = await blindStep(1, () => {
      write('pkg/a/b/c/d.txt', 'd\n');
      write('pkg/a/e.txt', 'e\n');
      fs.rmSync(p('src/lib'), { recursive: true });
      write('node_modules/new-dep/index.js', 'dep\n');
      write('dist/other.js', 'other\n');
      write('debug.log', 'log\n');
    });
    expect(summary(fed)).toEqual(summary(walked));
    expect(fed.map((c) => c.path)).toEqual(expect.arrayContaining(['pkg/a/b/c/d.txt', 'src/lib/util.ts', 'node_modules', 'dist']));
  });

  it('keeps a large folder\'s rows in the store between steps, not in memory: a step reads what the store says now', async () => {
    // (fromEntries 0: every folder counts as large here.)
    await start();
    // The store forgets README.md behind the recorder's back: a recorder holding the rows it
    // recorded would still know it, and call the change below a modification.
    store.db.prepare('DELETE FROM manifest WHERE path = ?').run('README.md');
    const step = await blindStep(1, () => write('README.md', 'hello again\n'));
    expect(step.fed.map((c) => [c.path, c.before, c.after?.type])).toEqual([['README.md', null, 'f']]);
    // A walk still sees the whole folder: nothing else changed.
    const quiet = await blindStep(2, () => undefined);
    expect(quiet.fed).toEqual([]);
  });

  it('walks when the watcher gave up (too many changes, or its queue overflowed) and still records everything', async () => {
    await start({ maxPending: 5 });
    const many = await blindStep(1, () => {
      // In a folder the watcher already watches: each file is reported on its own.
      for (let i = 0; i < 20; i++) write(`src/f${i}.txt`, `${i}\n`);
    });
    expect(answers).toContain('unknown');
    expect(many.fed.length).toBe(20);
    expect(summary(many.fed)).toEqual(summary(many.walked));

    answers = [];
    const failed = await blindStep(2, () => {
      write('src/app.ts', 'after an overflow\n');
      // What the watcher says when the kernel's event queue overflowed.
      feed.failed();
    });
    expect(answers).toEqual([expect.any(Set), 'unknown']);
    expect(failed.fed.map((c) => c.path)).toEqual(['src/app.ts']);
    // After that walk the feed is trusted again.
    answers = [];
    await blindStep(3, () => write('src/app.ts', 'again\n'));
    expect(answers.every((a) => a !== 'unknown')).toBe(true);
  });

  it('a folder tree made or moved in at once (folders the watcher never saw made): later writes deep inside are still recorded', async () => {
    await start();
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(path.join(outside, 'tree', 'u', 'v'), { recursive: true });
    await blindStep(1, () => {
      fs.mkdirSync(p('made/q/r/s'), { recursive: true });
      fs.renameSync(path.join(outside, 'tree'), p('moved'));
    });
    answers = [];
    const { fed, walked } = await blindStep(2, () => {
      write('made/q/r/s/f.txt', 'deep\n');
      write('moved/u/v/g.txt', 'moved\n');
    });
    expect(summary(fed)).toEqual(summary(walked));
    expect(fed.map((c) => c.path)).toEqual(['made/q/r/s/f.txt', 'moved/u/v/g.txt']);
    // Once the watcher subscribed anew and a walk made the feed whole, it is trusted again, and sees inside those folders.
    await expect.poll(async () => {
      answers = [];
      await blindStep(3, () => undefined);
      return answers.every((a) => a !== 'unknown');
    }).toBe(true);
    answers = [];
    const later = await blindStep(4, () => write('moved/u/v/h.txt', 'later\n'));
    expect(answers.every((a) => a !== 'unknown')).toBe(true);
    expect(later.fed.map((c) => c.path)).toEqual(['moved/u/v/h.txt']);
  });

  it('a batch of more made paths than it looks into one by one: walks, watches anew, and is trusted again after', async () => {
    await start({ maxLookedInto: 3 });
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(path.join(outside, 'tree', 'u'), { recursive: true });
    const bulk = await blindStep(1, () => {
      for (let i = 0; i < 10; i++) write(`src/bulk${i}.ts`, `${i}\n`);
      fs.renameSync(path.join(outside, 'tree'), p('moved'));
    });
    expect(answers).toContain('unknown');
    expect(summary(bulk.fed)).toEqual(summary(bulk.walked));
    await expect.poll(async () => {
      answers = [];
      await blindStep(2, () => undefined);
      return answers.every((a) => a !== 'unknown');
    }).toBe(true);
    const later = await blindStep(3, () => write('moved/u/inside.txt', 'seen\n'));
    expect(later.fed.map((c) => c.path)).toEqual(['moved/u/inside.txt']);
  });

  it('records what a walk records, after any sequence of changes (generated)', async () => {
    await start();
    let seed = 11;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const names = ['a', 'b', 'c', 'node_modules', 'dist', 'x.log', 'src', 'lib'];
    const pick = (): string => {
      const depth = 1 + random(3);
      return Array.from({ length: depth }, () => names[random(names.length)]).join('/') + (random(2) ? `/f${random(4)}.txt` : '');
    };
    for (let round = 0; round < 10; round++) {
      const { fed, walked } = await blindStep(round, () => {
        for (let op = 0; op < 8; op++) {
          const rel = pick();
          try {
            switch (random(5)) {
              case 0:
              case 1:
                if (rel.endsWith('.txt')) write(rel, `${round}-${op}\n`);
                else fs.mkdirSync(p(rel), { recursive: true });
                break;
              case 2:
                fs.rmSync(p(rel), { recursive: true, force: true });
                break;
              case 3:
                fs.renameSync(p(rel), p(`${rel}-moved`));
                break;
              case 4:
                fs.symlinkSync('../elsewhere', p(rel));
                break;
            }
          } catch {
            // A parent is a file or a link, or the name is taken: that operation simply did not happen.
          }
        }
      });
      expect(summary(fed), `round ${round}`).toEqual(summary(walked));
    }
  });
});
