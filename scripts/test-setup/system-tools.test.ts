// Which route the test set-up takes to get Chromium and bubblewrap, on simulated machines
// (the real one already has both, and other engineers use them). The real machine is
// checked at the end: the real probes find the real tools.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { acquireBwrap, acquireChromium, acquirePostgres, bwrapPath, chromiumPath, realMachine, type Machine } from './system-tools';

interface FakeOptions {
  platform?: NodeJS.Platform;
  isRoot?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Executable files present. */
  files?: string[];
  /** PATH entries: name → path. */
  path?: Record<string, string>;
  /** Executables that exist but fail to run. */
  broken?: string[];
  /** What apt-get install puts on disk (per package), or null when it fails. */
  apt?: Record<string, string[]> | null;
  /** apt-get install fails until `apt-get update` ran (a fresh image). */
  aptNeedsUpdate?: boolean;
  /** What Playwright's download puts on disk, or null when the network is unreachable. */
  download?: string[] | null;
}

const PLAYWRIGHT_CHROME = '/home/u/.cache/ms-playwright/chromium-1/chrome-linux64/chrome';

function fakeMachine(options: FakeOptions = {}): Machine & { commands: string[]; lines: string[] } {
  const files = new Set(options.files ?? []);
  const path = { ...options.path };
  let updated = false;
  const commands: string[] = [];
  const lines: string[] = [];
  return {
    platform: options.platform ?? 'linux',
    isRoot: options.isRoot ?? false,
    env: options.env ?? {},
    commands,
    lines,
    isExecutable: (file) => files.has(file),
    listDir: (dir) => [...new Set([...files].filter((f) => f.startsWith(dir + '/')).map((f) => f.slice(dir.length + 1).split('/')[0]!))],
    onPath: (name) => path[name] ?? null,
    run(command, args, runOptions) {
      commands.push([command, ...args].join(' '));
      if (command === 'apt-get') {
        expect(runOptions?.env?.DEBIAN_FRONTEND).toBe('noninteractive');
        if (args[0] === 'update') {
          updated = true;
          return { ok: options.apt !== null, output: options.apt === null ? 'E: Failed to fetch http://deb.debian.org' : '' };
        }
        if (options.apt === null || options.apt === undefined || (options.aptNeedsUpdate && !updated)) {
          return { ok: false, output: `E: Unable to locate package ${args.at(-1)}` };
        }
        for (const file of options.apt[args.at(-1)!] ?? []) files.add(file);
        return { ok: true, output: '' };
      }
      if (args.includes('install') && args.includes('chromium') && command === process.execPath) {
        if (!options.download) return { ok: false, output: 'Error: Download failure, code=1' };
        for (const file of options.download) files.add(file);
        return { ok: true, output: '' };
      }
      // Running the tool itself (its check).
      if (!files.has(command)) return { ok: false, output: `spawn ${command} ENOENT` };
      if (options.broken?.includes(command)) return { ok: false, output: `${command}: error while loading shared libraries: libnss3.so` };
      return { ok: true, output: 'Chromium 1.2.3' };
    },
    playwrightChromium: () => PLAYWRIGHT_CHROME,
    log: (line) => lines.push(line),
  };
}

const installs = (m: { commands: string[] }) => m.commands.filter((c) => c.startsWith('apt-get') || c.includes(' install chromium'));

