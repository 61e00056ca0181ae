// Issue 20 (SPEC §12): the media input of an OpenAI-compatible model is overridable per model
// in Settings. The `Media input` group shows the provider's default (images); unchecking
// Images and saving makes the next read_file of a PNG reach the model as the §12 notice, not
// the image; `Use provider default` brings the default back.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { makePng } from '../src-main/core/media/testing/fixtures';
import type { RecordedRequest } from '../src-main/core/models/testing/scripted-server';
import { openApp, screenshot, sendMessage, useE2ESession } from './harness';

const session = useE2ESession();
const pages: Page[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const settingsDialog = (page: Page): Locator => page.getByRole('dialog', { name: 'Settings' });
const storedSettings = (dataDir: string): Record<string, unknown> => JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
/** The text of the last tool result a request carried. */
const lastToolText = (request: RecordedRequest): string => {
  const content = request.messages.filter((m) => m.role === 'tool').at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
};

async function openSettings(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog(page);
  await dialog.waitFor();
  return dialog.getByRole('group', { name: 'Media input' });
}

describe('media input per model', () => {
  it('unchecking Images makes the next read_file of a PNG come back as the §12 notice; Use provider default restores images', { timeout: 90_000 }, async () => {
    const readPng = { toolCalls: [{ name: 'read_file', args: { file_path: '/pic.png' } }] };
    const serve = await session.serve({ script: [readPng, { text: 'seen' }, readPng, { text: 'seen again' }] });
    const png = makePng(16, 16);
    writeFileSync(join(serve.folder, 'pic.png'), png);
    const page = await openApp(session.browser, serve.url, { width: 1024, height: 700 });
    pages.push(page);

    let group = await openSettings(page);
    const images = group.getByRole('checkbox', { name: 'Images' });
    // The provider's default: an OpenAI-compatible model takes images, nothing else.
    await poll(() => images.isChecked()).toBe(true);
    for (const kind of ['Audio', 'Video', 'PDF documents']) expect(await group.getByRole('checkbox', { name: kind }).isChecked()).toBe(false);
    expect(await group.getByRole('button', { name: 'Use provider default' }).isDisabled()).toBe(true);

    await images.uncheck();
    await poll(() => group.getByRole('button', { name: 'Use provider default' }).isDisabled()).toBe(false);
    await screenshot(page, 'settings-media-input-1024x700');
    await settingsDialog(page).getByRole('button', { name: 'Save settings' }).click();
    await poll(() => settingsDialog(page).count()).toBe(0);
    expect(storedSettings(serve.dataDir)).toMatchObject({ mediaInput: { 'openai-compatible:scripted-model': [] } });

    await sendMessage(page, 'look at pic.png');
    await poll(() => serve.model.requests.length).toBe(2);
    const withoutImages = serve.model.requests[1]!;
    expect(lastToolText(withoutImages)).toMatch(/^\[image file \/pic\.png, \d+ B: this model does not take image input\]$/m);
    expect(JSON.stringify(withoutImages.messages)).not.toContain(png.toString('base64'));
    await poll(() => page.getByRole('log', { name: 'Conversation' }).innerText()).toContain('seen');

    // Back to the default: the next read sends the image.
    group = await openSettings(page);
    await poll(() => group.getByRole('checkbox', { name: 'Images' }).isChecked()).toBe(false);
    await group.getByRole('button', { name: 'Use provider default' }).click();
    await poll(() => group.getByRole('checkbox', { name: 'Images' }).isChecked()).toBe(true);
    await settingsDialog(page).getByRole('button', { name: 'Save settings' }).click();
    await poll(() => settingsDialog(page).count()).toBe(0);
    expect(storedSettings(serve.dataDir)).toMatchObject({ mediaInput: {} });

    await sendMessage(page, 'look again');
    await poll(() => serve.model.requests.length).toBe(4);
    expect(JSON.stringify(serve.model.requests[3]!.messages)).toContain(png.toString('base64'));
  });
});
