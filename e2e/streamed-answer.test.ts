// A streamed answer is shown block by block; when it is complete and its whole rendering
// says the same as its blocks, the blocks stay: the end of a stream builds no new element
// tree and lays out nothing anew (Scale 4: the chat's longest frame). Where the whole renders
// otherwise (a loose list), it is shown as the whole renders it.

import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ScriptPace } from '../src-main/core/models/testing/scripted-server';
import { conversation, openApp, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();

/** Paragraphs after the marker: the stream is still going, block by block, when the marker is tagged. */
const TAIL = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of the tail, long enough to take the stream a while longer to send in full.`);
const ANSWER = ['## Plan', 'First I read **the tests**, then `src/app.ts`.', '- one\n- two', '```ts\nconst a = 1;\n\nconst b = 2;\n```', 'Marker paragraph first.', ...TAIL, 'END-OF-ANSWER'].join('\n\n');
const LOOSE = ['Marker paragraph second.', ...TAIL, '- a\n\n- b', 'END-OF-ANSWER'].join('\n\n');

/**
 * `text` streamed at `pace`, held just after its marker paragraph until `release()`: the marker is
 * tagged while the answer surely still streams, however slowly the machine shows it.
 */
function heldAfterMarker(text: string, pace: { chunkChars: number; chunksPerSecond: number }): { step: { text: string; pace: ScriptPace }; release: () => void } {
  const { promise, resolve } = Promise.withResolvers<void>();
  const marker = /Marker paragraph \w+\./.exec(text)!;
  return { step: { text, pace: { ...pace, holdAt: { chars: marker.index + marker[0].length, until: promise } } }, release: () => resolve() };
}

/** Sends, tags the marker paragraph as soon as it is shown, waits until the answer is rendered whole; whether the tagged element is still the one shown. */
async function markerSurvives(page: Page, prompt: string, release: () => void): Promise<boolean> {
  await sendMessage(page, prompt);
  const log = conversation(page);
  const marker = log.locator('.msg-assistant p', { hasText: `Marker paragraph ${prompt}.` });
  await marker.waitFor({ timeout: 60_000 });
  await marker.evaluate((el, tag) => el.setAttribute('data-probe', tag), prompt);
  // Tagged while the answer still streams (else the test would prove nothing).
  expect(await log.getByText('END-OF-ANSWER').count()).toBe(prompt === 'first' ? 0 : 1);
  release();
  await expect.poll(() => log.getByText('END-OF-ANSWER').count(), { timeout: 60_000 }).toBe(prompt === 'first' ? 1 : 2);
  // The whole rendering has come once the answer's Markdown is no longer busy.
  await expect.poll(() => log.locator('.msg-assistant .markdown').last().getAttribute('aria-busy'), { timeout: 60_000 }).toBeNull();
  return (await log.locator(`[data-probe="${prompt}"]`).count()) === 1;
}

describe('a streamed answer', () => {
  it('keeps the blocks it was shown in when the whole says the same, and shows the whole when it does not', { timeout: 300_000 }, async () => {
    const pace = { chunkChars: 12, chunksPerSecond: 60 };
    const [first, second] = [heldAfterMarker(ANSWER, pace), heldAfterMarker(LOOSE, pace)];
    const serve = await e2e.serve({ script: [first.step, second.step] });
    const page = await openApp(e2e.browser, serve.url);
    expect(await markerSurvives(page, 'first', first.release)).toBe(true);
    expect(await markerSurvives(page, 'second', second.release)).toBe(false);
    // The loose list is one list, as the whole renders it.
    await expect.poll(() => conversation(page).locator('.msg-assistant').last().locator('ul').count()).toBe(1);
  });
});

/** The answer's rendered HTML, whatever it is shown in (blocks while streamed, parts when rendered whole): its parts' contents joined. */
function shownHtml(page: Page, index: number): Promise<string> {
  return conversation(page)
    .locator('.msg-assistant .markdown')
    .nth(index)
    .evaluate((el) => [...el.children].map((part) => part.innerHTML).join('').replace(/>\s+</g, '><').trim());
}

/** Longer than the page renders at once (LIMITS.syncChars): the worker decides whether the blocks stay. */
const LONG_TAIL = Array.from({ length: 30 }, (_, i) => `Long paragraph ${i}, with *emphasis* and \`src/app.ts\`, long enough that the whole answer is rendered in the worker.`);
const LONG_ANSWER = ['## Long plan', '- one\n- two', '```ts\nconst a = 1;\n```', 'Marker paragraph third.', ...LONG_TAIL, 'END-OF-ANSWER'].join('\n\n');
const LONG_LOOSE = ['Marker paragraph fourth.', ...LONG_TAIL, '- a\n\n- b', 'END-OF-ANSWER'].join('\n\n');

