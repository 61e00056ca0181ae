import fs from 'node:fs';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { LocalBox, daemonLine } from './local-box';
import { sleepingLine } from './left-running.test-support';

const boxes: LocalBox[] = [];
afterEach(() => {
  for (const b of boxes.splice(0)) b.destroy();
});
function box(): LocalBox {
  const b = new LocalBox({ home: '/home/user' });
  boxes.push(b);
  return b;
}

describe('LocalBox (the stand-ins’ sandbox)', () => {
  it('runs commands at its home, with files written through its file API', async () => {
    const b = box();
    b.writeFile('/home/user/work/a.txt', 'hello\n');
    const r = await b.exec('pwd; cat work/a.txt; echo err >&2; touch work/made; exit 3');
    expect(r).toMatchObject({ code: 3, stdout: '/home/user\nhello\n', stderr: 'err\n' });
    expect(b.readFile('/home/user/work/made').length).toBe(0);
  });

  it('follows links inside the box, never to this machine’s files', async () => {
    const b = box();
    const secret = fs.mkdtempSync('/tmp/host-secret-');
    onTestFinished(() => fs.rmSync(secret, { recursive: true, force: true }));
    fs.writeFileSync(`${secret}/key`, 'host');
    await b.exec(`ln -s ${secret}/key /home/user/link; ln -s /etc/hostname /home/user/sys`);
    expect(() => b.readFile('/home/user/link')).toThrow(/no such file/);
    expect(() => b.writeFile('/home/user/link', 'x')).toThrow();
    expect(fs.readFileSync(`${secret}/key`, 'utf8')).toBe('host');
    const seen = await b.exec(`cat ${secret}/key`);
    expect(seen.code).not.toBe(0);
  });

  it('takes its daemon’s lines as data: only lines of their form are read, and a command cannot write into them', async () => {
    expect(daemonLine('{"id":3,"fd":1,"data":"aGk="}')).toEqual({ id: 3, fd: 1, data: 'aGk=' });
    expect(daemonLine('{"id":3,"code":null,"signal":"SIGKILL"}')).toEqual({ id: 3, code: null, signal: 'SIGKILL' });
    for (const bad of ['not json', '{"id":3,"code":0,"signal":null,"x":1}', '{"id":-1,"code":0,"signal":null}', '{"id":3,"fd":3,"data":""}', '{"id":3,"fd":1,"data":"*"}', '{"id":3,"code":0,"signal":"rm -rf"}', '[]']) {
      expect(daemonLine(bad)).toBeUndefined();
    }
    // Its pipes are sockets: not to be opened again through /proc by a command in the box.
    const b = box();
    const forged = await b.exec('for p in /proc/[0-9]*; do [ "$(readlink "$p/exe")" = /.deepdesk-standin/node ] && echo \'{"id":1,"code":0,"signal":null}\' > "$p/fd/1" && echo written; done; echo done', { timeoutMs: 30_000 });
    expect(forged).toMatchObject({ code: 0, stdout: 'done\n' });
  });

  it('ends a command’s whole tree on kill, and has no network', async () => {
    const b = box();
    const r = await b.exec('sleep 987751 & sleep 30', { timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    await expect.poll(async () => Number((await b.exec(sleepingLine('987751'), { timeoutMs: 30_000 })).stdout), { timeout: 60_000 }).toBe(0);
    const net = await b.exec('exec 3<>/dev/tcp/127.0.0.1/22 && echo connected', { timeoutMs: 5000 });
    expect(net.stdout).not.toContain('connected');
  });
});
