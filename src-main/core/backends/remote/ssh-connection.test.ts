// The system ssh against a real sshd on 127.0.0.1 (SPEC §13): scripts run on the remote
// with bytes in and out intact, one master connection carries the calls, and ssh's own
// failures (server gone, host key changed) are told apart from a command's exit status.

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSshTarget } from './ssh-target';
import { checkPrivateDir, SshConnection, SshConnectionError, shQuote } from './ssh-connection';
import { startTestSshd, type TestSshd } from './testing/sshd';

let sshd: TestSshd;
let connection: SshConnection;

beforeAll(async () => {
  sshd = await startTestSshd();
  connection = new SshConnection({ target: parseSshTarget(sshd.folderUrl('/tmp')), controlDir: `${sshd.dir}/cm`, sshCommand: sshd.sshCommand });
});
afterAll(async () => {
  await connection?.close();
  await sshd?.dispose();
});

describe('SshConnection over the system ssh', () => {
  it('runs a POSIX script on the remote, with quoting that survives any text', async () => {
    const hostile = `it's "quoted" $HOME \`id\` \\ ; | & * ~ \n line2`;
    const r = await connection.run(`printf '%s' ${shQuote(hostile)}; exit 7`);
    expect(r.code).toBe(7);
    expect(r.stdout.toString()).toBe(hostile);
  });

  it('carries binary bytes both ways unchanged', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 131) % 256));
    const r = await connection.run('cat', { input: bytes });
    expect(r.code).toBe(0);
    expect(r.stdout.equals(bytes)).toBe(true);
  });

  it('keeps one master connection for its calls', async () => {
    await connection.run('true');
    const check = spawnSync('/bin/sh', ['-c', `${sshd.sshCommand} -o ControlPath=${sshd.dir}/cm/%C -O check deepdesk-test`], { encoding: 'utf8' });
    expect(check.stderr).toMatch(/Master running/);
  });

  it('a remote exit status of 255 is the command\'s, not a connection failure', async () => {
    const r = await connection.run('echo out; exit 255');
    expect(r.code).toBe(255);
    expect(r.stdout.toString()).toBe('out\n');
  });

  it('names the host when the server is gone, and works again on the next call once it is back', async () => {
    await sshd.stop();
    const lost = await connection.run('true').catch((err: unknown) => err);
    expect(lost).toBeInstanceOf(SshConnectionError);
    expect((lost as Error).message).toContain('deepdesk-test');
    await sshd.start();
    expect((await connection.run('echo back')).stdout.toString()).toBe('back\n');
  });

  it('refuses a host whose key changed, saying why', async () => {
    await connection.close();
    await sshd.changeHostKey();
    const refused = await connection.run('true').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SshConnectionError);
    expect((refused as SshConnectionError).reason).toBe('host-key');
    expect((refused as Error).message).toMatch(/host's key does not match/);
  });
});

describe.runIf(existsSync('/bin/sh'))('shQuote', () => {
  it('quotes for sh exactly', () => {
    for (const value of ['', "'", "a'b", '$(x)', '\\n', 'a b\tc', '"', '\u00e9\u{1F600}']) {
      const r = spawnSync('/bin/sh', ['-c', `printf '%s' ${shQuote(value)}`], { encoding: 'utf8' });
      expect(r.stdout).toBe(value);
    }
  });
});

describe('the control socket folder', () => {
  it('is the person\'s own folder, closed to everyone else (a master socket runs commands on the remote)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-cm-'));
    try {
      chmodSync(dir, 0o700);
      expect(() => checkPrivateDir(dir)).not.toThrow();
      chmodSync(dir, 0o777);
      new SshConnection({ target: parseSshTarget('ssh://h/p'), controlDir: dir });
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      symlinkSync(dir, join(dir, 'link'));
      expect(() => new SshConnection({ target: parseSshTarget('ssh://h/p'), controlDir: join(dir, 'link') })).toThrow(/refusing ssh control folder .*not a folder/);
      writeFileSync(join(dir, 'file'), '');
      expect(() => checkPrivateDir(join(dir, 'file'))).toThrow(/not a folder/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
