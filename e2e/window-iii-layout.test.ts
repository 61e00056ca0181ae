// Window III, the first screen as a newcomer meets it (headless Chromium against `deepdesk
// serve` and the scripted model, at the sizes where each problem was seen, with screenshots
// at 1400×900, 1024×700 and 800×600): the offer of modes shows whole and works, opens once by
// itself without taking a typed draft, and goes away once answered; the terminal starts
// collapsed and opens for the agent's commands; names keep their room in every list.

import { readFileSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, openApp, screenshot, sendMessage, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();

const SIZES = [
  [1400, 900],
  [1024, 700],
  [800, 600],
] as const;

/** expect.poll with room for a loaded machine. */
const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

const open = (url: string, width: number, height: number, init?: () => void): Promise<Page> => openApp(e2e.browser, url, { width, height, ...(init ? { init } : {}) });

const offerButton = (page: Page) => page.getByRole('button', { name: 'Show mode choices for this new folder' });
const offer = (page: Page) => page.getByRole('group', { name: /How much may the agent do on its own/ });
const activeLabel = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName ?? null);

/** Whether the whole of `locator` is in the window and what is drawn at its centre is itself (nothing clips or covers it). */
async function shownWhole(page: Page, locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || r.top < 0 || r.left < 0 || r.bottom > window.innerHeight || r.right > window.innerWidth) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && (hit === el || el.contains(hit));
  });
}

const folderModes = (dataDir: string, folder: string) => (JSON.parse(readFileSync(join(dataDir, 'folder-modes.json'), 'utf8')) as Record<string, Record<string, unknown>>)[realpathSync(folder)] ?? {};

