// The remote sandbox against a real sshd on 127.0.0.1 (SPEC §13, §7): bubblewrap on the
// remote (this machine has it) with the local policy on the remote's paths, and `Not
// sandboxed` where the remote has no bwrap (a PATH without it).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runRemoteCommand, type RemoteCommandOptions } from './remote-exec';
import { createRemoteSandbox, probeRemoteSandbox } from './remote-sandbox';
import { SshConnection } from './ssh-connection';
import { parseSshTarget } from './ssh-target';
import { startTestSshd, type TestSshd } from './testing/sshd';

let sshd: TestSshd;
let connection: SshConnection;
let dir: string;

beforeAll(async () => {
  sshd = await startTestSshd();
  connection = new SshConnection({ target: parseSshTarget(sshd.folderUrl('/tmp')), controlDir: `${sshd.dir}/cm`, sshCommand: sshd.sshCommand });
}, 30_000);

afterAll(async () => {
  await connection?.close();
  await sshd?.dispose();
});

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-rsandbox-')));
  return () => rmSync(dir, { recursive: true, force: true });
});

function run(command: string, extra: Partial<RemoteCommandOptions> = {}) {
  return runRemoteCommand(connection, command, { cwd: dir, timeoutS: 30, ...extra });
}

describe('remote sandbox', () => {
  it('runs commands inside bubblewrap on the remote: the folder writable, outside read-only, a protected path refused', async () => {
    const probe = await probeRemoteSandbox(connection);
    expect(probe.availability).toEqual({ available: true, kind: 'bubblewrap' });
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-rexec-outside-')));
    mkdirSync(join(dir, '.git', 'hooks'), { recursive: true });
    try {
      const sandbox = await createRemoteSandbox(connection, { projectDir: dir, dataDir: '' });
      expect(sandbox?.kind).toBe('bubblewrap');
      const result = await run(`echo in > inside.txt; echo out > ${outside}/x.txt; echo hook > .git/hooks/pre-commit; echo "tmp=$TMPDIR"`, { sandbox });
      expect(result.sandboxed).toBe(true);
      expect(readFileSync(join(dir, 'inside.txt'), 'utf8')).toBe('in\n');
      expect(existsSync(join(outside, 'x.txt'))).toBe(false);
      expect(existsSync(join(dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(result.output).toMatch(/Read-only file system/);
      expect(result.sandboxBlocked).toMatch(/^\[Sandbox blocked/);
      // The run's private temp folder is gone afterwards.
      const tmp = /tmp=(\S+)/.exec(result.output)?.[1];
      expect(tmp).toMatch(/^\/tmp\/deepdesk-run-/);
      expect(existsSync(tmp as string)).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('removes a protected path the command created, and says so', async () => {
    const sandbox = await createRemoteSandbox(connection, { projectDir: dir, dataDir: '' });
    const result = await run('mkdir .deepdesk && echo x > .deepdesk/settings.json; echo ok', { sandbox });
    expect(result.exitCode).toBe(0);
    expect(existsSync(join(dir, '.deepdesk'))).toBe(false);
    expect(result.sandboxBlocked).toMatch(/\.deepdesk/);
  });

  it('on timeout ends the sandboxed process tree on the remote', async () => {
    const sandbox = await createRemoteSandbox(connection, { projectDir: dir, dataDir: '' });
    const result = await run('sleep 987655 & sleep 987655', { sandbox, timeoutS: 2 });
    expect(result.exitCode).toBe(124);
    expect(result.sandboxed).toBe(true);
    const left = () => execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' }).split('\n').filter((l) => l.trim() === 'sleep 987655');
    await expect.poll(left, { timeout: 60_000 }).toEqual([]);
  });

  it('reports not sandboxed where the remote has no bwrap', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'deepdesk-rexec-nobwrap-'));
    try {
      const probe = await probeRemoteSandbox(connection, { searchPath: empty });
      expect(probe.availability).toEqual({ available: false, reason: 'bubblewrap (bwrap) is not installed on deepdesk-test' });
      expect(await createRemoteSandbox(connection, { projectDir: dir, dataDir: '' }, { searchPath: empty })).toBeUndefined();
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
