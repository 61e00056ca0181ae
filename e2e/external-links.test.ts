// Links the model writes (issue 25): clicking one asks first, showing the address it really
// goes to (its text can say another), and opens it only when the person says so; after that,
// links to the same host open without asking, a new host asks again. The same code opens links
// in the desktop app (whose window-open handler hands them to the browser). Also: Settings ›
// Updates in the served window says updates do not apply to it.

import { describe, expect, it } from 'vitest';
import { conversation, openApp, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();

const ANSWER = [
  'See [the official docs](https://evil.example/phish?x=1) first.',
  'Then [more docs](https://evil.example/other) and [a second site](https://second.example/page).',
].join('\n\n');

declare global {
  interface Window {
    openedLinks?: string[];
  }
}

describe('links in the conversation', () => {
  it('ask once per host, showing the real address, and open only when confirmed', async () => {
    const serve = await e2e.serve({ script: [{ text: ANSWER }] });
    const page = await openApp(e2e.browser, serve.url, {
      // What the page asks the browser to open, instead of opening it (no network here).
      init: () => {
        window.openedLinks = [];
        window.open = (url?: string | URL) => {
          window.openedLinks!.push(String(url));
          return null;
        };
      },
    });
    const opened = () => page.evaluate(() => window.openedLinks ?? []);
    await sendMessage(page, 'Where are the docs?');
    const log = conversation(page);
    await log.getByRole('link', { name: 'the official docs' }).waitFor({ timeout: 60_000 });

    const question = page.getByRole('alertdialog', { name: 'Open link' });
    await log.getByRole('link', { name: 'the official docs' }).click();
    await question.waitFor();
    expect(await question.locator('.link-address').innerText()).toBe('https://evil.example/phish?x=1');
    expect(await question.innerText()).toContain('evil.example');
    await question.getByRole('button', { name: 'Cancel' }).click();
    await question.waitFor({ state: 'detached' });
    expect(await opened()).toEqual([]);

    await log.getByRole('link', { name: 'the official docs' }).click();
    await question.getByRole('button', { name: 'Open link' }).click();
    await expect.poll(opened).toEqual(['https://evil.example/phish?x=1']);

    // The same host: no question.
    await log.getByRole('link', { name: 'more docs' }).click();
    await expect.poll(opened).toEqual(['https://evil.example/phish?x=1', 'https://evil.example/other']);
    expect(await question.count()).toBe(0);

    // Another host asks again.
    await log.getByRole('link', { name: 'a second site' }).click();
    await question.waitFor();
    expect(await question.locator('.link-address').innerText()).toBe('https://second.example/page');
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    expect(await opened()).toHaveLength(2);
  });

  it('Settings › Updates: the version, and that updates do not apply to the served window', async () => {
    const serve = await e2e.serve();
    const page = await openApp(e2e.browser, serve.url);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const updates = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Updates' });
    await updates.getByRole('status').waitFor();
    await expect.poll(() => updates.innerText()).toMatch(/Deepdesk \d+\.\d+\.\d+/);
    expect(await updates.getByRole('status').innerText()).toContain('deepdesk serve');
    expect(await updates.getByRole('button', { name: 'Check for updates' }).isDisabled()).toBe(true);
  });
});
