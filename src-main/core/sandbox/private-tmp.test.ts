// A long-lived process's own /tmp (privateTmp), as another agent's tree gets it: with nothing
// mounted below the host's /tmp it is one overlay; with something mounted there (the kernel then
// refuses the overlay in a user namespace) the host's entries are put back one by one. Either
// way the process starts, reads the host's entries, and what it makes never reaches the host.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { runToEnd } from '../process/spawn';
import { createSandbox, detectSandbox } from './index';
import { mountsBelowTmp } from './private-tmp';
import { folderSandboxPolicy } from './protected-entry-files';

const available = (await detectSandbox()).available;
const root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-private-tmp-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `script` as an agent's process is run (long-lived, its own /tmp); its output and status. */
async function asAgent(script: string): Promise<{ code: number | null; out: string }> {
  const folder = mkdtempSync(join(root, 'folder-'));
  const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: folder, dataDir: mkdtempSync(join(root, 'data-')), privateTmp: true }));
  const prepared = await sandbox!.prepare({ file: '/bin/sh', args: ['-c', script], cwd: folder, env: { PATH: '/usr/bin:/bin' } }, { longLived: true });
  try {
    const ran = await runToEnd({ role: 'probe', file: prepared.file, args: prepared.args, cwd: prepared.cwd, env: prepared.env, timeoutMs: 60_000 });
    return { code: ran.code, out: `${ran.stdout.toString('utf8')}${ran.stderr.toString('utf8')}` };
  } finally {
    await prepared.dispose();
  }
}

const canMount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=65536', 'tmpfs', root], { stdio: 'ignore' }).status === 0;
if (canMount) spawnSync('umount', [root]);

describe('another agent’s own /tmp', () => {
  it('mountsBelowTmp reads the mount points of /proc/self/mountinfo', () => {
    const line = (at: string) => `36 25 0:32 / ${at} rw,relatime shared:1 - tmpfs tmpfs rw`;
    expect(mountsBelowTmp(() => [line('/'), line('/tmp'), line('/home/u/tmp/x')].join('\n'))).toBe(false);
    expect(mountsBelowTmp(() => [line('/'), line('/tmp/.mount_App1x')].join('\n'))).toBe(true);
  });

  it.skipIf(!available)('reads the host’s entries and keeps what it makes, with nothing and with something mounted below /tmp', async () => {
    const host = join(root, 'host.txt');
    writeFileSync(host, 'host\n');
    const name = `deepdesk-private-tmp-made-${process.pid}`;
    const script = `cat ${host} && echo made > /tmp/${name} && cat /tmp/${name}`;
    const plain = await asAgent(script);
    expect(plain).toEqual({ code: 0, out: 'host\nmade\n' });
    if (!canMount) return;
    const disk = mkdtempSync(join(root, 'disk-'));
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=65536', 'tmpfs', disk]).status).toBe(0);
    onTestFinished(() => void spawnSync('umount', [disk]));
    expect(mountsBelowTmp()).toBe(true);
    expect(await asAgent(script)).toEqual({ code: 0, out: 'host\nmade\n' });
    expect(existsSync(`/tmp/${name}`)).toBe(false);
  }, 60_000);
});
