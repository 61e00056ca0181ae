// Issue 20 (4) as a person meets it in the browser: images and files pasted, dropped or
// picked into the message box go with the message (as content the model takes, else saved
// to the thread's /attachments/ and named); the file viewer shows PDFs and plays audio and video.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makePdf, makePng, makeWav } from '../src-main/core/media/testing/fixtures';
import { conversation, openApp, screenshot, useE2ESession } from './harness';

const session = useE2ESession();

const box = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });
const pending = (page: Page) => page.locator('.message-box').getByRole('list', { name: 'Attached files' });
const viewer = (page: Page) => page.getByRole('region', { name: 'File viewer' });

/** Fires `type` (paste or drop) at the message box with files made in the page from base64. */
async function fireFiles(page: Page, type: 'paste' | 'drop', files: Array<{ name: string; mimeType: string; base64?: string; size?: number }>): Promise<void> {
  await page.evaluate(
    ({ type, files }) => {
      const transfer = new DataTransfer();
      for (const f of files) {
        const bytes = f.base64 !== undefined ? Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0)) : new Uint8Array(f.size ?? 0);
        transfer.items.add(new File([bytes], f.name, { type: f.mimeType }));
      }
      const target = document.querySelector('textarea[aria-label="Message"]')!;
      if (type === 'paste') target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
      else {
        target.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    },
    { type, files },
  );
}

type WireMessage = { role: string; content: unknown };

