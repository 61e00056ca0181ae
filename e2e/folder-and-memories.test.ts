// Issue 13's folder-side points as a person meets them: the file tree dims ignored files
// and marks what the agent changed, Markdown renders in the viewer, @-mentions attach
// files, memories explain themselves and search without minding case, and the settings
// list the provider's models.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText } from '../src-main/core/models/testing/scripted-server';
import { approval, launchBrowser, openApp, repo, screenshot, startServe, type ServeHandle } from './harness';

let browser: Browser;
let serve: ServeHandle | undefined;

beforeAll(async () => {
  if (!existsSync(join(repo, 'out/renderer/index.html'))) throw new Error('run `npm run build` before the end-to-end tests (npm test does)');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
});

const files = (page: Page) => page.getByRole('region', { name: 'Files' });

describe('folder, viewer, mentions, memories and settings in the browser', () => {
  it('dims ignored files and marks the files the agent changed', async () => {
    serve = await startServe({
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/notes.md', content: '# Notes\n' } }] }, { text: 'Wrote it.' }],
    });
    writeFileSync(join(serve.folder, '.gitignore'), 'dist/\n');
    mkdirSync(join(serve.folder, 'dist'));
    writeFileSync(join(serve.folder, 'app.ts'), 'export {};\n');
    const page = await openApp(browser, serve.url);
    const dist = files(page).getByRole('treeitem', { name: 'dist' });
    await dist.waitFor({ timeout: 60_000 });
    expect(await dist.getAttribute('class')).toContain('ignored');
    expect(await files(page).getByRole('treeitem', { name: 'app.ts' }).getAttribute('class')).not.toContain('ignored');

    await page.getByRole('textbox', { name: 'Message' }).fill('Write notes');
    await page.getByRole('button', { name: 'Send' }).click();
    await approval(page).getByRole('button', { name: 'Approve' }).click();
    const notes = files(page).getByRole('treeitem', { name: /notes\.md/ });
    await expect.poll(async () => (await notes.count()) > 0 && (await notes.getAttribute('class'))?.includes('agent-changed'), { timeout: 60_000 }).toBe(true);
    expect(await notes.getByLabel('changed by the agent').count()).toBe(1);
    await screenshot(page, 'tree-ignored-and-changed');
    await page.context().close();
  });

  it('renders Markdown in the viewer, with a source toggle', async () => {
    serve = await startServe();
    writeFileSync(join(serve.folder, 'README.md'), '# Project title\n\nSome *emphasis*.\n');
    const page = await openApp(browser, serve.url);
    await files(page).getByRole('treeitem', { name: 'README.md' }).click();
    const viewer = page.getByRole('region', { name: 'File viewer' });
    await viewer.getByRole('heading', { name: 'Project title' }).waitFor({ timeout: 60_000 });
    await viewer.getByRole('button', { name: 'Show source' }).click();
    await expect.poll(() => viewer.innerText()).toContain('# Project title');
    expect(await viewer.getByRole('heading', { name: 'Project title' }).count()).toBe(0);
    await page.context().close();
  });

  it('an @-mention attaches the file as a chip, and the model receives its text', async () => {
    serve = await startServe({ script: [{ text: 'It exports a constant.' }] });
    mkdirSync(join(serve.folder, 'src'));
    writeFileSync(join(serve.folder, 'src/answer.ts'), 'export const answer = 42;\n');
    const page = await openApp(browser, serve.url);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.pressSequentially('What does @answ');
    await page.getByRole('listbox', { name: 'Files to mention' }).getByRole('option', { name: /answer\.ts/ }).waitFor({ timeout: 60_000 });
    await box.press('Enter');
    await box.pressSequentially('do?');
    const chips = page.getByRole('list', { name: 'Attached files' });
    await expect.poll(() => chips.innerText()).toContain('answer.ts');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('log', { name: 'Conversation' }).getByText('It exports a constant.').waitFor({ timeout: 60_000 });
    const sent = lastUserText(serve.model.requests[0]!);
    expect(sent).toContain('What does @/src/answer.ts do?');
    expect(sent).toContain('<attached_file path="/src/answer.ts">\nexport const answer = 42;\n</attached_file>');
    // The conversation shows the message and a chip, not the file's text.
    const log = page.getByRole('log', { name: 'Conversation' });
    expect(await log.innerText()).not.toContain('export const answer = 42;');
    await log.getByRole('button', { name: 'Show attached file /src/answer.ts' }).click();
    await expect.poll(() => log.innerText()).toContain('export const answer = 42;');
    await page.context().close();
  });

  it('memories explain themselves, say who wrote them and when, and search ignores case', async () => {
    serve = await startServe();
    for (const [path, text] of [['/memories/tax.md', 'Prices include VAT at 21%.\n'], ['/memories/style.md', 'Use tabs.\n']] as const) {
      execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'memories', 'write', path, '--folder', serve.folder, '--data-dir', serve.dataDir], { input: text });
    }
    const page = await openApp(browser, serve.url);
    const memories = page.getByRole('region', { name: 'Memories' });
    await memories.waitFor();
    expect(await memories.innerText()).toMatch(/This project's memories, and global ones \(\/memories\/global\/\) shared by every project/);
    expect(await memories.innerText()).toContain('/memories/AGENTS.md');
    await expect.poll(() => memories.innerText(), { timeout: 60_000 }).toMatch(/tax\.md[\s\S]*just now · by you/);
    await memories.getByRole('searchbox', { name: 'Search memories' }).fill('vat');
    await expect.poll(() => memories.getByRole('list', { name: 'Memory files' }).innerText(), { timeout: 60_000 }).toContain('Prices include VAT');
    expect(await memories.getByRole('list', { name: 'Memory files' }).innerText()).not.toContain('style.md');
    await screenshot(page, 'memories-search');
    await page.context().close();
  });

  it('settings list the provider\'s models once it answers, without a provider: prefix', async () => {
    serve = await startServe({ withModel: false });
    const page = await openApp(browser, serve.url);
    await page.getByRole('button', { name: 'No model configured' }).click();
    await page.getByLabel('Provider').selectOption('openai-compatible');
    await page.getByLabel('Base URL').fill(serve.model.url);
    await expect.poll(() => page.getByRole('status').filter({ hasText: /model/ }).first().innerText(), { timeout: 60_000 }).toMatch(/1 model offered/);
    // A picker (e2e/window-iii-settings.test.ts covers it further); any id can still be typed.
    await page.getByRole('button', { name: 'Show models' }).click();
    expect(await page.getByRole('listbox', { name: 'Models' }).getByRole('option').allInnerTexts()).toEqual(['scripted-model']);
    await page.getByRole('option', { name: 'scripted-model' }).click();
    expect(await page.getByRole('combobox', { name: 'Model' }).inputValue()).toBe('scripted-model');
    await screenshot(page, 'settings-model-list');
    // The provider's full name fits its select.
    const select = page.getByLabel('Provider');
    expect(await select.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await page.context().close();
  });
});
