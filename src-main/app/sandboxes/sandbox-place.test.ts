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
  const rows: Array<{ at: string; seconds: number }> = [];
  const open = () =>
    openSandboxPlace({
      record: store.get(folder)!,
      store,
      dataDir,
      env: process.env,
      settings,
      savedKeys: async () => ({}),
      say: (line) => said.push(line),
      recordTime: (slice) => rows.push(slice),
      provider,
    });
  store.put({ folder, worktree: 'w', provider: 'daytona' });
  return { folder, provider, store, said, rows, open };
}

/** Waits for a state; the bound is only against a hang (a loaded machine may take its time). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 45_000;
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
    expect(t.rows.reduce((a, r) => a + r.seconds, 0)).toBeGreaterThan(0);
  });

  it('does not stop the sandbox under a command that runs longer than the idle timeout; the clock starts when it ends', async () => {
    const t = setUp(() => ({ idleTimeoutMin: 0.01 }));
    const place = await t.open();
    const states: Array<{ state: string | undefined; at: number }> = [];
    const started = Date.now();
    const watch = setInterval(() => states.push({ state: t.provider.boxes.get(place.sandbox.id)?.state, at: Date.now() }), 50);
    try {
      const r = await place.shell.execute('sleep 2; echo finished');
      expect(r.exitCode).toBe(0);
      expect(r.output).toContain('finished');
    } finally {
      clearInterval(watch);
    }
    // Watched past the idle timeout (0.6 s), however few times a loaded machine let the watch run.
    expect(states.some((s) => s.at - started >= 1_000)).toBe(true);
    expect(states.every((s) => s.state === 'running')).toBe(true);
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

  it('a sandbox gone before the folder opens: the folder opens, says so, and every call refuses with what is kept and both ways forward', async () => {
    const t = setUp();
    const place = await t.open();
    const id = place.sandbox.id;
    await place.close();
    await t.provider.remove(id);
    const again = await t.open();
    expect(again.state().state).toBe('gone');
    expect(t.store.get(t.folder)!.state).toBe('gone');
    const { output } = await again.shell.execute('true');
    expect(output).toMatch(/The thread and what came back from the sandbox are kept in its worktree: continue it in a new sandbox \(Continue in a sandbox….*\), or on this computer \(Continue on this computer, or deepdesk sandboxes rm \w+\)\./);
    await again.close();
  });

  it('a sandbox deleted under the thread: the next call says so once, the state follows, and its time ends when it was found gone', async () => {
    const t = setUp();
    const states: string[] = [];
    const rows = t.rows;
    const place = await openSandboxPlace({ record: t.store.get(t.folder)!, store: t.store, dataDir: path.dirname(t.folder), env: process.env, settings: () => ({}), savedKeys: async () => ({}), say: (l) => t.said.push(l), recordTime: (s) => rows.push(s), provider: t.provider, onState: (s) => states.push(s.state) });
    expect((await place.shell.execute('echo one')).exitCode).toBe(0);
    // A command's end puts its time in the ledger at once (not in 5-minute slices).
    expect(rows.length).toBeGreaterThan(0);
    await t.provider.remove(place.sandbox.id);
    const removedAt = Date.now();
    // The step's result is an `Error: ` with the ways forward; the next is refused before it reaches the provider.
    expect((await place.shell.execute('echo two')).output).toMatch(/^Error: .*gone.*Continue in a sandbox….*Continue on this computer, or deepdesk sandboxes rm \w+\)/);
    const foundGoneBy = Date.now();
    const calls = t.provider.calls.execute;
    expect((await place.shell.execute('echo three')).output).toMatch(/^Error: .*gone/);
    expect(t.provider.calls.execute).toBe(calls);
    // A file tool answers as for any provider failure.
    expect((await place.shell.read('/a.txt')).error).toMatch(/gone/);
    expect(states).toEqual(['gone']);
    expect(place.state().state).toBe('gone');
    expect(t.store.get(t.folder)!.state).toBe('gone');
    const counted = rows.length;
    await new Promise((r) => setTimeout(r, 300));
    await place.close();
    // Nothing past its end: its last row ends when the call that found it gone was made, whatever the machine's speed.
    expect(rows.length).toBe(counted);
    const end = Math.round(Date.parse(rows.at(-1)!.at) + rows.at(-1)!.seconds * 1000);
    expect(end).toBeGreaterThanOrEqual(removedAt);
    expect(end).toBeLessThanOrEqual(foundGoneBy);
  });

  it('stopped by `sandboxes stop` (the record says so): the next command starts it again and runs; the time stopped with it', async () => {
    const t = setUp();
    const place = await t.open();
    expect((await place.shell.execute('echo before > kept.txt')).exitCode).toBe(0);
    // What `sandboxes stop` does: the provider stops it, the record says stopped.
    await t.provider.stop(place.sandbox.id);
    t.store.setState(t.folder, 'stopped');
    const stoppedAt = Date.now();
    await new Promise((r) => setTimeout(r, 400));
    const sleptUntil = Date.now();
    const rowsBefore = t.rows.length;
    const r = await place.shell.execute('cat kept.txt');
    expect(r.output).toContain('before');
    expect(t.provider.boxes.get(place.sandbox.id)?.state).toBe('running');
    expect(t.store.get(t.folder)!.state).toBe('running');
    expect(t.said.at(-1)).toMatch(/was stopped \(deepdesk sandboxes stop\); Deepdesk started it again\.$/);
    await place.close();
    // The 0.4 s it was stopped are in no row (by the rows' own times, not the machine's speed): each
    // ended by the stop or began after it; its time since it started again is counted.
    const rows = t.rows.slice(rowsBefore).map((r) => ({ from: Date.parse(r.at), to: Math.round(Date.parse(r.at) + r.seconds * 1000) }));
    for (const row of rows) expect(row.to <= stoppedAt || row.from >= sleptUntil, JSON.stringify({ row, stoppedAt, sleptUntil })).toBe(true);
    expect(rows.some((row) => row.from >= sleptUntil)).toBe(true);
  });

  it('stopped by the provider itself (no record of it): the refused call starts it again and is made once more', async () => {
    const t = setUp();
    const place = await t.open();
    await t.provider.stop(place.sandbox.id);
    const r = await place.shell.execute('echo again');
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('again');
    expect(t.provider.boxes.get(place.sandbox.id)?.state).toBe('running');
    expect(t.said.at(-1)).toMatch(/was stopped; Deepdesk started it again\.$/);
    await place.close();
  });

  it('removed by `sandboxes rm` (its record forgotten): the next call says the thread carries on on this computer', async () => {
    const t = setUp();
    const place = await t.open();
    await t.provider.remove(place.sandbox.id);
    t.store.delete(t.folder);
    expect((await place.shell.execute('true')).output).toMatch(/was removed \(deepdesk sandboxes rm\): this thread carries on on this computer/);
    expect(place.state().state).toBe('removed');
    await place.close();
  });
});
