import { describe, expect, it } from 'vitest';
import { parseDesktopArgs, secondLaunchArgs, userArgs } from './args';

describe('desktop arguments', () => {
  it('skips the executable, and the app path when Electron runs an unpackaged app', () => {
    expect(userArgs(['/opt/Deepdesk/deepdesk', '--folder', 'x'], false)).toEqual(['--folder', 'x']);
    expect(userArgs(['/usr/bin/electron', '/work/deepdesk', '--folder', 'x'], true)).toEqual(['--folder', 'x']);
  });

  it('takes --folder DIR, --folder=DIR or a positional, resolved against the working directory', () => {
    expect(parseDesktopArgs(['--folder', 'proj'], '/home/me')).toEqual({ folder: '/home/me/proj', dataDir: undefined });
    expect(parseDesktopArgs(['--folder=/abs/proj'], '/home/me').folder).toBe('/abs/proj');
    expect(parseDesktopArgs(['proj'], '/home/me').folder).toBe('/home/me/proj');
    expect(parseDesktopArgs(['--data-dir', 'data', 'proj'], '/home/me')).toEqual({ folder: '/home/me/proj', dataDir: '/home/me/data' });
  });

  it('gives null without a folder and ignores Chromium switches', () => {
    expect(parseDesktopArgs([], '/home/me')).toEqual({ folder: null, dataDir: undefined });
    expect(parseDesktopArgs(['--no-sandbox', '--enable-logging', '--original-process-start-time=123'], '/home/me').folder).toBeNull();
    expect(parseDesktopArgs(['--enable-logging', 'proj', 'other'], '/w').folder).toBe('/w/proj');
    expect(parseDesktopArgs(['--folder'], '/w').folder).toBeNull();
    expect(parseDesktopArgs(['--folder', 'a', 'b'], '/w').folder).toBe('/w/a');
  });
});

describe('a second launch', () => {
  it("takes the launch's own data (arguments and folder), never the argv Chromium rewrote", () => {
    const data = { args: ['--data-dir', 'data', 'proj'], cwd: '/home/b' };
    expect(secondLaunchArgs(['/opt/Deepdesk/deepdesk', '--allow-file-access', 'elsewhere'], '/tmp', data, false)).toEqual({ folder: '/home/b/proj', dataDir: '/home/b/data' });
  });

  it('falls back to argv and the working directory, skipping the app path of an unpackaged app', () => {
    expect(secondLaunchArgs(['/usr/bin/electron', '/work/deepdesk', '--folder', 'x'], '/home/c', undefined, true)).toEqual({ folder: '/home/c/x', dataDir: undefined });
    expect(secondLaunchArgs(['/opt/Deepdesk/deepdesk', 'y'], '/home/c', { args: 'not a list' }, false).folder).toBe('/home/c/y');
  });
});
