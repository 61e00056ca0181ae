// A long-lived sandboxed process (an MCP server) against the person's git, for real: the
// probe server runs through startProcess inside bubblewrap and, while it keeps running,
// plants what would make the person's next `git status` run a program of its choosing
// (core.fsmonitor = a marker program). The person's real git runs meanwhile; the marker
// must never run, whenever it would have, and what was planted must be undone while the
// server still runs, not only when it stops.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from './index';
import { startProcess, stopAllProcesses } from './supervisor';
import type { SupervisedProcess } from './supervisor-types';

const PROBE = join(import.meta.dirname, '..', 'process', '__fixtures__', 'probe-server.mjs');
const available = await detectSandbox();
/** A bound against a hang only: the server runs until the plant is undone, so an undo seen at all came while it ran. */
const GUARD_MS = 45_000;

let root: string;
let home: string;
let project: string;
let dataDir: string;
let marker: string;
let markProgram: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-live-guard-')));
  home = join(root, 'home');
  project = join(root, 'project');
  dataDir = join(root, 'data');
  for (const dir of [home, project, dataDir, join(root, 'bin')]) mkdirSync(dir, { recursive: true });
  marker = join(root, 'MARKER-ran');
  markProgram = join(root, 'bin', 'mark.sh');
  writeFileSync(markProgram, `#!/bin/sh\necho ran >> '${marker}'\n`);
  chmodSync(markProgram, 0o755);
  writeFileSync(join(project, 'README.md'), 'hello\n');
  personGit(project, 'init', '-q');
});

afterEach(async () => {
  await stopAllProcesses();
  rmSync(root, { recursive: true, force: true });
});

/** git as the person runs it, outside any sandbox (whatever it says: only what it runs counts). */
function personGit(cwd: string, ...args: string[]): number | null {
  return spawnSync('git', args, { cwd, env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'ignore', timeout: 20_000 }).status;
}

class Probe {
  private next = 1;
  private readonly waiting = new Map<number, (answer: { ok: boolean; value?: unknown; error?: string }) => void>();
  constructor(readonly server: SupervisedProcess) {
    createInterface({ input: server.stdout }).on('line', (line) => {
      const { id, ...answer } = JSON.parse(line) as { id: number; ok: boolean; value?: unknown; error?: string };
      this.waiting.get(id)?.(answer);
      this.waiting.delete(id);
    });
  }
  ask<T = unknown>(request: Record<string, unknown>): Promise<{ ok: boolean; value?: T; error?: string }> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (answer: { ok: boolean; value?: unknown; error?: string }) => void);
      this.server.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  }
  async write(path: string, text: string): Promise<{ ok: boolean }> {
    return this.ask({ op: 'write', path, text });
  }
  mkdir(path: string): Promise<{ ok: boolean }> {
    return this.ask({ op: 'mkdir', path });
  }
}

async function startServer(): Promise<Probe> {
  const server = await startProcess({ command: process.execPath, args: [PROBE], cwd: project, env: {}, baseEnv: { ...process.env, HOME: home }, sandbox: { projectDir: project, dataDir } });
  return new Probe(server);
}