describe('test set-up: Chromium', () => {
  it('uses a system browser when there is one, and installs nothing', () => {
    const m = fakeMachine({ isRoot: true, files: ['/usr/bin/chromium', '/usr/bin/apt-get'], path: { 'apt-get': '/usr/bin/apt-get' } });
    expect(acquireChromium(m)).toEqual({ ok: true, path: '/usr/bin/chromium', how: 'found' });
    expect(installs(m)).toEqual([]);
  });

  it('finds Chrome on PATH under its other names', () => {
    const m = fakeMachine({ files: ['/opt/google/chrome/chrome'], path: { 'google-chrome': '/opt/google/chrome/chrome' } });
    expect(acquireChromium(m)).toMatchObject({ ok: true, path: '/opt/google/chrome/chrome' });
  });

  it('uses a Chromium Playwright already downloaded', () => {
    const m = fakeMachine({ files: [PLAYWRIGHT_CHROME] });
    expect(acquireChromium(m)).toMatchObject({ ok: true, path: PLAYWRIGHT_CHROME, how: 'found' });
  });

  it('skips a browser that is there but does not run (a snap stub, missing libraries)', () => {
    const m = fakeMachine({ files: ['/usr/bin/chromium-browser', PLAYWRIGHT_CHROME], broken: ['/usr/bin/chromium-browser'] });
    expect(acquireChromium(m)).toMatchObject({ ok: true, path: PLAYWRIGHT_CHROME });
  });

  it('as root with apt-get on a fresh image: updates the package lists, installs Debian chromium non-interactively', () => {
    const m = fakeMachine({ isRoot: true, path: { 'apt-get': '/usr/bin/apt-get' }, apt: { chromium: ['/usr/bin/chromium'] }, aptNeedsUpdate: true });
    expect(acquireChromium(m)).toEqual({ ok: true, path: '/usr/bin/chromium', how: 'installed with apt-get' });
    expect(installs(m)).toEqual([
      'apt-get install -y -q --no-install-recommends chromium',
      'apt-get update -q',
      'apt-get install -y -q --no-install-recommends chromium',
    ]);
    expect(m.lines[0]).toMatch(/^test set-up: installing chromium with apt-get for the end-to-end tests/);
  });

  it('as root when apt-get cannot reach its mirror: tries the usual download next', () => {
    const m = fakeMachine({ isRoot: true, path: { 'apt-get': '/usr/bin/apt-get' }, apt: null, download: [PLAYWRIGHT_CHROME] });
    expect(acquireChromium(m)).toEqual({ ok: true, path: PLAYWRIGHT_CHROME, how: 'downloaded' });
  });

  it('not root: never calls apt-get, downloads Playwright\'s Chromium', () => {
    const m = fakeMachine({ isRoot: false, path: { 'apt-get': '/usr/bin/apt-get' }, apt: { chromium: ['/usr/bin/chromium'] }, download: [PLAYWRIGHT_CHROME] });
    expect(acquireChromium(m)).toEqual({ ok: true, path: PLAYWRIGHT_CHROME, how: 'downloaded' });
    expect(m.commands.some((c) => c.startsWith('apt-get'))).toBe(false);
  });

  it('macOS without Chrome: downloads, no apt-get', () => {
    const m = fakeMachine({ platform: 'darwin', isRoot: true, path: { 'apt-get': '/usr/bin/apt-get' }, download: [PLAYWRIGHT_CHROME] });
    expect(acquireChromium(m)).toMatchObject({ ok: true, how: 'downloaded' });
    expect(m.commands.some((c) => c.startsWith('apt-get'))).toBe(false);
  });

  it('nothing works: one line saying exactly what to install, and the tests that need it throw it', () => {
    const m = fakeMachine({ isRoot: false, download: null });
    const acquired = acquireChromium(m);
    expect(acquired.ok).toBe(false);
    const line = acquired.ok ? '' : acquired.line;
    expect(line).not.toContain('\n');
    expect(line).toContain('the end-to-end tests need Chromium: no Chromium found');
    expect(line).toContain('sudo apt-get install chromium');
    expect(line).toContain('DEEPDESK_CHROMIUM');
    expect(() => chromiumPath(m)).toThrow(line);
  });

  it('a downloaded browser that cannot run says why', () => {
    const m = fakeMachine({ download: [PLAYWRIGHT_CHROME], broken: [PLAYWRIGHT_CHROME] });
    const acquired = acquireChromium(m);
    expect(acquired).toMatchObject({ ok: false });
    expect(acquired.ok ? '' : acquired.line).toContain(`${PLAYWRIGHT_CHROME} does not run here (${PLAYWRIGHT_CHROME}: error while loading shared libraries: libnss3.so)`);
  });

  it('an explicit DEEPDESK_CHROMIUM wins; a wrong one is reported, not replaced by an install', () => {
    const good = fakeMachine({ env: { DEEPDESK_CHROMIUM: '/opt/my/chrome' }, files: ['/opt/my/chrome', '/usr/bin/chromium'] });
    expect(acquireChromium(good)).toMatchObject({ ok: true, path: '/opt/my/chrome' });
    const wrong = fakeMachine({ isRoot: true, env: { DEEPDESK_CHROMIUM: '/nope' }, path: { 'apt-get': '/usr/bin/apt-get' }, apt: { chromium: ['/usr/bin/chromium'] } });
    const acquired = acquireChromium(wrong);
    expect(acquired.ok ? '' : acquired.line).toContain('DEEPDESK_CHROMIUM=/nope is not an executable file');
    expect(installs(wrong)).toEqual([]);
  });
});

