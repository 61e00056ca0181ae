import { describe, expect, it } from 'vitest';
import { folderLocationName, folderLocationText, FolderLocationError, parseFolderLocation, remoteFolderLabel, remoteFolderLocation } from './folder-location';

describe('folder locations (SPEC §13)', () => {
  it('reads ssh:// as a remote folder with its canonical URL, anything else as a local path', () => {
    expect(parseFolderLocation('ssh://dev@box:2222/home/dev/my%20proj/', '/cwd')).toEqual({
      kind: 'ssh',
      target: { user: 'dev', host: 'box', port: 2222, path: '/home/dev/my proj' },
      url: 'ssh://dev@box:2222/home/dev/my%20proj',
    });
    expect(parseFolderLocation('  SSH://gpu/srv  ', '/cwd')).toMatchObject({ kind: 'ssh', url: 'ssh://gpu/srv' });
    expect(parseFolderLocation('proj', '/cwd')).toEqual({ kind: 'local', path: '/cwd/proj' });
    expect(parseFolderLocation('/abs/x/../y', '/cwd')).toEqual({ kind: 'local', path: '/abs/y' });
  });

  it('says why a malformed URL names no folder', () => {
    expect(() => parseFolderLocation('ssh://box')).toThrow(FolderLocationError);
    expect(() => parseFolderLocation('ssh://box')).toThrow(/missing the folder's absolute path/);
    expect(() => parseFolderLocation('ssh://box:99999/p')).toThrow(/invalid port/);
    expect(() => parseFolderLocation('ssh://-oProxyCommand=x/p')).toThrow(/invalid host/);
  });

  it('names a folder by its last segment, and gives its one text', () => {
    const remote = parseFolderLocation('ssh://dev@box:2222/srv/api');
    expect(folderLocationName(remote)).toBe('api');
    expect(folderLocationText(remote)).toBe('ssh://dev@box:2222/srv/api');
    expect(folderLocationName(parseFolderLocation('ssh://box/'))).toBe('/');
    expect(folderLocationName({ kind: 'local', path: '/home/ann/proj' })).toBe('proj');
    expect(remoteFolderLabel(remoteFolderLocation('dev@box:2222', '/srv/api'))).toBe('dev@box:2222:/srv/api');
  });
});

describe('a host and a path from the remote folder dialog', () => {
  it('makes the folder’s URL from an alias or [user@]host[:port] and an absolute path', () => {
    expect(remoteFolderLocation(' devbox ', ' /home/me/code ')).toEqual({ kind: 'ssh', target: { host: 'devbox', path: '/home/me/code' }, url: 'ssh://devbox/home/me/code' });
    expect(remoteFolderLocation('me@10.0.0.5:2200', '/a b/c#d?e')).toMatchObject({ url: 'ssh://me@10.0.0.5:2200/a%20b/c%23d%3Fe', target: { path: '/a b/c#d?e' } });
    expect(remoteFolderLocation('[::1]:22', '/x')).toMatchObject({ target: { host: '::1', port: 22 } });
  });

  it('says in words what is wrong with the host or the path', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['', '/p', /^Enter the host/],
      ['box', '', /^Enter the folder’s path on the remote/],
      ['box', 'code/app', /^The path on the remote must be absolute \(start with \/\): code\/app$/],
      ['box', '~/code', /must be absolute/],
      ['box:0', '/p', /^The port in “box:0” must be a number from 1 to 65535\.$/],
      ['box:http', '/p', /^The port in “box:http”/],
      ['-oProxyCommand=evil', '/p', /is not a host/],
      ['my box', '/p', /^“my box” is not a host/],
      ['box/x', '/p', /is not a host/],
      ['bad user@box', '/p', /is not a host/],
      ['box', '/a/../b', /must not contain “\.\.”/],
    ];
    for (const [host, path, message] of cases) {
      expect(() => remoteFolderLocation(host, path), `${host} ${path}`).toThrow(message);
    }
  });
});