describe('attachments in the message box', () => {
  it('a pasted image is a chip with a thumbnail, reaches the model as an image, and stays on the sent message after a reload', async () => {
    const serve = await session.serve({ script: [{ text: 'A small red square.' }] });
    const png = makePng(6, 4);
    const page = await openApp(session.browser, serve.url);
    await fireFiles(page, 'paste', [{ name: 'square.png', mimeType: 'image/png', base64: png.toString('base64') }]);
    const chip = pending(page).getByRole('listitem').filter({ hasText: 'square.png' });
    await chip.waitFor({ timeout: 60_000 });
    await expect.poll(() => chip.locator('img.attachment-thumb').getAttribute('src')).toBe(`data:image/png;base64,${png.toString('base64')}`);
    await expect.poll(() => chip.getByRole('button', { name: 'Remove attachment square.png' }).count()).toBe(1);
    await box(page).fill('What is in this picture?');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await conversation(page).getByText('A small red square.').waitFor({ timeout: 60_000 });

    const user = (serve.model.requests[0]!.messages as WireMessage[]).findLast((m) => m.role === 'user')!;
    const parts = user.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(parts.some((p) => p.type === 'image_url' && p.image_url?.url === `data:image/png;base64,${png.toString('base64')}`)).toBe(true);
    expect(parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n')).toContain('What is in this picture?');
    expect(await pending(page).count()).toBe(0);

    const sent = () => conversation(page).getByRole('list', { name: 'Attached files' }).getByRole('listitem').filter({ hasText: 'square.png' });
    await sent().waitFor();
    await screenshot(page, 'media-pasted-image');
    await page.reload();
    await conversation(page).getByText('A small red square.').waitFor({ timeout: 60_000 });
    // After a reload the thumbnail's bytes come from the thread.
    await expect.poll(() => sent().locator('img.attachment-thumb').getAttribute('src'), { timeout: 60_000 }).toBe(`data:image/png;base64,${png.toString('base64')}`);
    await expect.poll(() => conversation(page).getByText('What is in this picture?').count()).toBe(1);
    await conversation(page).getByRole('button', { name: 'Open attachment square.png' }).click();
    await expect.poll(() => viewer(page).getByRole('img', { name: 'square.png' }).getAttribute('src'), { timeout: 60_000 }).toBe(`data:image/png;base64,${png.toString('base64')}`);
    await page.context().close();
  });

  it('a WAV picked with Attach files, for an openai-compatible model, is saved under /attachments/ and named in the message; a removed chip is not sent', async () => {
    const serve = await session.serve({ script: [{ toolCalls: [{ id: 'ls1', name: 'ls', args: { path: '/attachments' } }] }, { text: 'I see the recording.' }] });
    const wav = makeWav(0.5);
    const page = await openApp(session.browser, serve.url);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Attach files' }).click();
    await (await chooser).setFiles([
      { name: 'tone.wav', mimeType: 'audio/wav', buffer: wav },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not this one\n') },
    ]);
    await pending(page).getByRole('listitem').filter({ hasText: 'notes.txt' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Remove attachment notes.txt' }).click();
    await expect.poll(() => pending(page).getByRole('listitem').count()).toBe(1);
    // A message of files alone may be sent.
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await conversation(page).getByText('I see the recording.').waitFor({ timeout: 60_000 });

    const user = (serve.model.requests[0]!.messages as WireMessage[]).findLast((m) => m.role === 'user')!;
    const text = typeof user.content === 'string' ? user.content : JSON.stringify(user.content);
    expect(text).toContain(`[Attached /attachments/tone.wav (audio/wav, ${(wav.length / 1024).toFixed(1)} KB): read it with read_file]`);
    expect(text).not.toContain('notes.txt');
    expect(text).not.toContain('input_audio');
    const listing = (serve.model.requests[1]!.messages as Array<WireMessage & { tool_call_id?: string }>).find((m) => m.tool_call_id === 'ls1')!;
    expect(String(listing.content)).toContain('/attachments/tone.wav');
    await conversation(page).getByRole('list', { name: 'Attached files' }).getByRole('listitem').filter({ hasText: 'tone.wav' }).waitFor();
    // After a reload the saved file opens from the thread's /attachments/ and plays.
    await page.reload();
    await conversation(page).getByText('I see the recording.').waitFor({ timeout: 60_000 });
    await conversation(page).getByRole('button', { name: 'Open attachment tone.wav' }).click();
    const audio = viewer(page).getByLabel('Audio tone.wav');
    await expect.poll(() => audio.evaluate((el) => (el as HTMLAudioElement).readyState), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    await page.context().close();
  });

  it('a dropped file over 10 MB is refused with a message; the typed text and other files stay', async () => {
    const serve = await session.serve();
    const page = await openApp(session.browser, serve.url);
    await box(page).fill('keep this text');
    await fireFiles(page, 'drop', [
      { name: 'small.txt', mimeType: 'text/plain', base64: Buffer.from('hi\n').toString('base64') },
      { name: 'huge.bin', mimeType: 'application/octet-stream', size: 10 * 1024 * 1024 + 1 },
    ]);
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'huge.bin' }).innerText(), { timeout: 60_000 }).toBe('huge.bin is 10,485,761 bytes (10 MB): a file may be at most 10 MB.');
    await expect.poll(() => pending(page).getByRole('listitem').allInnerTexts()).toEqual([expect.stringContaining('small.txt')]);
    expect(await box(page).inputValue()).toBe('keep this text');
    await page.context().close();
  });
});

describe('the file viewer plays and shows media', () => {
  it('shows a PDF page by page, each page drawn on a canvas named Page N of M', async () => {
    const serve = await session.serve();
    writeFileSync(join(serve.folder, 'report.pdf'), makePdf(['First page text', 'Second page text']));
    const page = await openApp(session.browser, serve.url);
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: 'report.pdf' }).click();
    const pages = viewer(page).getByRole('img', { name: /^Page \d of 2$/ });
    await expect.poll(() => pages.count(), { timeout: 60_000 }).toBe(2);
    // Drawn: the canvas has dark pixels (the text), not only white.
    const inked = (n: number) =>
      viewer(page)
        .getByRole('img', { name: `Page ${n} of 2` })
        .evaluate((canvas) => {
          const c = canvas as HTMLCanvasElement;
          if (c.width === 0) return 0;
          const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          let dark = 0;
          for (let i = 0; i < data.length; i += 4) if (data[i + 3]! > 0 && data[i]! < 128) dark++;
          return dark;
        });
    await expect.poll(() => inked(1), { timeout: 60_000 }).toBeGreaterThan(20);
    await expect.poll(() => inked(2), { timeout: 60_000 }).toBeGreaterThan(20);
    await screenshot(page, 'media-pdf-viewer');
    await page.context().close();
  });

  it('plays a WAV with the native audio player', async () => {
    const serve = await session.serve();
    writeFileSync(join(serve.folder, 'tone.wav'), makeWav(0.5));
    const page = await openApp(session.browser, serve.url);
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: 'tone.wav' }).click();
    const audio = viewer(page).getByLabel('Audio tone.wav');
    await audio.waitFor({ timeout: 60_000 });
    expect(await audio.evaluate((el) => (el as HTMLAudioElement).controls && (el as HTMLAudioElement).src.startsWith('blob:'))).toBe(true);
    await expect.poll(() => audio.evaluate((el) => (el as HTMLAudioElement).readyState), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    expect(await audio.evaluate((el) => (el as HTMLAudioElement).duration)).toBeCloseTo(0.5, 1);
    await page.context().close();
  });

  it('plays a short WebM video (made in the page with MediaRecorder) with the native video player', async () => {
    const serve = await session.serve();
    const page = await openApp(session.browser, serve.url);
    const webm = await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 64;
      canvas.height = 48;
      const ctx = canvas.getContext('2d')!;
      const stream = canvas.captureStream(15);
      const recorder = new MediaRecorder(stream, { mimeType: 'video/webm' });
      const chunks: Blob[] = [];
      recorder.ondataavailable = (e) => chunks.push(e.data);
      const stopped = new Promise((r) => (recorder.onstop = r));
      recorder.start(100);
      for (let frame = 0; frame < 12; frame++) {
        ctx.fillStyle = `rgb(${frame * 20}, 80, 160)`;
        ctx.fillRect(0, 0, 64, 48);
        await new Promise((r) => setTimeout(r, 50));
      }
      recorder.stop();
      await stopped;
      const bytes = new Uint8Array(await new Blob(chunks, { type: 'video/webm' }).arrayBuffer());
      let binary = '';
      for (const b of bytes) binary += String.fromCharCode(b);
      return btoa(binary);
    });
    expect(webm.length).toBeGreaterThan(100);
    writeFileSync(join(serve.folder, 'clip.webm'), Buffer.from(webm, 'base64'));
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: 'clip.webm' }).click();
    const video = viewer(page).getByLabel('Video clip.webm');
    await video.waitFor({ timeout: 60_000 });
    await expect.poll(() => video.evaluate((el) => (el as HTMLVideoElement).readyState), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    expect(await video.evaluate((el) => (el as HTMLVideoElement).videoWidth)).toBe(64);
    await page.context().close();
  });
});
