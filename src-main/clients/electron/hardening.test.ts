// The window's navigation, popups, webviews, downloads, permissions and spellchecker, with the
// faked `electron` module firing events in Electron's order (will-frame-navigate, then
// will-navigate for the main frame): a web link in the window opens in the browser, whichever
// way it was followed, and nothing else leaves the app's page.

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { electron, FakeFrame, FakeSession, FakeWebContents, resetFakeElectron } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);
const { debugSwitchGiven, hardenContents, hardenSession, spellcheckerWanted } = await import('./hardening');
const { APP_PAGE_URL } = await import('./trusted-urls');

const pages = { rendererDir: '/opt/deepdesk/out/renderer' };

beforeEach(() => resetFakeElectron());

function hardened(): FakeWebContents {
  const contents = new FakeWebContents();
  hardenContents(contents as never, pages);
  contents.mainFrame.url = APP_PAGE_URL;
  return contents;
}

describe('navigation and popups', () => {
  it('opens a web link followed in the window itself in the browser (will-frame-navigate leaves the main frame to will-navigate)', () => {
    const contents = hardened();
    expect(contents.navigate('https://docs.example.com/a?b=1')).toBe('cancelled');
    expect(electron.shell.opened).toEqual(['https://docs.example.com/a?b=1']);
    expect(contents.getURL()).toBe(APP_PAGE_URL);
  });

  it('keeps the app page navigable and refuses every other scheme without opening it', () => {
    const contents = hardened();
    expect(contents.navigate(`${APP_PAGE_URL}#/threads/1`)).toBe('navigated');
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,<p>x', 'app://other/index.html', 'smb://server/share']) {
      expect(contents.navigate(url), url).toBe('cancelled');
    }
    expect(electron.shell.opened).toEqual([]);
  });

  it('cancels subframe navigations away from the app, and opens nothing for them', () => {
    const contents = hardened();
    const frame = new FakeFrame(APP_PAGE_URL, contents.mainFrame);
    expect(contents.navigate('https://evil.example/', frame)).toBe('cancelled');
    expect(electron.shell.opened).toEqual([]);
    expect(contents.navigate(APP_PAGE_URL, frame)).toBe('navigated');
  });

  it('refuses redirects off the app page', () => {
    const contents = hardened();
    expect(contents.redirect('https://example.com/')).toBe('cancelled');
    expect(contents.redirect(APP_PAGE_URL)).toBe('redirected');
  });

  it('denies every new window, handing http(s) links to the browser', () => {
    const contents = hardened();
    expect(contents.windowOpen('https://example.com/x')).toBe('deny');
    expect(contents.windowOpen('http://example.com')).toBe('deny');
    expect(contents.windowOpen('file:///etc/passwd')).toBe('deny');
    expect(contents.windowOpen(APP_PAGE_URL)).toBe('deny');
    expect(electron.shell.opened).toEqual(['https://example.com/x', 'http://example.com/']);
  });

  it('refuses webviews', () => {
    expect(hardened().attachWebview()).toBe('cancelled');
  });
});

describe('the session', () => {
  it('serves app:// from the renderer folder, grants only clipboard writes, refuses downloads', async () => {
    const session = new FakeSession();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    hardenSession(session as never, pages);
    expect(session.protocol.isProtocolHandled('app')).toBe(true);
    expect(session.permissionCheckHandler?.(null, 'clipboard-sanitized-write')).toBe(true);
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fileSystem']) {
      expect(session.permissionCheckHandler?.(null, permission), permission).toBe(false);
      const granted = await new Promise<boolean>((resolve) => session.permissionRequestHandler?.(null, permission, resolve));
      expect(granted, permission).toBe(false);
    }
    expect(session.download('https://example.com/payload.sh')).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('refused a download of https://example.com/payload.sh'));
    warn.mockRestore();
  });

  it('downloads no spellchecker dictionaries (only macOS, with its own, keeps spellchecking)', () => {
    expect(spellcheckerWanted('darwin')).toBe(true);
    expect(spellcheckerWanted('linux')).toBe(false);
    expect(spellcheckerWanted('win32')).toBe(false);
    const session = new FakeSession();
    hardenSession(session as never, pages);
    expect(session.spellCheckerEnabled).toBe(spellcheckerWanted());
  });

  it("names Chromium's remote-debugging switches, which a packaged app refuses", () => {
    expect(debugSwitchGiven((name) => name === 'remote-debugging-port')).toBe('remote-debugging-port');
    expect(debugSwitchGiven((name) => name === 'remote-debugging-pipe')).toBe('remote-debugging-pipe');
    expect(debugSwitchGiven((name) => name === 'no-sandbox')).toBeUndefined();
  });
});
