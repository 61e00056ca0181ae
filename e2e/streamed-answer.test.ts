// A streamed answer is shown block by block; when it is complete and its whole rendering
// says the same as its blocks, the blocks stay: the end of a stream builds no new element
// tree and lays out nothing anew (Scale 4: the chat's longest frame). Where the whole renders
// otherwise (a loose list), it is shown as the whole renders it.

import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { conversation, openApp, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();

/** Paragraphs after the marker: the stream is still going, block by block, when the marker is tagged. */
const TAIL = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of the tail, long enough to take the stream a while longer to send in full.`);
const ANSWER = ['## Plan', 'First I read **the tests**, then `src/app.ts`.', '- one\n- two', '```ts\nconst a = 1;\n\nconst b = 2;\n```', 'Marker paragraph first.', ...TAIL, 'END-OF-ANSWER'].join('\n\n');
const LOOSE = ['Marker paragraph second.', ...TAIL, '- a\n\n- b', 'END-OF-ANSWER'].join('\n\n');

/** Sends, tags the marker paragraph as soon as it is shown, waits until the answer is rendered whole; whether the tagged element is still the one shown. */
async function markerSurvives(page: Page, prompt: string): Promise<boolean> {
  await sendMessage(page, prompt);
  const log = conversation(page);
  const marker = log.locator('.msg-assistant p', { hasText: `Marker paragraph ${prompt}.` });
  await marker.waitFor({ timeout: 20_000 });
  await marker.evaluate((el, tag) => el.setAttribute('data-probe', tag), prompt);
  // Tagged while the answer still streams (else the test would prove nothing).
  expect(await log.getByText('END-OF-ANSWER').count()).toBe(prompt === 'first' ? 0 : 1);
  await expect.poll(() => log.getByText('END-OF-ANSWER').count(), { timeout: 20_000 }).toBe(prompt === 'first' ? 1 : 2);
  // The whole rendering has come once the answer's Markdown is no longer busy.
  await expect.poll(() => log.locator('.msg-assistant .markdown').last().getAttribute('aria-busy'), { timeout: 20_000 }).toBeNull();
  return (await log.locator(`[data-probe="${prompt}"]`).count()) === 1;
}

describe('a streamed answer', () => {
  it('keeps the blocks it was shown in when the whole says the same, and shows the whole when it does not', async () => {
    const pace = { chunkChars: 12, chunksPerSecond: 60 };
    const serve = await e2e.serve({ script: [{ text: ANSWER, pace }, { text: LOOSE, pace }] });
    const page = await openApp(e2e.browser, serve.url);
    expect(await markerSurvives(page, 'first')).toBe(true);
    expect(await markerSurvives(page, 'second')).toBe(false);
    // The loose list is one list, as the whole renders it.
    await expect.poll(() => conversation(page).locator('.msg-assistant').last().locator('ul').count()).toBe(1);
  });
});
