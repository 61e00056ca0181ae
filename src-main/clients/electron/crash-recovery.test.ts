// A renderer that dies is reloaded with a notice; one that keeps dying, or whose preload
// failed, shows a static page with the reason instead of a blank window.

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebContents, resetFakeElectron } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);
const { CRASH_WINDOW_MS, MAX_RELOADS, watchRendererCrashes } = await import('./crash-recovery');

let clock = 0;
let notices: string[];
let contents: FakeWebContents;
beforeEach(() => {
  resetFakeElectron();
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  clock = 1_000_000;
  notices = [];
  contents = new FakeWebContents();
  watchRendererCrashes(contents as never, { notify: (m) => void notices.push(m), now: () => clock });
});

const errorPage = (): string => decodeURIComponent(contents.loaded.at(-1)?.replace(/^data:text\/html;charset=utf-8,/, '') ?? '');

describe('renderer crashes', () => {
  it('reloads after a crash and tells the person why', () => {
    contents.processGone('crashed', 133);
    expect(contents.reloads).toBe(1);
    expect(notices).toEqual([expect.stringMatching(/^The window's page stopped \(crashed, exit code 133\) at .* and was reloaded\.$/)]);
    contents.processGone('oom');
    expect(contents.reloads).toBe(2);
    expect(notices[1]).toContain('(oom,');
  });

  it('does nothing when the page ended cleanly', () => {
    contents.processGone('clean-exit');
    expect(contents.reloads).toBe(0);
    expect(notices).toEqual([]);
  });

  it('stops reloading in a crash loop and shows a static page with the reason', () => {
    for (let i = 0; i < MAX_RELOADS; i++) {
      contents.processGone('crashed');
      clock += 1000;
    }
    expect(contents.reloads).toBe(MAX_RELOADS);
    contents.processGone('killed', 9);
    expect(contents.reloads).toBe(MAX_RELOADS);
    expect(contents.loaded.at(-1)).toMatch(/^data:text\/html;charset=utf-8,/);
    const page = errorPage();
    expect(page).toContain('Deepdesk stopped showing its window');
    expect(page).toContain('(killed, exit code 9)');
    expect(page).toContain(`${MAX_RELOADS + 1} times within a minute`);
    expect(page).toContain("default-src 'none'");
    expect(page).not.toContain('<script');
    // Once stopped, later crashes (of the error page) change nothing.
    contents.processGone('crashed');
    expect(contents.reloads).toBe(MAX_RELOADS);
  });

  it('keeps reloading crashes that are far apart', () => {
    for (let i = 0; i < MAX_RELOADS + 3; i++) {
      contents.processGone('crashed');
      clock += CRASH_WINDOW_MS;
    }
    expect(contents.reloads).toBe(MAX_RELOADS + 3);
  });

  it('shows the static page, escaped, when the preload fails (never a WebSocket fallback)', () => {
    contents.preloadError('/app/out/preload/index.cjs', new Error('Unexpected token <b>'));
    const page = errorPage();
    expect(page).toContain('Deepdesk could not connect its window');
    expect(page).toContain('Unexpected token &#60;b&#62;');
    expect(contents.reloads).toBe(0);
  });
});
