// A long thread in the window (issue 17): it opens on its latest items, scrolling to the top
// loads the earlier ones while what was on screen stays put, a cut tool output shows in
// full when its card is opened, and a run adds to the thread while it is open. Only the rows
// near the view are on the page (issue 98): an opened card is open again when it comes back, and
// a waiting approval never leaves.

import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { newThreadState } from '../src-main/core/agent/types';
import { openDatabase } from '../src-main/core/backends/store/store';
import type { ChatMessage } from '../src-main/core/models/types';
import { databasePath } from '../src-main/app/base/data-dir';
import { ThreadStore } from '../src-main/app/threads/thread-store';
import { approval, conversation, openApp, screenshot, sendMessage, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();

const TURNS = 1_000;
const MIDDLE = 'MIDDLE-OF-THE-LONG-OUTPUT';

/** Each turn: a question, a command and its output, an answer; the last command's output is 60 KB with a marker in its middle. */
function longThread(): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let t = 0; t < TURNS; t++) {
    const id = `call_${t}`;
    const half = Array.from({ length: 400 }, (_, i) => `line ${i} of the build output of turn ${t}`).join('\n');
    const output = t === TURNS - 1 ? `${half}\n${MIDDLE}\n${half}\nbuild finished` : `done ${t}`;
    messages.push(
      { role: 'user', content: `question ${t}` },
      { role: 'assistant', content: '', toolCalls: [{ id, name: 'execute', args: { command: `make step-${t}` }, argsText: '{}' }] },
      { role: 'tool', toolCallId: id, toolName: 'execute', content: output },
      { role: 'assistant', content: `answer ${t}` },
    );
  }
  return messages;
}

/** A data folder whose database has the long thread, in `folder`. */
function seededDataDir(folder: string): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-data-'));
  const db = openDatabase(databasePath(dataDir));
  try {
    const state = newThreadState('long-thread');
    state.messages = longThread();
    new ThreadStore(db).save(state, { folder: realpathSync(folder), title: 'The long thread' });
  } finally {
    db.close();
  }
  return dataDir;
}

const userTexts = (page: Page) => conversation(page).locator('.msg-user-text').allInnerTexts();
const turnOf = (text: string): number => Number(text.split(' ')[1]);
/** `question n`, `question n+1`, …: no gap, no repeat. */
const consecutive = (texts: string[]): boolean => texts.every((text, i) => text === `question ${turnOf(texts[0]!) + i}`);

async function openLongThread(page: Page): Promise<void> {
  await page.getByRole('region', { name: 'Threads' }).getByRole('button', { name: /^The long thread/ }).click();
  await conversation(page).getByText(`answer ${TURNS - 1}`, { exact: true }).waitFor({ timeout: 60_000 });
}

/** Scrolls the conversation to its very top, as the person would. */
async function scrollToTop(page: Page): Promise<void> {
  await conversation(page).evaluate((el) => el.scrollTo({ top: 0 }));
}