describe('the caret', () => {
  it('follows the last block while the answer streams, and is gone once the answer ends', async () => {
    // The answer's first blocks come, then the stream waits (until Stop): the caret is looked at while it surely streams.
    const serve = await e2e.serve({ script: [{ hang: true, text: '## Plan\n\nFirst block.\n\nSecond block' }] });
    const page = await openApp(e2e.browser, serve.url);
    await sendMessage(page, 'Go');
    const log = conversation(page);
    const streaming = log.locator('.msg-assistant.streaming .markdown');
    await streaming.getByText('Second block').waitFor({ timeout: 60_000 });
    const caret = (): Promise<string> => streaming.evaluate((el) => (el.lastElementChild ? getComputedStyle(el.lastElementChild, '::after').content : 'none'));
    expect(await caret()).not.toBe('none');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => log.locator('.msg-assistant.streaming').count(), { timeout: 60_000 }).toBe(0);
    await page.context().close();
  });
});

describe('a long streamed answer', () => {
  it('keeps its blocks when the worker finds the whole says the same, shows the whole when not, and ends as a one-shot rendering of the same text shows it', { timeout: 300_000 }, async () => {
    const pace = { chunkChars: 40, chunksPerSecond: 60 };
    const held = [heldAfterMarker(LONG_ANSWER, pace), heldAfterMarker(LONG_LOOSE, pace)];
    const serve = await e2e.serve({ script: held.map((h) => h.step) });
    const page = await openApp(e2e.browser, serve.url);
    const log = conversation(page);
    for (const [i, prompt, kept] of [
      [0, 'third', true],
      [1, 'fourth', false],
    ] as const) {
      await sendMessage(page, prompt);
      const marker = log.locator('.msg-assistant p', { hasText: `Marker paragraph ${prompt}.` });
      await marker.waitFor({ timeout: 60_000 });
      await marker.evaluate((el, tag) => el.setAttribute('data-probe', tag), prompt);
      expect(await log.getByText('END-OF-ANSWER').count()).toBe(i);
      held[i]!.release();
      await expect.poll(() => log.getByText('END-OF-ANSWER').count(), { timeout: 60_000 }).toBe(i + 1);
      await expect.poll(() => log.locator('.msg-assistant .markdown').nth(i).getAttribute('aria-busy'), { timeout: 60_000 }).toBeNull();
      expect(await log.locator(`[data-probe="${prompt}"]`).count()).toBe(kept ? 1 : 0);
      // The probe is the test's, not the answer's.
      if (kept) await log.locator(`[data-probe="${prompt}"]`).evaluate((el) => el.removeAttribute('data-probe'));
    }
    await expect.poll(() => log.locator('.msg-assistant').last().locator('ul').count()).toBe(1);
    const streamed = [await shownHtml(page, 0), await shownHtml(page, 1)];
    // The same thread opened again renders each answer whole, at once: the same HTML.
    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    const opened = conversation(page);
    if ((await opened.locator('.msg-assistant').count()) === 0) await page.locator('.thread-item .thread-select').first().click();
    // Both answers shown first: no busy Markdown in a page that has none yet proves nothing.
    await expect.poll(() => opened.locator('.msg-assistant .markdown').count(), { timeout: 60_000 }).toBe(2);
    await expect.poll(() => opened.locator('.msg-assistant .markdown[aria-busy]').count(), { timeout: 60_000 }).toBe(0);
    expect(await shownHtml(page, 0)).toBe(streamed[0]);
    expect(await shownHtml(page, 1)).toBe(streamed[1]);
    expect(streamed[0]).toContain('Long paragraph 29');
    await page.context().close();
  });
});
