// Issue 10 (1, 2) and issue 9 §6 as a person meets them in the browser: an edited command
// runs and shows as edited (also after a reload) and reaches the model as edited; a write
// that cannot run is refused without asking; a message sent during a run is queued, can be
// cancelled, and is delivered when the current step ends.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, launchBrowser, openApp, repo, screenshot, sendMessage, startServe, toolCard, type ServeHandle } from './harness';

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


const wireArgs = (messages: Array<{ tool_calls?: unknown }>, id: string) =>
  JSON.parse(messages.flatMap((m) => (m.tool_calls as Array<{ id: string; function: { arguments: string } }> | undefined) ?? []).find((c) => c.id === id)!.function.arguments) as unknown;

describe('honest approvals in the browser', () => {
  it('an edited command runs, the card shows it as edited (also after a reload), and the model gets it', async () => {
    serve = await startServe({
      script: [{ toolCalls: [{ id: 'cmd', name: 'execute', args: { command: 'echo proposed-by-agent > made.txt' } }] }, { text: 'Ran your version.' }],
    });
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Make a file');
    await approval(page).waitFor({ timeout: 60_000 });
    await approval(page).getByRole('button', { name: 'Edit' }).click();
    const editor = approval(page).getByRole('textbox', { name: /command|arguments/i });
    await editor.fill('echo edited-by-person > made.txt');
    await approval(page).getByRole('button', { name: 'Approve' }).click();
    await conversation(page).getByText('Ran your version.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(serve.folder, 'made.txt'), 'utf8')).toBe('edited-by-person\n');

    const card = toolCard(page, 'execute');
    await expect.poll(() => card.innerText()).toContain('edited-by-person');
    await expect.poll(() => card.innerText()).toMatch(/Edited/);
    // The card's summary is the command that ran; what the agent proposed is only mentioned as such.
    await expect.poll(async () => (await card.innerText()).split('\n')[0]).toBe('Run echo edited-by-person > made.txt');
    const next = serve.model.requests[1]!;
    expect(wireArgs(next.messages, 'cmd')).toEqual({ command: 'echo edited-by-person > made.txt' });
    expect(String(next.messages.find((m) => m.tool_call_id === 'cmd')!.content)).toMatch(/^Note: the person edited this call before it ran/);
    await screenshot(page, 'honest-edited-card');

    await page.reload();
    await conversation(page).getByText('Ran your version.').waitFor({ timeout: 60_000 });
    const reloaded = toolCard(page, 'execute');
    await expect.poll(() => reloaded.innerText()).toMatch(/Edited/);
    await expect.poll(() => reloaded.innerText()).toContain('edited-by-person');
    await page.context().close();
  });

  it('a write to an existing file the agent has not read is refused without asking the person', async () => {
    serve = await startServe({
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/existing.txt', content: 'overwritten' } }] }, { text: 'I need to read it first.' }],
    });
    writeFileSync(join(serve.folder, 'existing.txt'), 'precious\n');
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Overwrite existing.txt');
    await conversation(page).getByText('I need to read it first.').waitFor({ timeout: 60_000 });
    expect(await approval(page).count()).toBe(0);
    const card = toolCard(page, 'write_file');
    await card.getByRole('button', { name: 'Show details' }).click();
    // The details open on the re-render after the click: wait for them.
    await expect.poll(() => card.innerText(), { timeout: 60_000 }).toContain('exists but has not been read');
    expect(readFileSync(join(serve.folder, 'existing.txt'), 'utf8')).toBe('precious\n');
    await page.context().close();
  });
});

describe('messages sent while the agent works', () => {
  it('are shown queued with Send now and Cancel; a cancelled one never arrives, the other arrives after the step', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated: ScriptStep = async () => {
      await gate;
      return { toolCalls: [{ name: 'ls', args: { path: '/' } }] };
    };
    serve = await startServe({ script: [gated, { text: 'Answered everything.' }] });
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Start working');
    await expect.poll(() => serve!.model.requests.length, { timeout: 60_000 }).toBe(1);
    await page.getByRole('button', { name: 'Stop' }).waitFor();

    await sendMessage(page, 'Please cancel me');
    const cancel = conversation(page).getByRole('button', { name: 'Cancel queued message' });
    await cancel.waitFor({ timeout: 60_000 });
    expect(await conversation(page).getByRole('button', { name: 'Send now' }).count()).toBe(1);
    await screenshot(page, 'honest-queued');
    await cancel.click();
    await expect.poll(() => cancel.count(), { timeout: 60_000 }).toBe(0);

    await sendMessage(page, 'Also look at the tests');
    await conversation(page).getByRole('button', { name: 'Send now' }).waitFor({ timeout: 60_000 });
    expect(await conversation(page).getByRole('listitem', { name: 'Queued message' }).innerText()).toContain('Also look at the tests');

    release();
    await conversation(page).getByText('Answered everything.').waitFor({ timeout: 60_000 });
    expect(await conversation(page).getByRole('button', { name: 'Send now' }).count()).toBe(0);
    const second = serve.model.requests[1]!;
    expect(second.messages.slice(-2).map((m) => m.role)).toEqual(['tool', 'user']);
    expect(second.messages.at(-1)).toMatchObject({ role: 'user', content: 'Also look at the tests' });
    expect(JSON.stringify(serve.model.requests)).not.toContain('Please cancel me');
    expect(serve.model.requests).toHaveLength(2);
    expect(await conversation(page).innerText()).toContain('Also look at the tests');
    await page.context().close();
  });
});