describe('a long thread in the window', () => {
  it('opens on the latest items, loads earlier ones at the top keeping the place, and shows a cut output in full when opened', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-folder-'));
    const serve = await e2e.serve({ folder, dataDir: seededDataDir(folder) });
    const page = await openApp(e2e.browser, serve.url);
    await openLongThread(page);

    // The recent part only: the latest turn is there, the first is not.
    const first = await userTexts(page);
    expect(first.at(-1)).toBe(`question ${TURNS - 1}`);
    expect(first.length).toBeLessThan(100);
    expect(first).not.toContain('question 0');
    await conversation(page).getByRole('button', { name: 'Show earlier messages' }).waitFor();

    // Scrolled to the top: the earlier items come in above, and the message that was at the
    // top stays where it was on screen.
    const top = first[0]!;
    const topMessage = conversation(page).locator('.msg-user-text').getByText(top, { exact: true });
    const logBox = (await conversation(page).boundingBox())!;
    await scrollToTop(page);
    await expect.poll(async () => (await userTexts(page)).length, { timeout: 60_000 }).toBeGreaterThan(first.length);
    // It was near the top of the log (the first message, under the button); it still is, not
    // pushed down below the fifty turns that came in above it.
    await expect.poll(async () => (await topMessage.boundingBox())!.y - logBox.y, { timeout: 60_000 }).toBeLessThan(400);
    expect((await topMessage.boundingBox())!.y - logBox.y).toBeGreaterThan(-100);
    const loaded = await userTexts(page);
    const n = Number(top.split(' ')[1]);
    // Consecutive turns, each once: no gap, no duplicate.
    expect(loaded).toEqual(Array.from({ length: loaded.length }, (_, i) => `question ${TURNS - loaded.length + i}`));
    expect(loaded.indexOf(top)).toBeGreaterThan(0);
    expect(n).toBe(TURNS - first.length);

    // Once more, with the button: earlier turns above, consecutive (only the rows near the view are on the page now).
    await conversation(page).getByRole('button', { name: 'Show earlier messages' }).click();
    await expect.poll(async () => turnOf((await userTexts(page))[0]!), { timeout: 60_000 }).toBeLessThan(turnOf(loaded[0]!));
    expect(consecutive(await userTexts(page))).toBe(true);

    // The last command's 60 KB output came cut; opening its card shows all of it. (Scrolled down
    // to it first: rows far from the view are out of the page, and out of the accessibility tree.)
    await conversation(page).evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await conversation(page).getByText(`answer ${TURNS - 1}`, { exact: true }).waitFor();
    const card = toolCard(page, 'execute').last();
    await card.scrollIntoViewIfNeeded();
    expect(await conversation(page).getByText(MIDDLE).count()).toBe(0);
    await expect.poll(() => card.innerText()).toMatch(/build finished/);
    await card.getByRole('button', { name: /^Show details of execute/ }).click();
    await card.getByText(MIDDLE).waitFor({ timeout: 60_000 });
    const shown = await card.locator('pre.tool-pre').last().innerText();
    expect(shown).toMatch(/^line 0 of the build output of turn 999\n/);
    expect(shown).toContain(`\n${MIDDLE}\n`);
    expect(shown).not.toContain('characters not shown here');
    await screenshot(page, 'long-thread-full-output');
  });

  it('adds a run’s new items to the recent part while it is open, and earlier items still load without repeats', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-folder-'));
    const serve = await e2e.serve({
      folder,
      dataDir: seededDataDir(folder),
      script: [{ toolCalls: [{ name: 'ls', args: { path: '/' } }] }, { text: 'The folder is listed.' }],
    });
    const page = await openApp(e2e.browser, serve.url);
    await openLongThread(page);
    const first = await userTexts(page);

    await sendMessage(page, 'list the folder');
    await conversation(page).getByText('The folder is listed.').waitFor({ timeout: 60_000 });
    expect((await userTexts(page)).slice(-2)).toEqual([`question ${TURNS - 1}`, 'list the folder']);

    await scrollToTop(page);
    await expect.poll(async () => turnOf((await userTexts(page))[0]!), { timeout: 60_000 }).toBeLessThan(turnOf(first[0]!));
    expect(consecutive(await userTexts(page))).toBe(true);
    // And at the end, the run's message after the last turn, each once.
    await conversation(page).evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect.poll(async () => (await userTexts(page)).at(-1)).toBe('list the folder');
    const end = await userTexts(page);
    expect(consecutive(end.slice(0, -1))).toBe(true);
    expect(end.at(-2)).toBe(`question ${TURNS - 1}`);
    expect(await conversation(page).getByText(`answer ${TURNS - 1}`, { exact: true }).count()).toBe(1);
  });

  it('keeps only the rows near the view on the page, an opened card open when it comes back, and a waiting approval always', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-folder-'));
    const serve = await e2e.serve({ folder, dataDir: seededDataDir(folder), script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo after-the-long-thread' } }] }, { text: 'Ran it.' }] });
    const page = await openApp(e2e.browser, serve.url);
    await openLongThread(page);
    await sendMessage(page, 'run one more');
    await approval(page).waitFor({ timeout: 60_000 });

    // Up earlier pages, at the top each time, until 200 turns (600 rows) are loaded.
    await expect
      .poll(
        async () => {
          await scrollToTop(page);
          return turnOf((await userTexts(page))[0]!);
        },
        { timeout: 60_000 },
      )
      .toBeLessThanOrEqual(TURNS - 200);
    // On the page: the turns near the top, consecutive; not the hundreds loaded.
    // No earlier page on its way, and the rows that came measured (the window moves once more
    // by their heights, in a later frame): what is on the page stays.
    await conversation(page).getByRole('button', { name: 'Show earlier messages' }).waitFor({ timeout: 60_000 });
    let near = await userTexts(page);
    await expect
      .poll(async () => {
        await page.waitForTimeout(250);
        const now = await userTexts(page);
        const same = now.join('\n') === near.join('\n');
        near = now;
        return same;
      }, { timeout: 60_000 })
      .toBe(true);
    expect(consecutive(near)).toBe(true);
    expect(near.length).toBeLessThan(60);
    expect(await conversation(page).getByText(`answer ${TURNS - 1}`, { exact: true }).count()).toBe(0);
    // The waiting approval, far below, is on the page and answerable.
    expect(await approval(page).getByRole('button', { name: 'Approve', exact: true }).count()).toBe(1);

    // A card opened in the middle of those (not at the window's edge), scrolled far away (it leaves the page) and back: still open.
    const turn = near[Math.floor(near.length / 2)]!.split(' ')[1];
    const name = `details of execute make step-${turn}`;
    await conversation(page).getByRole('button', { name: `Show ${name}` }).click();
    await conversation(page).getByRole('button', { name: `Hide ${name}` }).waitFor();
    const at = await conversation(page).evaluate((el) => el.scrollTop);
    await conversation(page).evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await conversation(page).getByText(`answer ${TURNS - 1}`, { exact: true }).waitFor();
    // Holding the focus, it stays on the page; once the focus is elsewhere it leaves.
    expect(await conversation(page).getByRole('button', { name: `Hide ${name}` }).count()).toBe(1);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await conversation(page).evaluate((el) => el.scrollBy({ top: -10 }));
    await expect.poll(() => conversation(page).getByRole('button', { name: new RegExp(name) }).count(), { timeout: 60_000 }).toBe(0);
    expect(await approval(page).count()).toBe(1);
    await conversation(page).evaluate((el, top) => el.scrollTo({ top }), at);
    await conversation(page).getByRole('button', { name: `Hide ${name}` }).waitFor({ timeout: 60_000 });
    expect(await conversation(page).getByRole('button', { name: `Show ${name}` }).count()).toBe(0);
    expect(await approval(page).count()).toBe(1);
    await screenshot(page, 'long-thread-window');

    // The approval still answers: the run goes on.
    await approval(page).getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await conversation(page).getByText('Ran it.').waitFor({ timeout: 60_000 });
  });
});
