// parseMountSpec: the forms --mount and Settings › Mounts accept, and hostile input refused
// with a reason (generated prefixes with '..', '//', NUL, reserved and nested-reserved
// prefixes, empty parts; git URLs that would make git run something or read an option).

import { describe, expect, it } from 'vitest';
import { checkMountTable, describeMountSource, MountSpecError, parseMountPrefix, parseMountSpec, RESERVED_MOUNT_PREFIXES } from './mount-spec';
import { memoriesStoreTextError } from '../store/memories-store-text';

const home = { home: '/home/me' };

describe('parseMountSpec', () => {
  it('reads local folders (absolute, relative to the base, ~) with or without ro:', () => {
    expect(parseMountSpec('/docs/=/srv/docs', '/work')).toEqual({ prefix: '/docs/', source: { kind: 'local', path: '/srv/docs', readOnly: false }, text: '/docs/=/srv/docs' });
    expect(parseMountSpec('/docs=ro:../shared/docs/', '/work/project').source).toEqual({ kind: 'local', path: '/work/shared/docs', readOnly: true });
    expect(parseMountSpec('/a/b/=ro:~/notes', '/work', home).source).toEqual({ kind: 'local', path: '/home/me/notes', readOnly: true });
    expect(parseMountSpec('/h/=~', '/work', home).source).toEqual({ kind: 'local', path: '/home/me', readOnly: false });
    // The window's check has no home: ~ is kept as written (the app expands it).
    expect(parseMountSpec('/n/=~/notes').source).toEqual({ kind: 'local', path: '~/notes', readOnly: false });
    expect(parseMountSpec('/x/=a=b', '/w').source).toEqual({ kind: 'local', path: '/w/a=b', readOnly: false });
  });

  it('reads git remotes of every supported transport, with an optional branch', () => {
    const git = (flag: string) => parseMountSpec(flag).source;
    expect(git('/kb/=git+file:///srv/kb.git')).toEqual({ kind: 'git', url: 'file:///srv/kb.git' });
    expect(git('/kb/=git+ssh://git@example.com:2222/team/kb.git#main')).toEqual({ kind: 'git', url: 'ssh://git@example.com:2222/team/kb.git', branch: 'main' });
    expect(git('/kb/=git+https://example.com/kb.git#release/2.0')).toEqual({ kind: 'git', url: 'https://example.com/kb.git', branch: 'release/2.0' });
    expect(git('/kb/=git+http://127.0.0.1:8080/kb.git')).toEqual({ kind: 'git', url: 'http://127.0.0.1:8080/kb.git' });
    expect(git('/kb/=git+git://example.com/kb.git')).toEqual({ kind: 'git', url: 'git://example.com/kb.git' });
    expect(git('/kb/=git+git@example.com:team/kb.git#dev')).toEqual({ kind: 'git', url: 'git@example.com:team/kb.git', branch: 'dev' });
    expect(describeMountSource({ kind: 'git', url: 'https://me@example.com/kb.git', branch: 'main' })).toBe('git+https://me@example.com/kb.git#main');
    expect(describeMountSource({ kind: 'local', path: '/srv/docs', readOnly: true })).toBe('ro:/srv/docs');
  });

  it('refuses malformed flags, empty parts and other sources with a reason', () => {
    const refused: [string, RegExp][] = [
      ['/docs/', /not \/PREFIX\/=SPEC/],
      ['=/srv', /prefix is empty/],
      ['/docs/=', /source is empty/],
      ['/docs/=  ', /source is empty/],
      ['/docs/=ro:', /ro: needs a folder/],
      ['/docs/=docs', /relative folder/], // no base: Settings' folders are absolute or ~/…
      ['/docs/=~other/x', /only your own home/],
      ['/docs/=s3://bucket/docs', /not a mount source/],
      ['/docs/=git+', /git\+ needs a URL/],
      ['/docs/=git+ext::sh -c touch% /tmp/pwned', /space|not a git URL/],
      ['/docs/=git+ext::sh', /not a git URL/],
      ['/docs/=git+fd::3', /not a git URL/],
      ['/docs/=git+ftp://example.com/x.git', /not supported/],
      ['/docs/=git+ssh://-oProxyCommand=touch/x', /starting with '-'/],
      ['/docs/=git+-oProxyCommand=x:y', /starting with '-'/],
      ['/docs/=git+host:-upload-pack=x', /starting with '-'/],
      ['/docs/=git+https://me:secret@example.com/kb.git', /password/],
      ['/docs/=git+https:///kb.git', /no host|not a valid URL/],
      ['/docs/=git+file:///', /names no repository/],
      ['/docs/=git+https://example.com/kb.git#', /branch '' is empty/],
      ['/docs/=git+https://example.com/kb.git#-x', /starts with '-'/],
      ['/docs/=git+https://example.com/kb.git#a..b', /not allow/],
      ['/docs/=git+https://example.com/kb.git#a b', /space|not allow/],
      ['/docs/=git+https://example.com/kb.git#x.lock', /not a valid branch/],
    ];
    for (const [flag, why] of refused) {
      expect(() => parseMountSpec(flag), flag).toThrow(MountSpecError);
      expect(() => parseMountSpec(flag), flag).toThrow(why);
    }
  });

  it('refuses generated hostile prefixes and accepts their clean neighbours', () => {
    const names = ['docs', 'a b', 'données', 'x.y', 'v2'];
    const hostile = (n: string) => [
      `/${n}/../`,
      `/../${n}/`,
      `/${n}/./`,
      `/${n}//x/`,
      `//${n}/`,
      `/${n}\0/`,
      `/${n}/\n`,
      `/${n}\\x/`,
      `${n}/`,
      ` /${n}/`,
      `/${n}/*/`,
      `/~${n}/`,
      '/',
      '//',
      '',
    ];
    for (const n of names) {
      for (const prefix of hostile(n)) expect(() => parseMountPrefix(prefix), JSON.stringify(prefix)).toThrow(MountSpecError);
      expect(parseMountPrefix(`/${n}/`)).toBe(`/${n}/`);
      expect(parseMountPrefix(`/${n}`)).toBe(`/${n}/`);
      expect(parseMountPrefix(`/${n}/deeper/`)).toBe(`/${n}/deeper/`);
    }
    // The NUL byte never reaches a message as a raw control character.
    expect(() => parseMountPrefix('/a\0/')).toThrow(/\\u0000/);
  });

  it('refuses the reserved prefixes and anything nested in them, not their look-alikes', () => {
    for (const reserved of RESERVED_MOUNT_PREFIXES) {
      expect(() => parseMountPrefix(reserved)).toThrow(/Deepdesk's own folder/);
      expect(() => parseMountPrefix(reserved.slice(0, -1))).toThrow(/Deepdesk's own folder/);
      expect(() => parseMountPrefix(`${reserved}team/`)).toThrow(/Deepdesk's own folder/);
      expect(parseMountPrefix(`${reserved.slice(0, -1)}-x/`)).toBe(`${reserved.slice(0, -1)}-x/`);
    }
  });

  it('allows overlapping (nested) prefixes in one table and refuses the same prefix twice', () => {
    const nested = [parseMountSpec('/docs/=/a'), parseMountSpec('/docs/api/=/b')];
    expect(() => checkMountTable(nested)).not.toThrow();
    expect(() => checkMountTable([parseMountSpec('/docs/=/a'), parseMountSpec('/docs=ro:/b')])).toThrow(/mounted twice/);
  });
});

describe('memoriesStoreTextError', () => {
  it('takes sqlite and postgres URLs without a password, and says why for anything else', () => {
    expect(memoriesStoreTextError('sqlite')).toBeNull();
    expect(memoriesStoreTextError('')).toBeNull();
    expect(memoriesStoreTextError('postgres://me@127.0.0.1:5433/team')).toBeNull();
    expect(memoriesStoreTextError('postgresql://db.example.com/team?sslmode=require')).toBeNull();
    expect(memoriesStoreTextError('postgres://me:hunter2@127.0.0.1/team')).toMatch(/PGPASSWORD or ~\/\.pgpass/);
    expect(memoriesStoreTextError('postgres://me@127.0.0.1/team?password=x')).toMatch(/password/);
    expect(memoriesStoreTextError('mysql://x')).toMatch(/sqlite or a postgres/);
    expect(memoriesStoreTextError('postgres://')).toMatch(/not a valid URL|no host/);
  });
});