describe('what the window says after a restart, and about flags', () => {
  it('the context meter shows the thread\'s last known usage as soon as it opens after a restart', async () => {
    const first = await startServe({ script: [{ text: 'Counted.', usage: { promptTokens: 12_345, completionTokens: 5 } }] });
    // Stopped for good (its own home too) after the second one, which the afterEach stops.
    onTestFinished(() => first.stop());
    const page = await openApp(browser, first.url);
    await sendMessage(page, 'Count tokens');
    await conversation(page).getByText('Counted.').waitFor({ timeout: 60_000 });
    const meter = page.locator('.context-meter .meter-text');
    await expect.poll(() => meter.innerText()).toMatch(/^12k \//);
    await page.context().close();
    // Restart on the same data (stop only the process: the folders stay for the second one).
    await first.stop({ keepData: true });

    serve = await startServe({ folder: first.folder, dataDir: first.dataDir });
    const again = await openApp(browser, serve.url);
    await conversation(again).getByText('Counted.').waitFor({ timeout: 60_000 });
    // The thread's text and its usage arrive by separate calls: poll, never read once.
    await expect.poll(() => again.locator('.context-meter .meter-text').innerText()).toMatch(/^12k \//);
    await expect.poll(() => again.getByRole('meter', { name: 'Context used' }).getAttribute('aria-valuenow')).toBe('12345');
    await again.context().close();
  });

  it('settings set by a flag say so, cannot be edited, and saving keeps them out of settings.json', async () => {
    serve = await startServe({ extraArgs: ['--context-window', '9000'] });
    const page = await openApp(browser, serve.url);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    // The dialog opens on 'Loading settings…' and fills in when settings.get answers.
    await expect.poll(() => dialog.innerText()).toContain('Set by --model for this session');
    expect(await dialog.innerText()).toContain('Set by --base-url for this session');
    expect(await dialog.innerText()).toContain('Set by --context-window for this session');
    expect(await dialog.getByLabel('Model', { exact: true }).isDisabled()).toBe(true);
    await dialog.getByRole('combobox', { name: 'Theme' }).selectOption('light');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => existsSync(join(serve!.dataDir, 'settings.json'))).toBe(true);
    const saved = JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    // Only what the person changed is saved (issue 26): never the flags' values.
    expect(saved).toEqual({ theme: 'light' });
    await page.context().close();
  });
});