describe('the offer of modes on a new folder', () => {
  it('opens by itself once, shows whole at every size, and a click on edit chooses edit', async () => {
    for (const [width, height] of SIZES) {
      const serve = await e2e.serve({ firstOpen: true });
      const page = await open(serve.url, width, height);
      const choices = offer(page);
      await choices.waitFor({ timeout: 60_000 });
      // Not a 1 px line under a header that clips it (every choice is drawn whole and on top),
      // nor a third of the window (e2e/window-v.test.ts: a line or two at 1024×700).
      expect((await choices.boundingBox())!.height, `${width}×${height}`).toBeGreaterThan(30);
      for (const mode of ['ask', 'edit', 'plan']) await poll(() => shownWhole(page, choices.getByRole('button', { name: mode, exact: true }))).toBe(true);
      // The keyboard is in the choices (the message box was empty).
      await poll(() => choices.evaluate((el) => el.contains(document.activeElement))).toBe(true);
      await screenshot(page, `mode-offer-${width}x${height}`);
      await poll(() => folderModes(serve.dataDir, serve.folder).offerShown).toBe(true);
      if (width !== 1400) {
        await page.context().close();
        continue;
      }
      // A person's click where the choice is drawn (no scrolling of anything first).
      const edit = (await choices.getByRole('button', { name: 'edit', exact: true }).boundingBox())!;
      await page.mouse.click(edit.x + edit.width / 2, edit.y + edit.height / 2);
      await poll(() => page.getByRole('combobox', { name: 'Mode' }).inputValue()).toBe('edit');
      await poll(() => choices.count()).toBe(0);
      expect(await offerButton(page).count()).toBe(0);
      // The Mode control stays, and the keyboard is back in the message box.
      expect(await page.getByRole('combobox', { name: 'Mode' }).count()).toBe(1);
      await poll(() => activeLabel(page)).toBe('Message');
      await page.reload();
      await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
      await poll(() => page.getByRole('combobox', { name: 'Mode' }).inputValue()).toBe('edit');
      expect(await offer(page).count()).toBe(0);
      expect(await offerButton(page).count()).toBe(0);
      expect(folderModes(serve.dataDir, serve.folder)).toMatchObject({ mode: 'edit' });
      await page.context().close();
    }
  });

  it('Esc closes it (not answered: its button stays) and gives the keyboard back to the message box', async () => {
    const serve = await e2e.serve({ firstOpen: true });
    const page = await open(serve.url, 1024, 700);
    const choices = offer(page);
    await choices.waitFor({ timeout: 60_000 });
    await poll(() => choices.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await poll(() => choices.count()).toBe(0);
    await poll(() => activeLabel(page)).toBe('Message');
    // Closed, not dismissed: ask applies, the button stays, and it does not open by itself again.
    expect(await offerButton(page).count()).toBe(1);
    expect(await page.getByRole('combobox', { name: 'Mode' }).inputValue()).toBe('ask');
    await poll(() => folderModes(serve.dataDir, serve.folder).offerShown).toBe(true);
    expect(folderModes(serve.dataDir, serve.folder).offerDismissed).toBeUndefined();
    expect(folderModes(serve.dataDir, serve.folder).mode).toBeUndefined();
    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await poll(() => page.getByRole('combobox', { name: 'Mode' }).isEnabled()).toBe(true);
    await offerButton(page).waitFor({ timeout: 60_000 });
    expect(await offer(page).count()).toBe(0);
  });

  it('its button opens it again until answered, and Esc then returns the keyboard to it', async () => {
    const serve = await e2e.serve();
    const page = await open(serve.url, 800, 600);
    // Shown once already here: it waits behind its button, not over the window.
    await offerButton(page).waitFor({ timeout: 60_000 });
    expect(await offer(page).count()).toBe(0);
    await offerButton(page).click();
    await offer(page).waitFor();
    expect(await shownWhole(page, offer(page).getByRole('button', { name: 'plan', exact: true }))).toBe(true);
    await page.keyboard.press('Escape');
    await poll(() => offer(page).count()).toBe(0);
    await poll(() => activeLabel(page)).toBe('Show mode choices for this new folder');
    expect(await offerButton(page).count()).toBe(1);
  });

  it('does not take the keys of a draft being typed when it opens', async () => {
    const serve = await e2e.serve({ firstOpen: true });
    // The folder's mode arrives only when the test says so: the person is typing by then.
    const page = await open(serve.url, 1400, 900, () => {
      const held: Array<() => void> = [];
      let hold = true;
      const Original = window.WebSocket;
      class Holding extends Original {
        override set onmessage(listener: ((event: MessageEvent) => void) | null) {
          super.onmessage = listener === null ? null : (event: MessageEvent) => {
            if (hold && typeof event.data === 'string' && event.data.includes('"offerShown":false')) held.push(() => listener.call(this, event));
            else listener.call(this, event);
          };
        }
        override get onmessage(): ((event: MessageEvent) => void) | null {
          return super.onmessage;
        }
      }
      window.WebSocket = Holding;
      (window as unknown as { releaseMode: () => void }).releaseMode = () => {
        hold = false;
        for (const deliver of held.splice(0)) deliver();
      };
    });
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.click();
    await page.keyboard.type('Why does test_total fail');
    expect(await offer(page).count()).toBe(0);
    await page.evaluate(() => (window as unknown as { releaseMode: () => void }).releaseMode());
    await offer(page).waitFor({ timeout: 60_000 });
    // Shown, but the keys stay with the draft.
    expect(await activeLabel(page)).toBe('Message');
    await page.keyboard.type('?');
    expect(await box.inputValue()).toBe('Why does test_total fail?');
    await screenshot(page, 'mode-offer-with-draft-1400x900');
    // Esc closes it without touching the draft.
    await page.keyboard.press('Escape');
    await poll(() => offer(page).count()).toBe(0);
    expect(await box.inputValue()).toBe('Why does test_total fail?');
    expect(await activeLabel(page)).toBe('Message');
  });
});

describe('the terminal on the first screen', () => {
  it('the header keeps the folder’s name whole at every size; the model’s name gives way', async () => {
    const serve = await e2e.serve();
    for (const [width, height] of SIZES) {
      const page = await open(serve.url, width, height);
      const name = page.locator('.header-folder-name');
      await poll(() => name.innerText()).toBe(basename(serve.folder));
      // The header lays out again as the model's name and the mode arrive: poll for the settled state.
      await expect.poll(() => name.evaluate((el) => el.scrollWidth > el.clientWidth), { timeout: 60_000, message: `${width}×${height}` }).toBe(false);
      await page.context().close();
    }
  });

  it('starts collapsed at every size, opens when the agent runs a command, and keeps what the person chose', { timeout: 240_000 }, async () => {
    const serve = await e2e.serve({
      settings: { rules: [{ tools: ['execute'], decision: 'allow' }] },
      script: [
        { toolCalls: [{ name: 'execute', args: { command: 'echo first-$((40+2))' } }] },
        { text: 'Ran it.' },
        { toolCalls: [{ name: 'execute', args: { command: 'echo second-$((40+3))' } }] },
        { text: 'Ran it again.' },
      ],
    });
    for (const [width, height] of SIZES) {
      const page = await open(serve.url, width, height);
      await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
      await poll(() => page.getByRole('button', { name: 'Expand Terminal' }).count()).toBe(1);
      // Its body (the shell's prompt) takes no room; the conversation has it.
      const body = page.getByRole('region', { name: 'Terminal' }).getByRole('tablist', { name: 'Terminals' });
      expect(await body.isVisible(), `${width}×${height}`).toBe(false);
      const log = (await conversation(page).boundingBox())!;
      expect(log.height, `${width}×${height}`).toBeGreaterThan(height * 0.55);
      await screenshot(page, `first-screen-${width}x${height}`);
      await page.context().close();
    }

    const page = await open(serve.url, 1400, 900);
    await sendMessage(page, 'run a command');
    // A sandboxed command on a machine the whole suite loads: its own time, bounded only against a hang.
    await expect.poll(() => page.getByRole('region', { name: 'Terminal' }).innerText(), { timeout: 60_000 }).toContain('first-42');
    expect(await page.getByRole('button', { name: 'Collapse Terminal' }).count()).toBe(1);
    await conversation(page).getByText('Ran it.').waitFor({ timeout: 60_000 });
    // The agent opened it, the person did not: the next start is collapsed again.
    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await poll(() => page.getByRole('button', { name: 'Expand Terminal' }).count()).toBe(1);
    // The person opens it: it stays open across a reload.
    await page.getByRole('button', { name: 'Expand Terminal' }).click();
    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await poll(() => page.getByRole('button', { name: 'Collapse Terminal' }).count()).toBe(1);
    // The person collapses it: the agent's next command leaves it collapsed.
    await page.getByRole('button', { name: 'Collapse Terminal' }).click();
    await sendMessage(page, 'run another');
    await conversation(page).getByText('Ran it again.').waitFor({ timeout: 60_000 });
    expect(await page.getByRole('button', { name: 'Expand Terminal' }).count()).toBe(1);
  });
});

describe('the left column holds still', () => {
  it('New thread stays where it is as the window loads and as a run comes into the Agents view and leaves it', async () => {
    const serve = await e2e.serve({ script: [{ text: 'Answered, slowly.', pace: { chunkChars: 2, chunksPerSecond: 8 } }] });
    // Where New thread is from the first frame the thread list shows (before the agents are listed).
    const page = await open(serve.url, 1400, 900, () => {
      const tops: number[] = [];
      (window as unknown as { newThreadTops: number[] }).newThreadTops = tops;
      const look = (): void => {
        const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'New thread');
        const y = button?.getBoundingClientRect().y;
        if (y !== undefined && tops.at(-1) !== y) tops.push(y);
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    const agents = page.getByRole('region', { name: 'Agents' });
    const tops = () => page.evaluate(() => (window as unknown as { newThreadTops: number[] }).newThreadTops);
    await agents.getByText('No agents right now.').waitFor({ timeout: 60_000 });
    // Where a click aimed at it lands: it must not move under the pointer as rows come and go.
    await sendMessage(page, 'hello');
    await agents.getByText('Working').waitFor({ timeout: 60_000 });
    await conversation(page).getByText('Answered, slowly.').waitFor({ timeout: 60_000 });
    // Seen as it finished (the open thread): its row leaves.
    await agents.getByText('No agents right now.').waitFor({ timeout: 60_000 });
    expect(await tops()).toHaveLength(1);
  });
});

describe('names first, metadata truncates', () => {
  const LONG_TITLE = 'Find out why the rounding of the invoice totals in the VAT report differs from the accounting export by one cent';

  /**
   * `locator` shows all of its text: not squeezed, not cut off by a box around it, and not
   * replaced by the ellipsis of one.
   */
  const whole = (locator: Locator) =>
    locator.evaluate((el) => {
      const r = el.getBoundingClientRect();
      if (r.width < 8 || el.scrollWidth > el.clientWidth + 1) return false;
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const style = getComputedStyle(a);
        if (style.overflowX === 'visible') continue;
        const c = a.getBoundingClientRect();
        if (r.left < c.left - 1 || r.right > c.right + 1) return false;
        if (style.textOverflow === 'ellipsis' && a.scrollWidth > a.clientWidth) return false;
      }
      return true;
    });

  it('a memory written by a thread with a long title, a changed file deep in the folder, and its card keep their names at 1024×700', async () => {
    const script: ScriptStep[] = [
      {
        toolCalls: [
          { name: 'write_file', args: { file_path: '/memories/short-notes.md', content: 'Totals are rounded per line.\n' } },
          { name: 'write_file', args: { file_path: '/src/invoicing/reports/vat/calc.py', content: 'def total(lines):\n    return round(sum(lines), 2)\n' } },
        ],
      },
      { toolCalls: [{ name: 'read_file', args: { file_path: '/src/invoicing/reports/vat/calc.py' } }] },
      { text: 'Noted.' },
    ];
    const serve = await e2e.serve({ script, settings: { rules: [{ tools: ['write_file'], decision: 'allow' }] } });
    for (const [width, height] of SIZES) {
      const page = await open(serve.url, width, height);
      if (width === 1400) {
        await sendMessage(page, LONG_TITLE);
        await conversation(page).getByText('Noted.').waitFor({ timeout: 60_000 });
      } else {
        await conversation(page).getByText('Noted.').waitFor({ timeout: 60_000 });
      }
      const narrow = width < 1000;
      if (narrow) await page.getByRole('button', { name: 'Show Memories' }).click();
      const memories = page.getByRole('region', { name: 'Memories' });
      const item = memories.getByRole('list', { name: 'Memory files' }).getByRole('button').first();
      await poll(() => item.innerText()).toContain('by thread');
      // The name is there whole, and the "by thread …" line gave way instead.
      const name = item.locator('.memory-path');
      await poll(() => whole(name)).toBe(true);
      expect(await name.innerText()).toBe('short-notes.md');
      expect(await item.locator('.memory-meta').evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      // The viewer's title is the whole path (wrapped where it must be), never `/memories/sho…`.
      await item.click();
      const title = memories.getByRole('group', { name: 'Memory /memories/short-notes.md' }).locator('.memory-detail-path');
      await poll(() => whole(title)).toBe(true);
      expect(await title.innerText()).toBe('/memories/short-notes.md');
      await screenshot(page, `names-memories-${width}x${height}`);
      if (narrow) await page.keyboard.press('Escape');

      // Changes: the file name stays, the folders give way (never just `/`).
      if (narrow) await page.getByRole('button', { name: 'Show Changes' }).click();
      const change = page.getByRole('region', { name: 'Changes' }).getByRole('listitem', { name: '/src/invoicing/reports/vat/calc.py' });
      await change.waitFor({ timeout: 60_000 });
      const base = change.locator('.changes-path .path-base');
      await poll(() => whole(base)).toBe(true);
      expect(await base.innerText()).toBe('calc.py');
      // Read as one path (for copying, and for what a screen reader says).
      expect(await change.locator('.changes-path').innerText()).toBe('/src/invoicing/reports/vat/calc.py');
      await screenshot(page, `names-changes-${width}x${height}`);
      if (narrow) await page.keyboard.press('Escape');

      // Cards: the file name of a long path stays in the card's one line.
      const card = toolCard(page, 'write_file').nth(1);
      await poll(() => whole(card.locator('.tool-summary .path-base'))).toBe(true);
      const read = toolCard(page, 'read_file');
      await poll(() => whole(read.locator('.path-base'))).toBe(true);
      expect(await read.locator('.tool-summary').innerText()).toBe('Read src/invoicing/reports/vat/calc.py · 2 lines');

      // Threads: the title keeps the row; its metadata gives way.
      if (narrow) await page.getByRole('button', { name: 'Show Threads' }).click();
      const thread = page.getByRole('region', { name: 'Threads' }).locator('.thread-title').first();
      expect(await thread.evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(100);
      if (narrow) await page.keyboard.press('Escape');

      // Files: a long name keeps the row, its `M` stays in view.
      if (narrow) await page.getByRole('button', { name: 'Show Files' }).click();
      const files = page.getByRole('region', { name: 'Files' });
      await files.getByRole('treeitem', { name: /src/ }).click();
      await files.getByRole('treeitem', { name: /invoicing/ }).click();
      await files.getByRole('treeitem', { name: /reports/ }).click();
      await files.getByRole('treeitem', { name: /vat/ }).click();
      const row = files.getByRole('treeitem', { name: /calc\.py/ });
      await row.waitFor();
      await poll(() => row.locator('.tree-badge').evaluate((el) => el.getBoundingClientRect().right <= el.closest('.tree')!.getBoundingClientRect().right + 1)).toBe(true);
      if (narrow) await page.keyboard.press('Escape');
      await page.context().close();
    }
  });

  it('a thread waiting for approval says so in the list (its title keeps its room) and the page title counts it', async () => {
    const serve = await e2e.serve({ script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'a\n' } }] }, { text: 'Written.' }] });
    const page = await open(serve.url, 1024, 700);
    await sendMessage(page, LONG_TITLE);
    await approval(page).waitFor({ timeout: 60_000 });
    await poll(() => page.title()).toMatch(/^\(1 needs you\) /);
    // Another thread open: the first one waits in the background.
    const threads = page.getByRole('region', { name: 'Threads' });
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await poll(() => threads.locator('.thread-item').count()).toBe(2);
    const waiting = threads.locator('.thread-item').filter({ hasText: 'waiting for approval' });
    await poll(() => waiting.count()).toBe(1);
    expect(await waiting.innerText()).not.toMatch(/pending/);
    expect(await waiting.locator('.thread-title').evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(120);
    await poll(() => page.title()).toMatch(/^\(1 needs you\) .* — Deepdesk$/);
    await screenshot(page, 'thread-waiting-1024x700');
    await waiting.locator('.thread-select').click();
    await approval(page).getByRole('button', { name: 'Approve' }).click({ timeout: 60_000 });
    await conversation(page).getByText('Written.').waitFor({ timeout: 60_000 });
    await poll(() => page.title()).not.toMatch(/needs? you/);
    await poll(() => threads.getByText('waiting for approval').count()).toBe(0);
  });
});
