// A socket in /tmp that vanishes between the run's scan (tmpSocketPaths, when the command is
// prepared) and bubblewrap's mount over it fails the launch before the command starts; the
// command is then prepared again (a fresh scan) and launched once more. A command that only
// prints the same words, or fails so while the socket is there, runs once.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInPty } from '../process/pty-exec';
import { createSandbox, detectSandbox, vanishedMountTarget } from './index';
import type { Sandbox } from './types';

const available = await detectSandbox();

let root: string;
let project: string;
let socketPath: string;
let server: Server | undefined;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'deepdesk-launch-race-'));
  project = join(root, 'project');
  mkdirSync(project);
  // Directly in /tmp, where the sandbox scans for sockets before each run.
  socketPath = join('/tmp', `deepdesk-race-${process.pid}-${Date.now()}.sock`);
  const listening = createServer();
  await new Promise<void>((resolve) => listening.listen(socketPath, resolve));
  server = listening;
});

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  rmSync(socketPath, { force: true });
  rmSync(root, { recursive: true, force: true });
});

/** The sandbox, with the socket removed right after its first preparation (the race, made certain). */
function racing(sandbox: Sandbox): { sandbox: Sandbox; prepared: () => number } {
  let count = 0;
  const raced = Object.create(sandbox) as Sandbox;
  raced.prepare = async (spec, options) => {
    const prepared = await sandbox.prepare(spec, options);
    count += 1;
    if (count === 1) {
      const closing = server;
      server = undefined;
      await new Promise<void>((resolve) => (closing ? closing.close(() => resolve()) : resolve()));
      rmSync(socketPath, { force: true });
    }
    return prepared;
  };
  return { sandbox: raced, prepared: () => count };
}

const ranLines = (): string[] => {
  try {
    return readFileSync(join(project, 'ran.txt'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

describe.skipIf(!available.available)('a /tmp socket gone between the scan and the mount (bubblewrap, for real)', () => {
  it('launches the command once more, on a fresh scan, and it runs once', async () => {
    const sandbox = await createSandbox({ projectDir: project, dataDir: join(root, 'data') });
    const { sandbox: raced, prepared } = racing(sandbox!);
    const result = await runInPty('echo ran >> ran.txt; echo done', { cwd: project, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root }, sandbox: raced, timeoutS: 30 });
    expect(result.output).toContain('done');
    expect(result.exitCode).toBe(0);
    expect(prepared()).toBe(2);
    expect(ranLines()).toEqual(['ran']);
  });

  it('runs a command that only prints the same words once, the socket still there', async () => {
    const sandbox = await createSandbox({ projectDir: project, dataDir: join(root, 'data') });
    let count = 0;
    const counting = Object.create(sandbox!) as Sandbox;
    counting.prepare = async (spec, options) => {
      count += 1;
      return sandbox!.prepare(spec, options);
    };
    const line = `bwrap: Can't create file at ${socketPath}: Read-only file system`;
    const result = await runInPty(`echo ran >> ran.txt; printf '%s\\n' "${line}"; exit 1`, { cwd: project, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root }, sandbox: counting, timeoutS: 30 });
    expect(result.exitCode).toBe(1);
    expect(count).toBe(1);
    expect(ranLines()).toEqual(['ran']);
  });
});

describe('the vanished mount point in bubblewrap error', () => {
  it('is read from either of bwrap\'s words for it, and only from that error alone', () => {
    expect(vanishedMountTarget("bwrap: Can't bind mount /oldroot/tmp/x.sock on /newroot/tmp/x.sock: No such file or directory\r\n")).toBe('/tmp/x.sock');
    expect(vanishedMountTarget("bwrap: Can't create file at /tmp/x.sock: Read-only file system\n")).toBe('/tmp/x.sock');
    expect(vanishedMountTarget("bwrap: Can't mkdir /tmp/deepdesk-proxy-2VcizE: Read-only file system\n")).toBe('/tmp/deepdesk-proxy-2VcizE');
    expect(vanishedMountTarget("out\nbwrap: Can't create file at /tmp/x.sock: Read-only file system")).toBeUndefined();
    expect(vanishedMountTarget("bwrap: Can't bind mount /oldroot/tmp/x on /newroot/tmp/x: Permission denied")).toBeUndefined();
  });
});
