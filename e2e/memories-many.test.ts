// Issue 17: the Memories panel with thousands of memories keeps only a window of rows in
// the DOM, reaches the last memory by scrolling (fetching page after page), and its search
// finds one memory among them.

import { describe, expect, it } from 'vitest';
import { databasePath } from '../src-main/app/base/data-dir';
import { MEMORIES_NAMESPACE } from '../src-main/core/backends/store/memory-store-api';
import { openDatabase, StoreBackend } from '../src-main/core/backends/store/store';
import { openApp, screenshot, useE2ESession } from './harness';

const COUNT = 3000;
const name = (i: number): string => `note-${String(i).padStart(4, '0')}.md`;

const e2e = useE2ESession();

describe('the Memories panel with thousands of memories', () => {
  it('renders only the rows in view, scrolls page by page to the last memory, and searches', async () => {
    const serve = await e2e.serve();
    const db = openDatabase(databasePath(serve.dataDir));
    try {
      const store = new StoreBackend({ db, namespace: MEMORIES_NAMESPACE, author: 'user' });
      const files = Array.from({ length: COUNT }, (_, i) => ({
        path: `/${name(i)}`,
        content: new TextEncoder().encode(i === 2345 ? 'Find the Needle In The Haystack here.\n' : `Memory number ${i}.\n`),
      }));
      expect((await store.uploadFiles(files)).every((r) => r.error === undefined)).toBe(true);
    } finally {
      db.close();
    }

    const page = await openApp(e2e.browser, serve.url);
    const memories = page.getByRole('region', { name: 'Memories' });
    const list = memories.getByRole('list', { name: 'Memory files' });
    await memories.getByRole('button', { name: new RegExp(name(0).replace('.', '\\.')) }).waitFor({ timeout: 60_000 });
    const rows = list.getByRole('listitem');
    expect(await rows.count()).toBeLessThan(60);

    // Scroll to the end of what is loaded until the last memory is there: each step fetches a page.
    const last = memories.getByRole('button', { name: new RegExp(name(COUNT - 1).replace('.', '\\.')) });
    await expect
      .poll(
        async () => {
          await list.evaluate((el) => {
            const scroller = el.parentElement!;
            scroller.scrollTop = scroller.scrollHeight;
          });
          return last.count();
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(1);
    expect(await rows.count()).toBeLessThan(60);
    expect(await rows.first().getAttribute('aria-posinset')).not.toBe('1');
    await expect.poll(() => rows.last().getAttribute('aria-setsize')).toBe(String(COUNT));
    await screenshot(page, 'memories-many-scrolled');

    await memories.getByRole('searchbox', { name: 'Search memories' }).fill('needle in the HAY');
    await expect.poll(() => list.innerText(), { timeout: 60_000 }).toContain('Find the Needle In The Haystack here.');
    expect(await rows.count()).toBe(1);
    await screenshot(page, 'memories-many-search');
    await memories.getByRole('button', { name: new RegExp(name(2345).replace('.', '\\.')) }).click();
    await memories.getByText('Find the Needle In The Haystack here.').last().waitFor();
    await page.context().close();
  });
});
