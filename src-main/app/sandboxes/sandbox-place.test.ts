// A sandbox folder's place over a real bubblewrap box (the in-process provider): the folder goes
// up once, a step's changes come back, an idle sandbox is stopped and started again by the next
// step, what the person changed in the worktree goes up when the folder opens again, the time is
// recorded, and a sandbox that is gone says so with what is kept.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalBoxProvider } from '../../core/sandbox-providers/testing/local-box-provider';
import { SandboxProviderError } from '../../core/sandbox-providers/provider';
import { openSandboxPlace, type SandboxPlaceOptions } from './sandbox-place';
import { SandboxStore } from './sandbox-store';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0).reverse()) f();
});

function setUp(settings: SandboxPlaceOptions['settings'] = () => ({})) {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-place-')));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-place-data-'));
  cleanup.push(() => fs.rmSync(folder, { recursive: true, force: true }), () => fs.rmSync(dataDir, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q'], { cwd: folder });
  fs.writeFileSync(path.join(folder, 'a.txt'), 'alpha\n');
  const db = new Database(path.join(dataDir, 'deepdesk.db'));
  cleanup.push(() => db.close());
  const provider = new LocalBoxProvider();
  cleanup.push(() => provider.dispose());
  const store = new SandboxStore(db);
  const said: string[] = [];
  const slices: number[] = [];
  const open = () =>
    openSandboxPlace({
      record: store.get(folder)!,
      store,
      dataDir,
      env: process.env,
      settings,
      savedKeys: async () => ({}),
      say: (line) => said.push(line),
      recordTime: (slice) => slices.push(slice.seconds),
      provider,
    });
  store.put({ folder, worktree: 'w', provider: 'daytona' });
  return { folder, provider, store, said, slices, open };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a sandbox place', () => {
  it('sends the folder up once, brings a step’s changes back, stops when idle and starts again for the next step', async () => {
    const t = setUp(() => ({ idleTimeoutMin: 0.01 }));
    const place = await t.open();
    expect(t.said).toEqual([expect.stringMatching(/^Uploaded 1 file \(6 bytes\) to the Daytona sandbox \w+; nothing was left out\. To leave more out, add it to the folder’s \.gitignore; to send more, raise Upload cap \(MB\) in Settings › Sandboxes\.$/)]);
    const r = await place.shell.execute('echo hi > made.txt; cat a.txt');
    expect(r.output).toContain('alpha');
    expect(fs.readFileSync(path.join(t.folder, 'made.txt'), 'utf8')).toBe('hi\n');
    // Idle past 0.6 s: stopped by Deepdesk.
    await until(() => t.provider.boxes.get(place.sandbox.id)?.state === 'stopped', 'the idle stop');
    expect(t.store.get(t.folder)!.state).toBe('stopped');
    const again = await place.shell.execute('cat made.txt');
    expect(again.output).toContain('hi');
    expect(t.provider.boxes.get(place.sandbox.id)?.state).toBe('running');
    await place.close();
    expect(t.slices.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('does not stop the sandbox under a command that runs longer than the idle timeout; the clock starts when it ends', async () => {
    const t = setUp(() => ({ idleTimeoutMin: 0.01 }));
    const place = await t.open();
    const states: Array<string | undefined> = [];
    const watch = setInterval(() => states.push(t.provider.boxes.get(place.sandbox.id)?.state), 50);
    try {
      const r = await place.shell.execute('sleep 2; echo finished');
      expect(r.exitCode).toBe(0);
      expect(r.output).toContain('finished');
    } finally {
      clearInterval(watch);
    }
    expect(states.length).toBeGreaterThan(10);
    expect(states.every((s) => s === 'running')).toBe(true);
    await until(() => t.provider.boxes.get(place.sandbox.id)?.state === 'stopped', 'the idle stop after the command');
    await place.close();
  });

  it('sends up what changed in the worktree when the folder opens again, and nothing else', async () => {
    const t = setUp();
    const first = await t.open();
    const id = first.sandbox.id;
    await first.close();
    fs.writeFileSync(path.join(t.folder, 'a.txt'), 'edited by the person\n');
    const uploads = t.provider.calls.upload;
    const second = await t.open();
    expect(second.sandbox.id).toBe(id);
    expect(t.said.at(-1)).toBe(`To the Daytona sandbox ${id}: sent 1 file changed in the worktree.`);
    expect(t.provider.calls.upload - uploads).toBe(1);
    expect((await second.shell.execute('cat a.txt')).output).toContain('edited by the person');
    await second.close();
  });

  it('a sandbox that is gone says what is kept and how to go on', async () => {
    const t = setUp();
    const place = await t.open();
    const id = place.sandbox.id;
    await place.close();
    await t.provider.remove(id);
    const err = await t.open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SandboxProviderError);
    expect((err as SandboxProviderError).reason).toBe('gone');
    expect((err as Error).message).toMatch(/The thread and what came back from the sandbox are kept in its worktree/);
    expect(t.store.get(t.folder)!.state).toBe('gone');
  });
});