describe('test set-up: bubblewrap', () => {
  it('finds bwrap on PATH', () => {
    const m = fakeMachine({ files: ['/usr/local/bin/bwrap'], path: { bwrap: '/usr/local/bin/bwrap' } });
    expect(acquireBwrap(m)).toEqual({ ok: true, path: '/usr/local/bin/bwrap', how: 'found' });
    expect(bwrapPath(m)).toBe('/usr/local/bin/bwrap');
  });

  it('as root with apt-get: installs the bubblewrap package', () => {
    const m = fakeMachine({ isRoot: true, path: { 'apt-get': '/usr/bin/apt-get' }, apt: { bubblewrap: ['/usr/bin/bwrap'] } });
    expect(acquireBwrap(m)).toEqual({ ok: true, path: '/usr/bin/bwrap', how: 'installed with apt-get' });
    expect(installs(m)).toEqual(['apt-get install -y -q --no-install-recommends bubblewrap']);
  });

  it('not root: one line naming the package; bwrapPath throws it', () => {
    const m = fakeMachine({ path: { 'apt-get': '/usr/bin/apt-get' } });
    const acquired = acquireBwrap(m);
    expect(acquired).toMatchObject({ ok: false });
    const line = acquired?.ok === false ? acquired.line : '';
    expect(line).toContain('the sandbox tests need bubblewrap (bwrap): no bubblewrap (bwrap) found');
    expect(line).toContain('sudo apt-get install bubblewrap');
    expect(() => bwrapPath(m)).toThrow(line);
    expect(m.commands).toEqual([]);
  });

  it('a bwrap that cannot make a sandbox (user namespaces off) is reported as such', () => {
    const m = fakeMachine({ files: ['/usr/bin/bwrap'], broken: ['/usr/bin/bwrap'] });
    expect(() => bwrapPath(m)).toThrow('/usr/bin/bwrap does not run here');
  });

  it('is not needed off Linux', () => {
    expect(acquireBwrap(fakeMachine({ platform: 'darwin' }))).toBeNull();
  });
});

describe('test set-up on this machine', () => {
  // Each probe runs the tool, which can be slow while the other suites load the machine.
  it('the real probes find the real tools', { timeout: 200_000 }, () => {
    const chromium = chromiumPath(realMachine());
    expect(fs.existsSync(chromium)).toBe(true);
    if (process.platform === 'linux') expect(fs.existsSync(bwrapPath(realMachine()))).toBe(true);
  });
});

describe('PostgreSQL for the shared-memories tests', () => {
  const PG = ['/usr/lib/postgresql/15/bin/initdb', '/usr/lib/postgresql/15/bin/pg_ctl', '/usr/lib/postgresql/15/bin/postgres'];
  const withVersion = (m: Machine): Machine => ({ ...m, run: (c, a, o) => (a[0] === '--version' ? { ok: true, output: 'initdb (PostgreSQL) 15.18' } : m.run(c, a, o)) });

  it("finds Debian's server programs off PATH, the newest major first", () => {
    const m = withVersion(fakeMachine({ files: [...PG, ...PG.map((f) => f.replace('/15/', '/13/'))] }));
    expect(acquirePostgres(m)).toEqual({ ok: true, path: '/usr/lib/postgresql/15/bin', how: 'found' });
  });

  it('takes DEEPDESK_POSTGRES_BIN as the folder, and reports it when it holds no PostgreSQL', () => {
    const files = ['/opt/pg/bin/initdb', '/opt/pg/bin/pg_ctl', '/opt/pg/bin/postgres'];
    expect(acquirePostgres(withVersion(fakeMachine({ files, env: { DEEPDESK_POSTGRES_BIN: '/opt/pg/bin' } })))).toEqual({ ok: true, path: '/opt/pg/bin', how: 'found' });
    const missing = acquirePostgres(fakeMachine({ files: [files[0]!], env: { DEEPDESK_POSTGRES_BIN: '/opt/pg/bin' }, isRoot: true, path: { 'apt-get': '/usr/bin/apt-get' } }));
    expect(missing).toEqual({ ok: false, line: expect.stringContaining('DEEPDESK_POSTGRES_BIN: /opt/pg/bin has no pg_ctl') });
  });

  it('as root on Debian installs the postgresql package (after apt-get update on a fresh image)', () => {
    const m = fakeMachine({ isRoot: true, path: { 'apt-get': '/usr/bin/apt-get' }, apt: { postgresql: PG }, aptNeedsUpdate: true });
    expect(acquirePostgres(withVersion(m))).toEqual({ ok: true, path: '/usr/lib/postgresql/15/bin', how: 'installed with apt-get' });
    expect(m.commands.filter((c) => c.startsWith('apt-get'))).toEqual([
      'apt-get install -y -q --no-install-recommends postgresql', 'apt-get update -q', 'apt-get install -y -q --no-install-recommends postgresql',
    ]);
  });

  it('otherwise says in one line what to install', () => {
    const result = acquirePostgres(fakeMachine());
    expect(result).toEqual({ ok: false, line: expect.stringMatching(/^the shared-memories \(PostgreSQL\) tests need PostgreSQL .*apt-get install postgresql.*DEEPDESK_POSTGRES_BIN/) });
    expect(acquirePostgres(fakeMachine({ platform: 'win32' }))).toBeNull();
  });
});
