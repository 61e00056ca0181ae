// The whole loop in a browser, as a person does it: `deepdesk serve` + headless Chromium +
// the scripted model. Screenshots land in test-results/screenshots/.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, launchBrowser, openApp, repo, screenshot, sendMessage, startServe, type ServeHandle } from './harness';

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



describe('deepdesk serve in a browser', () => {
  it('requires the token', async () => {
    serve = await startServe();
    const page = await browser.newPage();
    const response = await page.goto(`${serve.origin}/`);
    expect(response?.status()).toBe(401);
    expect(await page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
    const api = await fetch(`${serve.origin}/ws`, { headers: { Origin: serve.origin } });
    expect(api.status).not.toBe(101);
    expect(api.ok).toBe(false);
    await page.close();
  });

  it('streams an answer into the conversation', async () => {
    serve = await startServe({ script: [{ text: 'Hello! I am **the model**, streaming this answer in several pieces.' }] });
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Say hello');
    await expect.poll(() => conversation(page).innerText(), { timeout: 60_000 }).toContain('streaming this answer in several pieces.');
    expect(await conversation(page).innerText()).toContain('Say hello');
    await screenshot(page, 'chat-answer');
    expect(serve.model.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'Say hello' });
    await page.context().close();
  });

  it('approving a write shows the file in the tree and on disk; rejecting writes nothing', async () => {
    serve = await startServe({
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: '/notes.txt', content: 'one\ntwo\n' } }] },
        { text: 'Wrote the file.' },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/rejected.txt', content: 'nope\n' } }] },
        { text: 'Understood, not writing it.' },
      ],
    });
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Write notes');
    await approval(page).waitFor({ timeout: 60_000 });
    expect(await approval(page).innerText()).toContain('/notes.txt');
    await screenshot(page, 'approval-write');
    await approval(page).getByRole('button', { name: 'Approve' }).click();
    await conversation(page).getByText('Wrote the file.').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(serve.folder, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /notes\.txt/ }).waitFor({ timeout: 60_000 });

    await sendMessage(page, 'Write another');
    await approval(page).waitFor({ timeout: 60_000 });
    await approval(page).getByRole('button', { name: 'Reject' }).click();
    await conversation(page).getByText('Understood, not writing it.').waitFor({ timeout: 60_000 });
    expect(existsSync(join(serve.folder, 'rejected.txt'))).toBe(false);
    const toolResult = serve.model.requests.at(-1)!.messages.filter((m) => m.role === 'tool').at(-1);
    expect(String(toolResult?.content)).toMatch(/^Error: the person rejected/);
    await screenshot(page, 'after-reject');
    await page.context().close();
  });

  it('shows a file changed on disk in the tree and opens it', async () => {
    serve = await startServe();
    writeFileSync(join(serve.folder, 'before.txt'), 'first file\n');
    const page = await openApp(browser, serve.url);
    const files = page.getByRole('region', { name: 'Files' });
    await files.getByRole('treeitem', { name: /before\.txt/ }).waitFor({ timeout: 60_000 });
    writeFileSync(join(serve.folder, 'live.txt'), 'appeared while open\n');
    await files.getByRole('treeitem', { name: /live\.txt/ }).waitFor({ timeout: 60_000 });
    await files.getByRole('treeitem', { name: /live\.txt/ }).click();
    await page.getByText('appeared while open').waitFor({ timeout: 60_000 });
    await screenshot(page, 'file-viewer');
    await page.context().close();
  });

  it('runs an approved command in the Terminal region', async () => {
    serve = await startServe({ script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo terminal-says-$((6*7))' } }] }, { text: 'Ran it.' }] });
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Run something');
    await approval(page).waitFor({ timeout: 60_000 });
    expect(await approval(page).innerText()).toContain('echo terminal-says-$((6*7))');
    await approval(page).getByRole('button', { name: 'Approve' }).click();
    const terminal = page.getByRole('region', { name: 'Terminal' });
    await expect.poll(() => terminal.innerText(), { timeout: 60_000 }).toContain('terminal-says-42');
    await conversation(page).getByText('Ran it.').waitFor({ timeout: 60_000 });
    expect(await conversation(page).innerText()).toContain('[Command succeeded with exit code 0]');
    await screenshot(page, 'terminal');
    await page.context().close();
  });

  it('lists a memory the agent wrote, and edits and deletes it there', async () => {
    serve = await startServe({
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/memories/prefs.md', content: 'Use tabs.\n' } }] }, { text: 'Noted.' }],
    });
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Remember that I use tabs');
    await approval(page).waitFor({ timeout: 60_000 });
    await approval(page).getByRole('button', { name: 'Approve' }).click();
    await conversation(page).getByText('Noted.').waitFor({ timeout: 60_000 });
    const memories = page.getByRole('region', { name: 'Memories' });
    await memories.getByRole('button', { name: /prefs\.md/ }).click({ timeout: 60_000 });
    await memories.getByText('Use tabs.').waitFor();
    await memories.getByRole('button', { name: 'Edit' }).click();
    await memories.getByRole('textbox', { name: 'Memory text' }).fill('Use spaces, four of them.\n');
    await memories.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => memoryText(serve!), { timeout: 60_000 }).toBe('Use spaces, four of them.\n');
    await screenshot(page, 'memories');
    await memories.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => memories.getByRole('button', { name: /prefs\.md/ }).count(), { timeout: 60_000 }).toBe(0);
    expect(memoryText(serve)).toBeNull();
    await page.context().close();
  });

  it('Stop during a long command kills it', async () => {
    const marker = `${400 + Math.floor(Math.random() * 500)}.25`;
    serve = await startServe({ script: [{ toolCalls: [{ name: 'execute', args: { command: `sleep ${marker}` } }] }, { text: 'unused' }] as ScriptStep[] });
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Wait a long time');
    await approval(page).waitFor({ timeout: 60_000 });
    await approval(page).getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => sleeping(marker), { timeout: 60_000 }).toBe(true);
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => sleeping(marker), { timeout: 60_000 }).toBe(false);
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 60_000 });
    await screenshot(page, 'stopped');
    await page.context().close();
  });

  it('shows that history was summarized and opens the archived part', async () => {
    const responder: ScriptStep = (req) => {
      const system = String(req.messages[0]?.content ?? '');
      if (system.includes('You compress the earlier part')) return { text: '## Intent\nRead the big files.\n## Done so far\nRead them.' };
      if (req.messages.some((m) => m.role === 'user' && String(m.content).includes('/conversation_history/'))) return { text: 'All done after summarizing.' };
      const reads = req.messages.filter((m) => m.role === 'tool').length;
      return { toolCalls: [{ name: 'read_file', args: { file_path: `/big${reads % 3}.txt` } }] };
    };
    serve = await startServe({ script: Array.from({ length: 40 }, () => responder), extraArgs: ['--context-window', '6000'] });
    for (let i = 0; i < 3; i++) writeFileSync(join(serve.folder, `big${i}.txt`), `${'lorem ipsum dolor sit amet '.repeat(12)}\n`.repeat(25));
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Please read the big files');
    await conversation(page).getByText('All done after summarizing.').waitFor({ timeout: 60_000 });
    await conversation(page).getByText(/History summarized/).waitFor();
    await conversation(page).getByRole('button', { name: 'Open archived history' }).click();
    const archive = page.getByRole('dialog', { name: /Archived history/ });
    await expect.poll(() => archive.innerText(), { timeout: 60_000 }).toContain('Please read the big files');
    await screenshot(page, 'summarized');
    await page.context().close();
  });

  it('leads to settings when no model is configured, without crashing', async () => {
    serve = await startServe({ withModel: false });
    const page = await openApp(browser, serve.url);
    await expect.poll(() => page.locator('body').innerText(), { timeout: 60_000 }).toMatch(/no model/i);
    await screenshot(page, 'no-model');
    await page.context().close();
  });
});

function memoryText(handle: ServeHandle): string | null {
  try {
    return execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'memories', 'cat', '/memories/prefs.md', '--folder', handle.folder, '--data-dir', handle.dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

function sleeping(marker: string): boolean {
  try {
    return execFileSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}