/** A repository (git-shaped folder) whose config runs the marker program on `git status`. */
async function plantRepository(probe: Probe, dir: string): Promise<void> {
  await probe.mkdir(join(dir, 'objects'));
  await probe.mkdir(join(dir, 'refs', 'heads'));
  await probe.write(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  await probe.write(join(dir, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = ${markProgram}\n`);
}

/** Polls `done` for up to GUARD_MS while the person keeps running `git status` in `personCwd`; the server must still be running at the end. */
async function untilUndone(probe: Probe, personCwd: string, done: () => boolean): Promise<void> {
  let running = true;
  void probe.server.exited.then(() => (running = false));
  const deadline = Date.now() + GUARD_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('what the server planted was not undone while it ran');
    personGit(personCwd, 'status');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(running).toBe(true);
}

const hasMonitor = (config: string): boolean => existsSync(config) && readFileSync(config, 'utf8').includes('fsmonitor');

describe.skipIf(!available.available)("a running sandboxed server cannot make the person's git run its program", () => {
  it('.git/commondir leading to a repository whose config runs a program', async () => {
    const probe = await startServer();
    await plantRepository(probe, join(project, 'evil'));
    await probe.write(join(project, '.git', 'commondir'), '../evil\n');
    await untilUndone(probe, project, () => !existsSync(join(project, '.git', 'commondir')) && !hasMonitor(join(project, 'evil', 'config')));
    expect(personGit(project, 'status')).toBe(0);
    expect(existsSync(marker)).toBe(false);
    // Normal reading of the repository still works inside.
    expect((await probe.ask({ op: 'read', path: join(project, '.git', 'HEAD') })).ok).toBe(true);
  });

  it('a `sub/.git` gitdir file leading to such a repository', async () => {
    const probe = await startServer();
    await plantRepository(probe, join(project, 'evil'));
    await probe.mkdir(join(project, 'sub'));
    expect((await probe.write(join(project, 'sub', '.git'), 'gitdir: ../evil\n')).ok).toBe(true);
    await untilUndone(probe, project, () => !hasMonitor(join(project, 'evil', 'config')));
    personGit(join(project, 'sub'), 'status');
    expect(existsSync(marker)).toBe(false);
  });

  it("a `sub/.git` gitdir file leading to a repository in the server's own temp folder", async () => {
    const probe = await startServer();
    const env = (await probe.ask<Record<string, string>>({ op: 'env' })).value!;
    await plantRepository(probe, join(env.TMPDIR!, 'evil'));
    await probe.mkdir(join(project, 'sub'));
    expect((await probe.write(join(project, 'sub', '.git'), `gitdir: ${join(env.TMPDIR!, 'evil')}\n`)).ok).toBe(true);
    await untilUndone(probe, project, () => !existsSync(join(project, 'sub', '.git')));
    personGit(join(project, 'sub'), 'status');
    expect(existsSync(marker)).toBe(false);
  });

  it('a new nested repository whose config has core.fsmonitor', async () => {
    const probe = await startServer();
    await plantRepository(probe, join(project, 'nested', '.git'));
    await untilUndone(probe, project, () => !hasMonitor(join(project, 'nested', '.git', 'config')));
    personGit(join(project, 'nested'), 'status');
    expect(existsSync(marker)).toBe(false);
  });

  it('a repository planted deep in folders made all at once (where a watch may not reach yet)', async () => {
    const probe = await startServer();
    const env = (await probe.ask<Record<string, string>>({ op: 'env' })).value!;
    await plantRepository(probe, join(env.TMPDIR!, 'evil'));
    // One mkdir -p: the inner folders may exist before any watch on them.
    await probe.mkdir(join(project, 'deep', 'a', 'b', 'c'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await probe.write(join(project, 'deep', 'a', 'b', 'c', '.git'), `gitdir: ${join(env.TMPDIR!, 'evil')}\n`)).ok).toBe(true);
    await untilUndone(probe, project, () => !existsSync(join(project, 'deep', 'a', 'b', 'c', '.git')));
    personGit(join(project, 'deep', 'a', 'b', 'c'), 'status');
    expect(existsSync(marker)).toBe(false);
  });

  it('says in its log what it undid', async () => {
    const probe = await startServer();
    await plantRepository(probe, join(project, 'nested', '.git'));
    await expect.poll(() => probe.server.logTail(), { timeout: GUARD_MS }).toMatch(/\[Sandbox blocked .*\/nested\/\.git\/config/);
  });

  it('leaves ordinary work alone: files it writes stay, and git inside still reads the repository', async () => {
    execFileSync('git', ['-c', 'user.name=p', '-c', 'user.email=p@x', 'commit', '-q', '--allow-empty', '-m', 'first'], { cwd: project, env: { ...process.env, HOME: home } });
    const probe = await startServer();
    await probe.write(join(project, 'notes.txt'), 'kept');
    await probe.mkdir(join(project, 'src', 'lib'));
    await probe.write(join(project, 'src', 'lib', 'a.ts'), 'export {};\n');
    const check = await probe.server.checkEffects();
    expect(check).toEqual({ unremoved: [] });
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('kept');
    expect(readFileSync(join(project, 'src', 'lib', 'a.ts'), 'utf8')).toBe('export {};\n');
  });
});

describe.skipIf(!available.available)('links into its own temp folder', () => {
  it('a folder link leading to a repository in its temp folder is removed while it runs, even one made before its target', async () => {
    const probe = await startServer();
    const env = (await probe.ask<Record<string, string>>({ op: 'env' })).value!;
    const evil = join(env.TMPDIR!, 'later');
    expect((await probe.ask({ op: 'symlink', target: evil, path: join(project, 'tools') })).ok).toBe(true);
    await plantRepository(probe, join(evil, '.git'));
    await untilUndone(probe, project, () => !existsSync(join(project, 'tools')) && !lstatExists(join(project, 'tools')));
    expect(existsSync(marker)).toBe(false);
  });
});

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
