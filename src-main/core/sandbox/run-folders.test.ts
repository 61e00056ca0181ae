// A run's folders are made in one private folder per user, named after the process that made
// them; those of a process that is gone (killed before it could clean up) are removed by the
// next process's first run, and no one else's are touched.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { build } from 'rolldown';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from './index';
import { makeRunFolder, runFoldersDir, sweepRunFolders, sweepUnnamedProxyFolders } from './run-folders';

const requireHere = createRequire(import.meta.url);
const available = await detectSandbox();

const ns = ((): string => {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
})();

/** A pid that was given out and has ended. */
function deadPid(): number {
  const ran = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(ran.stdout);
}

let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'deepdesk-run-folders-test-'));
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

describe('run folders', () => {
  it('are made private, in the per-user folder, named after this process', () => {
    const made = makeRunFolder('deepdesk-run-');
    try {
      expect(dirname(made)).toBe(runFoldersDir());
      expect(runFoldersDir()).toBe(join(tmpdir(), `deepdesk-runs-${process.getuid?.() ?? 'user'}`));
      expect(basename(made)).toMatch(new RegExp(`^deepdesk-run-${ns}\\.${process.pid}-[A-Za-z0-9]{6}$`));
      expect(statSync(made).mode & 0o777).toBe(0o700);
      expect(statSync(runFoldersDir()).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(made, { recursive: true, force: true });
    }
  });

  it("of a process that is gone are removed, whole (a layer the command left unwritable too); a live process's, another namespace's and other names stay", async () => {
    const dead = deadPid();
    const gone = [`deepdesk-run-${ns}.${dead}-aaaaaa`, `deepdesk-layer-${ns}.${dead}-bbbbbb`, `deepdesk-server-${ns}.${dead}-cccccc`, `deepdesk-layer-probe-${ns}.${dead}-dddddd`, `deepdesk-proxy-${ns}.${dead}-pppppp`, `deepdesk-snapshot-${ns}.${dead}-ssssss`];
    const kept = [`deepdesk-run-${ns}.${process.pid}-eeeeee`, `deepdesk-proxy-${ns}.${process.pid}-qqqqqq`, `deepdesk-snapshot-${ns}.${process.pid}-tttttt`, `deepdesk-run-${ns}.1-ffffff`, `deepdesk-run-${ns}9.${dead}-gggggg`, `deepdesk-run-${dead}-hhhhhh`, 'something-else'];
    for (const name of [...gone, ...kept]) mkdirSync(join(parent, name));
    // A write layer as a killed run leaves it: a folder made unwritable by the command, with a file in it.
    const locked = join(parent, gone[1]!, 'upper', 'locked');
    mkdirSync(locked, { recursive: true });
    writeFileSync(join(locked, 'f'), 'x');
    chmodSync(locked, 0o500);
    const removed = await sweepRunFolders(parent);
    expect(removed.sort()).toEqual([...gone].sort());
    for (const name of gone) expect(existsSync(join(parent, name)), name).toBe(false);
    for (const name of kept) expect(existsSync(join(parent, name)), name).toBe(true);
  });
});

/** Unix sockets at `paths` whose listener was SIGKILLed, as a killed Deepdesk left its proxies'. */
async function deadSocket(...paths: string[]): Promise<void> {
  const listen = "let n = 0; const p = process.argv.slice(1); for (const path of p) require('net').createServer().listen(path, () => { if (++n === p.length) console.log('up'); })";
  const child = spawn(process.execPath, ['-e', listen, ...paths], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('proxy folders an earlier Deepdesk left loose in the temp folder (named by mkdtemp alone)', () => {
  it("are removed when they hold only a proxy's socket no one listens on; a live one's, links, others' and anything else stay", async () => {
    const proxyFolder = (name: string, mode = 0o700): string => {
      const dir = join(parent, name);
      mkdirSync(dir, { mode });
      chmodSync(dir, mode);
      return dir;
    };
    const gone = [proxyFolder('deepdesk-proxy-aaaaaa'), proxyFolder('deepdesk-proxy-bbbbbb')];
    await deadSocket(join(gone[0]!, 'meter.sock'));
    await deadSocket(join(gone[1]!, 'proxy.sock'));
    // A live process's: its socket accepts.
    const live = proxyFolder('deepdesk-proxy-cccccc');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(live, 'meter.sock'), resolve));
    // A link of that name (to a folder that looks like a dead one): neither the link nor what it points at is touched.
    const target = proxyFolder('target');
    await deadSocket(join(target, 'meter.sock'));
    symlinkSync(target, join(parent, 'deepdesk-proxy-dddddd'));
    // Open to others; holding something more; a socket of another name; empty (a live process before it listens); a file, not a socket.
    const open = proxyFolder('deepdesk-proxy-eeeeee', 0o755);
    await deadSocket(join(open, 'meter.sock'));
    const more = proxyFolder('deepdesk-proxy-ffffff');
    await deadSocket(join(more, 'meter.sock'));
    writeFileSync(join(more, 'note'), 'x');
    const otherName = proxyFolder('deepdesk-proxy-gggggg');
    await deadSocket(join(otherName, 'agent.sock'));
    const empty = proxyFolder('deepdesk-proxy-hhhhhh');
    const plainFile = proxyFolder('deepdesk-proxy-iiiiii');
    writeFileSync(join(plainFile, 'meter.sock'), '');
    const kept = [live, target, join(parent, 'deepdesk-proxy-dddddd'), open, more, otherName, empty, plainFile];
    // Another user's (only root can give a folder away).
    if (process.getuid?.() === 0) {
      const foreign = proxyFolder('deepdesk-proxy-jjjjjj');
      await deadSocket(join(foreign, 'meter.sock'));
      chownSync(foreign, 4242, 4242);
      kept.push(foreign);
    }
    try {
      // Bound a moment ago: not yet (a server listens the moment it binds, but the sweep does not race one).
      expect(await sweepUnnamedProxyFolders(parent)).toEqual([]);
      for (const dir of gone) expect(existsSync(dir), dir).toBe(true);
      const removed = await sweepUnnamedProxyFolders(parent, 0);
      expect(removed.sort()).toEqual([...gone].sort());
      for (const dir of gone) expect(existsSync(dir), dir).toBe(false);
      for (const path of kept) expect(lstatSync(path, { throwIfNoEntry: false }), path).toBeDefined();
      expect(lstatSync(join(target, 'meter.sock')).isSocket()).toBe(true);
      expect(lstatSync(join(live, 'meter.sock')).isSocket()).toBe(true);
      expect(lstatSync(join(parent, 'deepdesk-proxy-dddddd')).isSymbolicLink()).toBe(true);
      expect(lstatSync(join(more, 'meter.sock')).isSocket()).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe.skipIf(!available.available)('a Deepdesk SIGKILLed in the middle of a sandboxed command (bubblewrap, for real)', () => {
  it("leaves run folders that the next process removes, nothing else of them staying; a new process's first command runs while it sweeps the proxy folders left loose in its temp folder", async () => {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-run-folders-kill-')));
    // The new process's temp folder (TMPDIR), its own: what is planted there is met by it
    // alone, not by every Deepdesk of the other test files, which would hide these folders and
    // race their sweep (bwrap fails on a mount point that vanished).
    const temp = join(work, 'tmp');
    mkdirSync(temp, { mode: 0o700 });
    // What killed Deepdesks of before left there (each hidden from every command while there), and a live one's.
    const loose = Array.from({ length: 24 }, () => mkdtempSync(join(temp, 'deepdesk-proxy-')));
    await deadSocket(...loose.map((dir) => join(dir, 'meter.sock')));
    const planted = Date.now();
    const liveLoose = mkdtempSync(join(temp, 'deepdesk-proxy-'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(liveLoose, 'meter.sock'), resolve));
    try {
      const project = join(work, 'project');
      mkdirSync(project);
      await build({
        input: join(import.meta.dirname, '__fixtures__', 'run-folders-parent.ts'),
        platform: 'node',
        external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
        logLevel: 'silent',
        // Built outside the project: packages are imported by their full paths (node's own modules by name).
        output: { dir: join(work, 'build'), format: 'esm', entryFileNames: 'parent.mjs', paths: (id) => (isBuiltin(id) ? id : pathToFileURL(requireHere.resolve(id)).href) },
      });
      // Settled: bound long enough ago for the sweep to judge them.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, planted + 10_500 - Date.now())));
      const parent = spawn(process.execPath, [join(work, 'build', 'parent.mjs'), project, join(work, 'data'), join(import.meta.dirname, '../../..')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: temp } });
      const exited = new Promise<void>((resolve) => parent.once('exit', () => resolve()));
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: parent.stdout! }).once('line', resolve);
        parent.once('exit', (code) => reject(new Error(`the parent exited (${code})`)));
      });
      const { dir, mine, failed } = JSON.parse(line) as { dir: string; mine: string[]; failed?: string };
      expect(failed).toBeUndefined();
      // Its first command waited for the sweep of its temp folder: the dead ones are gone, the live one stays.
      for (const dir of loose) expect(existsSync(dir), dir).toBe(false);
      expect(lstatSync(join(liveLoose, 'meter.sock')).isSocket()).toBe(true);
      // Its private TMPDIR, its write layer and its two proxies' socket folders, while the command runs.
      expect(mine.map((name) => name.slice(0, name.indexOf(`${ns}.`))).sort()).toEqual(['deepdesk-layer-', 'deepdesk-proxy-', 'deepdesk-proxy-', 'deepdesk-run-']);
      // Each proxy's socket, as the killed process leaves it.
      for (const name of mine.filter((n) => n.startsWith('deepdesk-proxy-'))) expect(readdirSync(join(dir, name)).length, name).toBe(1);
      parent.kill('SIGKILL');
      await exited;
      for (const name of mine) expect(existsSync(join(dir, name)), name).toBe(true);
      // The next process's sweep (its first run makes one).
      const removed = await sweepRunFolders(dir);
      for (const name of mine) expect(removed).toContain(name);
      for (const name of mine) expect(existsSync(join(dir, name)), name).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      for (const dir of [work, liveLoose, ...loose]) rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
