import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configLines, sshConfigHosts, sshConfigPath } from './ssh-config-hosts';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'dd-ssh-config-home-'));
  mkdirSync(join(home, '.ssh'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function config(file: string, text: string): string {
  const path = join(home, '.ssh', file);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('the Host aliases of ~/.ssh/config (SPEC §13)', () => {
  it('lists each alias once in file order, skipping wildcard patterns and negations', async () => {
    config(
      'config',
      [
        '# my hosts',
        'Host devbox gpu-1',
        '  HostName 10.0.0.5',
        '  User dev',
        'Host *.internal !bastion *',
        '  ForwardAgent no',
        'host=vm_7 # trailing comment',
        'HOST  "quoted.example"  devbox',
        'Match host foo exec "true"',
        '  User x',
        'Host web?',
        '',
      ].join('\n'),
    );
    expect(await sshConfigHosts({ home, env: {} })).toEqual(['devbox', 'gpu-1', 'vm_7', 'quoted.example']);
  });

  it('follows Include: relative to ~/.ssh, ~ paths, glob patterns in sorted order, nested, each file once', async () => {
    config('config', 'Include conf.d/*.conf ~/.ssh/extra\nHost main\nInclude config\n');
    config('conf.d/b.conf', 'Host beta\n');
    config('conf.d/a.conf', 'Host alpha\nInclude nested/inner\n');
    config('conf.d/skip.txt', 'Host not-included\n');
    config('nested/inner', 'Host inner\n');
    config('extra', 'Host extra\nInclude missing-file\n');
    expect(await sshConfigHosts({ home, env: {} })).toEqual(['alpha', 'inner', 'beta', 'extra', 'main']);
  });

  it('takes the file from DEEPDESK_SSH_CONFIG, and lists nothing when there is no config', async () => {
    expect(await sshConfigHosts({ home, env: {} })).toEqual([]);
    const elsewhere = join(home, 'elsewhere-config');
    writeFileSync(elsewhere, 'Host from-env\n');
    expect(sshConfigPath({ home, env: { DEEPDESK_SSH_CONFIG: elsewhere } })).toBe(elsewhere);
    expect(await sshConfigHosts({ home, env: { DEEPDESK_SSH_CONFIG: elsewhere } })).toEqual(['from-env']);
    expect(sshConfigPath({ home, env: {} })).toBe(join(home, '.ssh', 'config'));
  });

  it('reads keyword=value and quoted arguments as ssh does', () => {
    expect([...configLines('  Host = a b\n#x\nInclude "/p q/r" s # c\nbare\n')]).toEqual([
      { keyword: 'host', args: ['a', 'b'] },
      { keyword: 'include', args: ['/p q/r', 's'] },
    ]);
  });

  it('reads at most a bounded number of files, however wide an Include’s glob', async () => {
    for (let i = 0; i < 300; i++) config(`many/${String(i).padStart(3, '0')}.conf`, `Host m${i}\n`);
    config('config', 'Host first\nInclude many/*.conf\n');
    const hosts = await sshConfigHosts({ home, env: {} });
    expect(hosts.slice(0, 3)).toEqual(['first', 'm0', 'm1']);
    expect(hosts.length).toBe(256);
  });

  it('stops at ssh’s include depth when files include each other in a chain', async () => {
    for (let i = 0; i < 20; i++) config(`chain/${i}`, `Host h${i}\nInclude chain/${i + 1}\n`);
    config('config', 'Include chain/0\n');
    const hosts = await sshConfigHosts({ home, env: {} });
    expect(hosts[0]).toBe('h0');
    expect(hosts.length).toBeLessThanOrEqual(17);
    expect(hosts).not.toContain('h19');
  });
});
