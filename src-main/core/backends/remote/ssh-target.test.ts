import { describe, expect, it } from 'vitest';
import { formatSshTarget, isSshFolder, parseSshTarget, sshTargetLabel, SshTargetError } from './ssh-target';

describe('ssh:// folders (SPEC §13)', () => {
  it('reads user, host, port and an absolute path', () => {
    expect(parseSshTarget('ssh://dev@box.example:2222/home/dev/proj')).toEqual({ user: 'dev', host: 'box.example', port: 2222, path: '/home/dev/proj' });
    expect(parseSshTarget('ssh://gpu/srv/code/')).toEqual({ host: 'gpu', path: '/srv/code' });
    expect(parseSshTarget('SSH://[::1]:22/x')).toEqual({ host: '::1', port: 22, path: '/x' });
    expect(parseSshTarget('ssh://h/a%20b/./c')).toEqual({ host: 'h', path: '/a b/c' });
    expect(parseSshTarget('ssh://h/')).toEqual({ host: 'h', path: '/' });
  });

  it('refuses what ssh could read as an option or what is not a folder path', () => {
    for (const bad of ['ssh://-oProxyCommand=x/p', 'ssh://h', 'ssh:///p', 'ssh://h:0/p', 'ssh://h:99999/p', 'ssh://h:x/p', 'ssh://-u@h/p', 'ssh://h/a/../b', 'ssh://h/a%00b', 'ssh://[zz]/p', 'ssh://h h/p']) {
      expect(() => parseSshTarget(bad), bad).toThrow(SshTargetError);
    }
    expect(isSshFolder('/home/x')).toBe(false);
  });

  it('formats back to the same folder, and labels the host for messages', () => {
    for (const value of ['ssh://dev@box:2222/home/dev/my%20proj', 'ssh://[::1]/x', 'ssh://alias/srv']) {
      expect(formatSshTarget(parseSshTarget(value))).toBe(value);
    }
    expect(sshTargetLabel(parseSshTarget('ssh://dev@box:2222/p'))).toBe('dev@box:2222');
  });
});
