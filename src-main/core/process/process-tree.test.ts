import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectProcessTree, isProcessAlive, killProcessGroup, killProcessTree, pidMark, processStartTicks, sendSignal, startTicksNow } from './process-tree';

let dir: string;
const started: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-ptree-'));
});

afterEach(() => {
  for (const pid of started.splice(0)) sendSignal(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function waitFor<T>(probe: () => T | undefined | false, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * What a scan found, less the processes that were on their way out: an exiting process whose
 * environment is gone counts as marked by design (harmless to signal), and on a busy machine
 * any process may be exiting as the scan reads it. Such a pid is gone soon after; one that
 * stays alive was found wrongly and stays in the result.
 */
async function lasting(pids: number[], expected: readonly number[]): Promise<number[]> {
  const others = pids.filter((pid) => !expected.includes(pid));
  await waitFor(() => others.every((pid) => !isProcessAlive(pid)) || undefined, 5_000).catch(() => undefined);
  return pids.filter((pid) => expected.includes(pid) || isProcessAlive(pid));
}

function readPids(file: string): number[] {
  try {
    return readFileSync(file, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Starts `script` in bash as a session leader (like a pty child) with a marker in its environment. */
function startTree(script: string, marker: string): number {
  const child = spawn('/bin/bash', ['-c', script], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, DEEPDESK_TEST_MARK: marker.split('=')[1] },
  });
  child.unref();
  const pid = child.pid as number;
  started.push(pid);
  return pid;
}

describe.runIf(process.platform === 'linux')('the clock of a process\'s start', () => {
  it('is read before a root starts: a process started after the reading starts at or after it, and not after the next reading', async () => {
    for (let i = 0; i < 5; i++) {
      const from = startTicksNow();
      const child = spawn('sleep', ['5'], { stdio: 'ignore' });
      started.push(child.pid!);
      const start = processStartTicks(child.pid!);
      const to = startTicksNow();
      expect(from).toBeTypeOf('number');
      expect(start).toBeGreaterThanOrEqual(from!);
      expect(start).toBeLessThanOrEqual(to!);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
  });
});

describe('process tree', () => {
  it('finds background children, setsid children and orphans that carry the marker', async () => {
    const marker = `DEEPDESK_TEST_MARK=${process.pid}a${Date.now()}`;
    const file = (name: string): string => join(dir, name);
    const root = startTree(
      `echo $$ > ${file('root')}
       sleep 30 & echo $! > ${file('bg')}
       setsid sh -c 'echo $$ > ${file('sid')}; exec sleep 30' &
       ( setsid sh -c 'echo $$ > ${file('orphan')}; exec sleep 30' & )
       wait`,
      marker,
    );
    const [rootPid, bg, sid, orphan] = await waitFor(() => {
      const list = ['root', 'bg', 'sid', 'orphan'].map((name) => readPids(file(name))[0]);
      return list.every((pid) => pid !== undefined) && (list as number[]);
    });
    const pids = [rootPid, bg, sid, orphan] as number[];
    started.push(...pids);
    expect(rootPid).toBe(root);
    const tree = await waitFor(() => {
      const found = collectProcessTree(root, marker);
      return pids.every((pid) => found.includes(pid)) && found;
    });
    expect(tree).not.toContain(process.pid);

    // Without the marker the orphan that left the session is out of reach; the rest is found.
    const unmarked = collectProcessTree(root);
    expect(unmarked).toEqual(expect.arrayContaining([root, bg, sid]));
    expect(unmarked).not.toContain(orphan);

    await killProcessTree(root, { marker, graceMs: 1000 });
    for (const pid of pids) expect(isProcessAlive(pid), `pid ${pid}`).toBe(false);
  });

  it('reads only the pids given out after the mark, and still finds an orphan that left the session once the root is reaped (a hook)', async () => {
    const marker = `DEEPDESK_TEST_MARK=${process.pid}b${Date.now()}`;
    const file = (name: string): string => join(dir, name);
    const before = pidMark();
    if (process.platform === 'linux') expect(before).toBeDefined();
    const child = spawn('/bin/bash', ['-c', `( setsid sh -c 'echo $$ > ${file('orphan')}; exec sleep 30' & ) ; exit 0`], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, DEEPDESK_TEST_MARK: marker.split('=')[1] },
    });
    const root = child.pid as number;
    await new Promise((resolve) => child.once('exit', resolve));
    const [orphan] = await waitFor(() => readPids(file('orphan')).length > 0 && readPids(file('orphan')));
    started.push(orphan!);
    // Neither in the root's group nor its session: the marker finds it, on the narrowed scan too.
    expect(await lasting(collectProcessTree(root, marker, true, undefined, before), [orphan!])).toEqual([orphan]);
    await killProcessTree(root, { marker, rootReaped: true, graceMs: 1000, ...(before !== undefined ? { before } : {}) });
    expect(isProcessAlive(orphan!)).toBe(false);

    // A root that started nothing: no pid was given out after its, and nothing is read.
    const quiet = pidMark();
    const lone = spawn('/bin/sh', ['-c', 'exit 0'], { detached: true, stdio: 'ignore' });
    await new Promise((resolve) => lone.once('exit', resolve));
    expect(await lasting(collectProcessTree(lone.pid as number, marker, true, undefined, quiet), [])).toEqual([]);
  });

  it('escalates to SIGKILL for processes that ignore SIGTERM', async () => {
    const pidfile = join(dir, 'pids');
    const marker = `DEEPDESK_TEST_MARK=${process.pid}b${Date.now()}`;
    const root = startTree(
      `trap '' TERM HUP
       echo $$ >> ${pidfile}
       sleep 30 & echo $! >> ${pidfile}
       wait`,
      marker,
    );
    const pids = await waitFor(() => {
      const list = readPids(pidfile);
      return list.length === 2 && list;
    });
    await killProcessTree(root, { marker, graceMs: 300 });
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
  });

  it('kills what is left in a process group', async () => {
    const pidfile = join(dir, 'pids');
    const root = startTree(`echo $$ >> ${pidfile}; sleep 30 & echo $! >> ${pidfile}; wait`, 'X=1');
    const pids = await waitFor(() => {
      const list = readPids(pidfile);
      return list.length === 2 && list;
    });
    await killProcessGroup(root, 300);
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
  });

  it('kills a root that is not (yet) its own group leader and carries no marker (a shell killed right after it was spawned)', async () => {
    // In our own process group and session, as a pty's child is between fork and setsid.
    const child = spawn('/bin/sh', ['-c', 'sleep 30'], { stdio: 'ignore' });
    const pid = child.pid!;
    await waitFor(() => isProcessAlive(pid));
    await killProcessTree(pid, { marker: 'DEEPDESK_TEST_MARK=never-set', graceMs: 300 });
    await waitFor(() => !isProcessAlive(pid));
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('reports a process as alive until it is gone', async () => {
    const root = startTree('sleep 30', 'X=1');
    expect(isProcessAlive(root)).toBe(true);
    sendSignal(root, 'SIGKILL');
    await waitFor(() => !isProcessAlive(root));
    expect(isProcessAlive(2 ** 22 + 12345)).toBe(false);
  });

  it('never signals our own process or its group', () => {
    const tree = collectProcessTree(process.pid);
    expect(tree).not.toContain(process.pid);
    expect(tree).not.toContain(process.ppid);
  });
});
