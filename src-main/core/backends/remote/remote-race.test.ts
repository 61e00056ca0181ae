// The remote file tools act on what they checked (SPEC §13, §7): while a process on the
// remote keeps swapping a folder of the project for a link to a folder outside it, reads
// never return what is outside and writes never land there. Against the real test sshd;
// the remote is this machine, so the swapper is a local process.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSshd, type TestSshd } from './testing/sshd';
import { openTestRemoteFolder, type TestRemoteFolder } from './testing/remote-folder';

let sshd: TestSshd;

beforeAll(async () => {
  sshd = await startTestSshd();
});
afterAll(async () => {
  await sshd?.dispose();
});

const ROUNDS = 200;
const SECRET = 'OUTSIDE-SECRET';

/**
 * A loop that exchanges `box` (a folder) and `box.link` (a link to the folder outside) as
 * fast as it can, atomically (renameat2 RENAME_EXCHANGE): `box` is always one or the other.
 */
function startSwapper(dir: string): ChildProcess {
  const loop = ['import ctypes', 'libc = ctypes.CDLL(None, use_errno=True)', 'while True:', "    libc.renameat2(-100, b'box', -100, b'box.link', 2)"].join('\n');
  return spawn('python3', ['-c', loop], { cwd: dir, stdio: 'ignore' });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Every file under `dir` with its content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (fs.lstatSync(file).isFile()) out[name] = fs.readFileSync(file, 'utf8');
  }
  return out;
}

describe('remote file tools under a racing swapper', () => {
  let folder: TestRemoteFolder;
  let outside: string;
  beforeAll(() => {
    folder = openTestRemoteFolder(sshd);
    outside = fs.realpathSync(fs.mkdtempSync(path.join(path.dirname(folder.dir), 'deepdesk-race-outside-')));
    fs.writeFileSync(path.join(outside, 'data.txt'), SECRET);
    fs.writeFileSync(path.join(outside, 'outside-only.txt'), SECRET);
    fs.writeFileSync(path.join(outside, '.gitignore'), SECRET);
    fs.mkdirSync(path.join(folder.dir, 'box'));
    fs.writeFileSync(path.join(folder.dir, 'box', 'data.txt'), 'inside');
    fs.symlinkSync(outside, path.join(folder.dir, 'box.link'));
  });
  afterAll(() => {
    folder.remove();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('reads nothing outside and writes nothing outside', { timeout: 600_000 }, async () => {
    const before = snapshot(outside);
    const swapper = startSwapper(folder.dir);
    const leaked: string[] = [];
    try {
      for (let i = 0; i < ROUNDS; i++) {
        // Every round a read and a write; every fourth also the other ways in.
        const others = i % 4 === 0;
        const [read, raw, listed, found, globbed] = await Promise.all([
          folder.backend.read('/box/data.txt'),
          others ? folder.backend.readRaw('/box/data.txt') : undefined,
          others ? folder.backend.ls('/box') : undefined,
          others ? folder.backend.grep(SECRET, '/box') : undefined,
          others ? folder.backend.glob('**', '/box') : undefined,
          folder.backend.write(`/box/w${i}.txt`, `written ${i}`),
          others ? folder.backend.edit('/box/data.txt', 'inside', 'inside') : undefined,
          others ? folder.backend.uploadFiles([{ path: `/box/u${i}.bin`, content: new Uint8Array([1, 2, 3]) }]) : undefined,
        ]);
        if (JSON.stringify(read).includes(SECRET)) leaked.push(`read ${i}`);
        if (raw?.data && Buffer.from(raw.data).toString('utf8').includes(SECRET)) leaked.push(`readRaw ${i}`);
        if (JSON.stringify([read, raw]).includes(outside)) leaked.push(`named the outside folder ${i}`);
        if (listed?.entries?.some((e) => e.path.includes('outside-only'))) leaked.push(`ls ${i}`);
        if (found?.matches?.length) leaked.push(`grep ${i}`);
        if (globbed?.matches?.some((e) => e.path.includes('outside-only'))) leaked.push(`glob ${i}`);
      }
    } finally {
      await stop(swapper);
    }
    expect(leaked).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
  });
});
