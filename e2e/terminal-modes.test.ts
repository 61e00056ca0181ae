// The Terminal region and approval modes in a browser: `deepdesk serve` + headless Chromium +
// the scripted model. Each agent command runs in a pty of its own, shown in a view of its own.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { conversation, launchBrowser, openApp, repo, screenshot, sendMessage, startServe, type ServeHandle } from './harness';

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

const ALLOW_COMMANDS = { rules: [{ tools: ['execute'], decision: 'allow' }] };
const terminal = (page: Page) => page.getByRole('region', { name: 'Terminal' });
/** The readable rows of the terminal shown (xterm's DOM renderer). */
const terminalText = (page: Page) => terminal(page).locator('.xterm-rows').innerText();


describe('the Terminal region', () => {
  it('shows an agent command in a view of its own, as typed, with its output and no helper text', async () => {
    serve = await startServe({ settings: ALLOW_COMMANDS, script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo view-$((6*7))' } }] }, { text: 'Ran it.' }] });
    const page = await openApp(browser, serve.url);
    await expect.poll(() => terminal(page).innerText(), { timeout: 60_000 }).toMatch(/Sandboxed|Not sandboxed/);
    await sendMessage(page, 'Run something');
    await conversation(page).getByText('Ran it.').waitFor({ timeout: 60_000 });
    // Polled to its last line: the terminal's stream may end a moment after the conversation's.
    await expect.poll(() => terminalText(page), { timeout: 60_000 }).toContain('[exit code 0]');
    const text = await terminalText(page);
    expect(text).toContain('view-42');
    expect(text).toContain('$ echo view-$((6*7))');
    expect(text).toContain('[exit code 0]');
    expect(await terminal(page).innerText()).not.toContain('__deepdesk');
    expect(await terminal(page).getByRole('tab', { selected: true }).innerText()).toContain('$ echo view-$((6*7))');
    await screenshot(page, 'terminal-command-view');
    // The person's own shell is a tab of its own, outside the sandbox.
    await terminal(page).getByRole('tab', { name: /Your shell/ }).click();
    await expect.poll(() => terminalText(page), { timeout: 60_000 }).not.toContain('view-42');
    await page.context().close();
  });

  it('the person types into a running command that reads a line', async () => {
    serve = await startServe({
      settings: ALLOW_COMMANDS,
      script: [{ toolCalls: [{ name: 'execute', args: { command: `read -p 'Name? ' n; echo "hi $n"` } }] }, { text: 'Greeted.' }],
    });
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Ask my name');
    await expect.poll(() => terminalText(page), { timeout: 60_000 }).toMatch(/^Name\? /m);
    await terminal(page).locator('.xterm').click();
    await page.keyboard.type('Ada');
    await page.keyboard.press('Enter');
    await conversation(page).getByText('Greeted.').waitFor({ timeout: 60_000 });
    expect(await conversation(page).innerText()).toContain('hi Ada');
    // The terminal's stream is not the conversation's: its last bytes may come a moment later.
    await expect.poll(() => terminalText(page), { timeout: 60_000 }).toContain('hi Ada');
    await screenshot(page, 'terminal-typed-into-command');
    await page.context().close();
  });

  it('a program left open in the person\'s shell does not block the agent\'s command', async () => {
    serve = await startServe({ settings: ALLOW_COMMANDS, script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo agent-$((5*5))' } }] }, { text: 'Agent done.' }] });
    const page = await openApp(browser, serve.url);
    // The terminal starts collapsed; the person opens it to use their shell.
    await page.getByRole('button', { name: 'Expand Terminal' }).click();
    await terminal(page).getByRole('tab', { name: /Your shell/ }).click();
    await expect.poll(() => terminalText(page), { timeout: 60_000 }).toMatch(/\S/);
    await terminal(page).locator('.xterm').click();
    await page.keyboard.type('cat');
    await page.keyboard.press('Enter');
    await page.keyboard.type('half a line');
    await sendMessage(page, 'Run it');
    await conversation(page).getByText('Agent done.').waitFor({ timeout: 60_000 });
    expect(await conversation(page).innerText()).toContain('agent-25');
    await page.context().close();
  });
});

describe('approval modes', () => {
  it('plan refuses a write without asking, and the mode survives a reload', async () => {
    serve = await startServe({ script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/planned.txt', content: 'no\n' } }] }, { text: 'Here is my plan.' }] });
    const page = await openApp(browser, serve.url);
    const mode = page.getByRole('combobox', { name: 'Mode' });
    await expect.poll(() => mode.isEnabled(), { timeout: 60_000 }).toBe(true);
    expect(await mode.inputValue()).toBe('ask');
    await mode.selectOption('plan');
    await sendMessage(page, 'Change the file');
    await conversation(page).getByText('Here is my plan.').waitFor({ timeout: 60_000 });
    expect(await conversation(page).innerText()).toContain('plan mode is read-only; ask the user to switch modes to make changes');
    expect(existsSync(join(serve.folder, 'planned.txt'))).toBe(false);
    expect(await page.getByRole('dialog', { name: 'Approve tool call' }).count()).toBe(0);
    const system = String(serve.model.requests[0]!.messages[0]!.content);
    expect(system).toContain('Plan mode');
    await page.reload();
    await expect.poll(() => page.getByRole('combobox', { name: 'Mode' }).inputValue(), { timeout: 60_000 }).toBe('plan');
    await screenshot(page, 'mode-plan');
    await page.context().close();
  });

  it('the approval of a `sandbox: false` command says it runs outside the sandbox and shows the reason', async () => {
    serve = await startServe({
      settings: ALLOW_COMMANDS,
      script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo outside', sandbox: false, reason: 'needs the network to fetch deps' } }] }, { text: 'ok' }],
    });
    const page = await openApp(browser, serve.url);
    await sendMessage(page, 'Run outside');
    const approval = page.getByRole('dialog', { name: 'Approve tool call' }).or(page.getByRole('group', { name: 'Approve tool call' }));
    await approval.waitFor({ timeout: 60_000 });
    const text = await approval.innerText();
    expect(text).toContain('runs outside the sandbox');
    expect(text).toContain('needs the network to fetch deps');
    await screenshot(page, 'approval-outside-sandbox');
    await approval.getByRole('button', { name: 'Reject' }).click();
    await conversation(page).getByText('ok', { exact: true }).waitFor({ timeout: 60_000 });
    await page.context().close();
  });

  it('offers the choice of mode the first time a folder is opened, without blocking, and not again once chosen', async () => {
    // Opened once already (harness): the offer waits behind its button (e2e/window-iii-layout.test.ts: it opens by itself the first time).
    serve = await startServe();
    const page = await openApp(browser, serve.url);
    const offer = page.getByRole('button', { name: 'Show mode choices for this new folder' });
    await offer.waitFor({ timeout: 60_000 });
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('still usable');
    await offer.click();
    const chooser = page.getByRole('group', { name: /How much may the agent do on its own/ });
    await chooser.waitFor({ timeout: 60_000 });
    await screenshot(page, 'mode-chooser');
    await expect.poll(() => terminal(page).innerText(), { timeout: 60_000 }).toMatch(/Sandboxed|Not sandboxed/);
    const sandboxed = (await terminal(page).innerText()).includes('Not sandboxed') === false;
    if (sandboxed) expect(await chooser.getByRole('button', { name: 'auto', exact: true }).isDisabled()).toBe(false);
    else expect(await chooser.getByRole('button', { name: 'auto', exact: true }).isDisabled()).toBe(true);
    await chooser.getByRole('button', { name: 'edit', exact: true }).click();
    await expect.poll(() => page.getByRole('combobox', { name: 'Mode' }).inputValue(), { timeout: 60_000 }).toBe('edit');
    await expect.poll(() => chooser.count(), { timeout: 60_000 }).toBe(0);
    expect(await offer.count()).toBe(0);
    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await expect.poll(() => page.getByRole('combobox', { name: 'Mode' }).inputValue(), { timeout: 60_000 }).toBe('edit');
    expect(await page.getByRole('button', { name: 'Show mode choices for this new folder' }).count()).toBe(0);
    await page.context().close();
  });

  it('without a sandbox: says so once per folder, and auto cannot be chosen', async () => {
    serve = await startServe();
    const page = await openApp(browser, serve.url);
    await expect.poll(() => terminal(page).innerText(), { timeout: 60_000 }).toMatch(/Sandboxed|Not sandboxed/);
    if (!(await terminal(page).innerText()).includes('Not sandboxed')) return; // this machine has a sandbox
    await terminal(page).getByText('No sandbox on this machine').waitFor({ timeout: 60_000 });
    const auto = page.getByRole('combobox', { name: 'Mode' }).locator('option[value="auto"]');
    expect(await auto.isDisabled()).toBe(true);
    await page.reload();
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    await expect.poll(() => terminal(page).innerText(), { timeout: 60_000 }).toContain('Not sandboxed');
    expect(await page.getByText('No sandbox on this machine').count()).toBe(0);
    expect(readFileSync(join(serve.dataDir, 'folder-modes.json'), 'utf8')).toContain('"sandboxNoticeShown": true');
    await page.context().close();
  });
});
