// The system ssh against a real sshd on 127.0.0.1 (SPEC §13): scripts run on the remote
// with bytes in and out intact, a connection's own master carries its calls, and ssh's own
// failures (server gone, host key changed) are told apart from a command's exit status.

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { parseSshTarget } from './ssh-target';
import { checkPrivateDir, SshConnection, SshConnectionError } from './ssh-connection';
import { shQuote } from '../../text/shell-quote';
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
    const check = spawnSync('/bin/sh', ['-c', `${sshd.sshCommand} -o ControlPath=${connection.controlPath} -O check deepdesk-test`], { encoding: 'utf8' });
    expect(check.stderr).toMatch(/Master running/);
  });

  it('has a master of its own: closing another connection to the same host, or opening one as another closes, cuts nothing', async () => {
    const parentOf = async (c: SshConnection) => (await c.run('echo $PPID')).stdout.toString().trim();
    const kept = await parentOf(connection);
    const another = () => new SshConnection({ target: parseSshTarget(sshd.folderUrl('/tmp')), controlDir: `${sshd.dir}/cm`, sshCommand: sshd.sshCommand });
    for (let i = 0; i < 3; i++) {
      const other = another();
      expect((await other.run('echo other')).stdout.toString()).toBe('other\n');
      const closing = other.close();
      const next = another();
      expect((await next.run('echo next')).stdout.toString()).toBe('next\n');
      await closing;
      await next.close();
    }
    expect(await parentOf(connection)).toBe(kept);
  });

  it('a remote exit status of 255 is the command\'s, not a connection failure', async () => {
    const r = await connection.run('echo out; exit 255');
    expect(r.code).toBe(255);
    expect(r.stdout.toString()).toBe('out\n');
  });

  it('runs scripts with no input in a kept remote shell: one shell for calls in turn, a few for calls at once', async () => {
    const parentOf = async () => (await connection.run('echo $PPID')).stdout.toString().trim();
    const first = await parentOf();
    expect(await parentOf()).toBe(first);
    const many = await Promise.all(Array.from({ length: 12 }, (_, i) => connection.run(`printf '%s' ${i}; echo err${i} >&2; echo $PPID >&2; exit ${i % 3}`)));
    many.forEach((r, i) => {
      expect(r.stdout.toString()).toBe(String(i));
      expect(r.code).toBe(i % 3);
      expect(r.stderr).toMatch(new RegExp(`^err${i}\n`));
    });
    const shells = new Set(many.map((r) => r.stderr.split('\n')[1]));
    expect(shells.size).toBeGreaterThan(1);
    expect(shells.size).toBeLessThanOrEqual(3);
  });

  it('carries a small input inside the script to a kept shell, and a large one over a channel of its own', async () => {
    const shell = (await connection.run('echo $PPID')).stdout.toString().trim();
    const small = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) % 256));
    // The decoded input is piped to a shell under the kept shell's child: its grandparent is the kept shell.
    const viaShell = await connection.run("cat; awk '{print $4}' /proc/$PPID/stat >&2", { input: small });
    expect(viaShell.stdout.equals(small)).toBe(true);
    expect(viaShell.stderr.trim()).toBe(shell);
    const large = Buffer.alloc(200_000, 0x61);
    const viaChannel = await connection.run("cat; awk '{print $4}' /proc/$PPID/stat >&2", { input: large });
    expect(viaChannel.stdout.equals(large)).toBe(true);
    expect(viaChannel.stderr.trim()).not.toBe(shell);
  });

  it("brings back any bytes a kept shell's script prints, frame-like text included", async () => {
    onTestFinished(() => rmSync('/tmp/deepdesk-bytes', { force: true }));
    const r = await connection.run(`printf '@@deepdesk-frame 1 0 0 0\\n'; head -c 300000 /dev/urandom | tee /tmp/deepdesk-bytes; printf x >&2`);
    const expected = Buffer.concat([Buffer.from('@@deepdesk-frame 1 0 0 0\n'), (await connection.run('cat /tmp/deepdesk-bytes')).stdout]);
    expect(r.stdout.equals(expected)).toBe(true);
    expect(r.stderr).toBe('x');
  });

  it('an aborted or timed-out call ends at once, and the next call works', async () => {
    const controller = new AbortController();
    const running = connection.run('sleep 30', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stopped')), 200);
    await expect(running).rejects.toThrow('stopped');
    const late = await connection.run('sleep 30', { timeoutMs: 300 }).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(SshConnectionError);
    expect((late as SshConnectionError).reason).toBe('timeout');
    expect((await connection.run('echo ok')).stdout.toString()).toBe('ok\n');
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
