// Text the model or the folder controls never leaves the window unusable: in headless Chromium
// against `deepdesk serve` and the scripted model, pathological Markdown (240 KB of `_a`; a
// 10,000-level blockquote with 60,000 nested list markers; a 400 KB `.md` file in the folder)
// ends up shown, as plain text with a note saying why or rendered, a later message is answered
// and shown, and ordinary Markdown renders headings, lists and code. Checked by state only: what
// each case costs the page's main thread (no task over 200 ms) is a row of
// `npm run bench -- --only markdown`.
//
// What the product does with ordinary Markdown on a loaded machine: a text of up to 1,500
// characters is parsed in place (the first parse of a task always is; later ones while the task
// has spent under 16 ms), larger ones in a worker with a 1.5 s deadline, past which the text is
// shown as plain text, saying it took too long. So the ordinary answer here is short, and its
// headings are counted unless the page says it fell back for time.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { lastUserText, type RecordedRequest, type ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();

/** Until the last finished answer includes `marker` and no Markdown is still being rendered. */
async function answerShown(page: Page, marker: string): Promise<void> {
  await page.waitForFunction(
    (m) => {
      const messages = document.querySelectorAll('.msg-assistant:not(.streaming)');
      return (messages[messages.length - 1]?.textContent?.includes(m) ?? false) && document.querySelector('.markdown[aria-busy="true"]') === null;
    },
    marker,
    { timeout: 90_000, polling: 100 },
  );
}

/** Until the file viewer shows `marker` and nothing in it is still being rendered. */
async function viewerShown(page: Page, marker: string): Promise<void> {
  await page.waitForFunction(
    (m) => (document.querySelector('.viewer-body')?.textContent?.includes(m) ?? false) && document.querySelector('.viewer-body [aria-busy="true"]') === null,
    marker,
    { timeout: 90_000, polling: 100 },
  );
}

const ANSWERS: Record<string, string> = {
  underscores: '_a'.repeat(120_000),
  nested: '>'.repeat(10_000) + ' deep\n\n' + '- '.repeat(60_000) + 'x',
  ordinary: [
    '## First heading',
    'Some **bold** text, some _emphasis_ and `src/file.ts`.',
    '- first point\n- second point\n  - nested',
    '```ts\nexport function f(x: number): number {\n  return x * 2;\n}\n```',
    '## Second heading',
    '1. one\n2. two',
    '```sh\nnpm test\n```',
  ].join('\n\n'),
};

describe('pathological Markdown leaves the window usable', () => {
  it('answers and a 400 KB .md file end up shown; a later message is answered; ordinary Markdown renders', { timeout: 240_000 }, async () => {
    const answer = (request: RecordedRequest): ScriptStep => {
      const asked = lastUserText(request).trim();
      const name = asked.replace(/^Show case /, '');
      const text = asked === name ? undefined : ANSWERS[name];
      if (text !== undefined) return { text: `${text}\n\nEND-OF-${name}` };
      if (asked === 'Something else') return { text: 'A **short** answer elsewhere.' };
      // The summaries the app asks for as the thread outgrows the context budget.
      return { text: 'Earlier messages, summarized.' };
    };
    const serve = await e2e.serve({ script: Array.from({ length: 20 }, () => answer) });
    writeFileSync(
      join(serve.folder, 'big.md'),
      ['_a'.repeat(120_000), '*a**a***a'.repeat(7_000), '['.repeat(30_000) + '('.repeat(30_000), '- '.repeat(20_000) + 'x', 'END-OF-FILE'].join('\n\n'),
    );
    const page = await openApp(e2e.browser, serve.url);
    const messages = conversation(page).locator('.msg-assistant');

    // Too large to render unasked: plain text, and the note says so.
    await sendMessage(page, 'Show case underscores');
    await answerShown(page, 'END-OF-underscores');
    expect(await messages.last().getByRole('note').textContent()).toMatch(/plain text.*too large/i);
    // Rendered in the worker or, past its deadline or on its error, plain text that says why.
    await sendMessage(page, 'Show case nested');
    await answerShown(page, 'END-OF-nested');
    const notes = messages.last().getByRole('note');
    if ((await notes.count()) > 0) expect(await notes.textContent()).toMatch(/took too long|could not be rendered/i);

    await sendMessage(page, 'Show case ordinary');
    await answerShown(page, 'END-OF-ordinary');
    const ordinary = messages.last();
    if ((await ordinary.getByRole('note').count()) === 0) {
      // An answer's headings are h3: they start below the thread title's h1.
      expect(await ordinary.locator('h3').allTextContents()).toEqual(['First heading', 'Second heading']);
      expect(await ordinary.locator('li').count()).toBe(5);
      expect(await ordinary.locator('.code-block').count()).toBe(2);
      expect(await ordinary.locator('strong').first().textContent()).toBe('bold');
    } else expect(await ordinary.getByRole('note').textContent()).toMatch(/took too long/i);
    await screenshot(page, 'markdown-budget-answers');

    // Away to another thread, answered there, and back.
    const threads = page.getByRole('region', { name: 'Threads' });
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await sendMessage(page, 'Something else');
    await conversation(page).getByText('A short answer elsewhere.').waitFor({ timeout: 60_000 });
    expect(await conversation(page).locator('strong').textContent()).toBe('short');
    await threads.getByRole('button', { name: /Show case underscores/ }).first().click();
    await answerShown(page, 'END-OF-ordinary');
    expect(await messages.first().getByRole('note').textContent()).toMatch(/too large/i);

    // The 400 KB file: plain text with a way to render it anyway, which ends in a note too.
    const viewer = page.getByRole('region', { name: 'File viewer' });
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: 'big.md' }).click();
    await viewerShown(page, 'END-OF-FILE');
    expect(await viewer.getByRole('note').textContent()).toMatch(/too large/i);
    await viewer.getByRole('button', { name: 'Render Markdown' }).click();
    await expect.poll(() => viewer.getByRole('note').textContent(), { timeout: 90_000 }).toMatch(/took too long|could not be rendered/i);
    await viewerShown(page, 'END-OF-FILE');
    await screenshot(page, 'markdown-budget-viewer');
  });
});
