// The Agents view (SPEC §16), in headless Chromium against `deepdesk serve` and the scripted
// model: two threads of one folder working at once are listed `Working` in region `Agents`,
// each marked as sharing the folder (there and in the thread list); one that reaches an
// approval reads `Needs you`, is read out, and the page title counts it; its row opens it
// (its approval shows in the conversation); one that finishes while another is open reads
// `Done`. The model's answers are held by the test, so each state is reached when it says.
// WCAG 2.2 AA (axe) with the view's rows shown, in both themes. A thread of
// another folder stays listed once the window moved on, and its row brings the window back
// to its folder with the thread open (it leaves the view, seen). With Settings › Runs at
// once at 1, a second thread waits `Queued`, in the view and in the thread list. A thread
// stopped from a terminal reads `Stopped` and keeps saying so after a reload; an approval
// answered in a terminal says so on its card.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, type ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { describeViolations, seriousViolations, THEMES } from './axe';
import * as pty from 'node-pty';
import { approval, conversation, openApp, repo, sendMessage, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();
/** Model answers held back by the test: let go after it, whatever happened. */
const held: Array<() => void> = [];
const folders: string[] = [];
afterEach(() => {
  for (const release of held.splice(0)) release();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

/** A promise the test resolves when it wants the model to answer. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  held.push(open);
  return { opened, open };
}

const SHARED = 'Another thread is working in this folder';
const agentsRegion = (page: Page): Locator => page.getByRole('region', { name: 'Agents', exact: true });
const agentRow = (page: Page, title: string): Locator => agentsRegion(page).getByRole('listitem').filter({ hasText: title });
/** A row's state word, as shown. */
const stateOf = (row: Locator): Promise<string> => row.locator('.agent-state').innerText();

describe('the Agents view', () => {
  it('lists two threads working at once in one folder, one needing the person, one done; a row opens its thread', async () => {
    const alphaGo = gate();
    const betaGo = gate();
    // Every request: `Alpha task` writes a file (which asks first) once let go, `Beta task` answers once let go.
    const step: ScriptStep = async (request) => {
      const last = request.messages[request.messages.length - 1];
      if (last?.role === 'tool') return { text: 'Alpha wrote it.' };
      if (lastUserText(request).includes('Alpha task')) {
        await alphaGo.opened;
        return { toolCalls: [{ name: 'write_file', args: { file_path: '/alpha.txt', content: 'alpha\n' } }] };
      }
      await betaGo.opened;
      return { text: 'Beta finished.' };
    };
    const serve = await e2e.serve({ script: [step, step, step, step] });
    const page = await openApp(e2e.browser, serve.url);
    const agents = agentsRegion(page);
    await agents.getByText('No agents right now.').waitFor({ timeout: 60_000 });

    // Two threads of the folder, both working.
    await sendMessage(page, 'Alpha task');
    await agentRow(page, 'Alpha task').waitFor({ timeout: 60_000 });
    const threads = page.getByRole('region', { name: 'Threads' });
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Beta task');
    const alpha = agentRow(page, 'Alpha task');
    const beta = agentRow(page, 'Beta task');
    await poll(() => stateOf(alpha)).toBe('Working');
    await poll(() => stateOf(beta)).toBe('Working');
    // Each is marked as sharing the folder, in the Agents view and in the thread list.
    await poll(() => agents.getByTitle(SHARED).count()).toBe(2);
    await poll(() => threads.getByTitle(SHARED).count()).toBe(2);
    expect(await alpha.innerText()).toMatch(/\d+ s/);
    expect(await page.title()).not.toMatch(/need/);

    // Alpha asks for an approval while Beta is open: `Needs you`, read out, counted in the title.
    alphaGo.open();
    await poll(() => stateOf(alpha)).toBe('Needs you');
    await poll(() => page.title()).toMatch(/^\(1 needs you\) .* — Deepdesk$/);
    await poll(() => page.locator('.agents-announcer').innerText()).toBe('“Alpha task” needs you');
    expect(await stateOf(beta)).toBe('Working');

    // Its row opens it, by keyboard (the rows are one Tab stop; arrows move between them): the window shows Alpha, with its approval.
    const stops = () => agents.locator('.agent-select').evaluateAll((els) => els.filter((el) => (el as HTMLElement).tabIndex === 0).length);
    expect(await stops()).toBe(1);
    await beta.getByRole('button').focus();
    await page.keyboard.press('Home');
    await poll(() => alpha.getByRole('button').evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await approval(page).waitFor({ timeout: 60_000 });
    await poll(() => threads.locator('.thread-select[aria-current="true"]').innerText()).toContain('Alpha task');
    await poll(() => alpha.getByRole('button').getAttribute('aria-current')).toBe('true');

    // Beta finishes while Alpha is open: `Done`, and no longer sharing the folder.
    betaGo.open();
    await poll(() => stateOf(beta)).toBe('Done');
    await poll(() => beta.getByTitle(SHARED).count()).toBe(0);
    await poll(() => page.locator('.agents-announcer').innerText()).toBe('“Beta task” is done');
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      expect(describeViolations(await seriousViolations(page)), theme).toBe('');
    }

    // Approved, Alpha goes on; nothing needs the person any more.
    await approval(page).getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Alpha wrote it.').waitFor({ timeout: 60_000 });
    await poll(() => page.title()).not.toMatch(/need/);
    await page.context().close();
  });

  it('a row of another folder brings the window back to that folder, with the thread open', async () => {
    const gammaGo = gate();
    const step: ScriptStep = async () => {
      await gammaGo.opened;
      return { text: 'Gamma finished.' };
    };
    const serve = await e2e.serve({ script: [step] });
    const other = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-agents-other-'));
    folders.push(other);
    writeFileSync(join(other, 'other.txt'), 'other\n');
    const page = await openApp(e2e.browser, serve.url);
    await sendMessage(page, 'Gamma task');
    const gamma = agentRow(page, 'Gamma task');
    await poll(() => stateOf(gamma)).toBe('Working');

    // The window moves to another folder; Gamma goes on in its own, and is still listed.
    await page.getByRole('button', { name: 'Open folder', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Open folder' });
    await dialog.getByRole('textbox', { name: 'Folder path' }).fill(other);
    await dialog.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('region', { name: 'Files' }).getByRole('treeitem', { name: /other\.txt/ }).waitFor({ timeout: 60_000 });
    await poll(() => stateOf(gamma)).toBe('Working');
    expect(await gamma.innerText()).toContain(basename(serve.folder));
    gammaGo.open();
    await poll(() => stateOf(gamma)).toBe('Done');

    // Its row: the first folder again, Gamma open, and seen, so it leaves the view.
    await gamma.getByRole('button').click();
    await conversation(page).getByText('Gamma finished.').waitFor({ timeout: 60_000 });
    await poll(() => page.title()).toBe(`${basename(serve.folder)} — Deepdesk`);
    const threads = page.getByRole('region', { name: 'Threads' });
    await poll(() => threads.locator('.thread-select[aria-current="true"]').innerText()).toContain('Gamma task');
    await poll(() => gamma.count()).toBe(0);
    await page.context().close();
  });

  it('a thread stopped from a terminal reads Stopped, and its conversation keeps the stop after a reload; an approval answered in a terminal says so on its card', async () => {
    const serve = await e2e.serve({
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/from-terminal.txt', content: 'ok\n' } }] }, { text: 'Written.' }, { hang: true, text: 'Thinking it over.' }],
    });
    const deepdesk = (args: string[]) => execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), ...args, '--data-dir', serve.dataDir], { encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: '' } });
    const idOf = (title: string) => (JSON.parse(deepdesk(['agents', '--json'])) as Array<{ threadId: string; title: string }>).find((a) => a.title === title)!.threadId;
    const page = await openApp(e2e.browser, serve.url);
    const log = conversation(page);

    // The write waits for the person; they answer it in a terminal.
    await sendMessage(page, 'Write task');
    await approval(page).waitFor({ timeout: 60_000 });
    const terminal = pty.spawn(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'attach', idOf('Write task').slice(0, 8), '--data-dir', serve.dataDir], {
      cwd: repo,
      env: { ...process.env, OPENAI_API_KEY: '' } as Record<string, string>,
      cols: 160,
      rows: 50,
    });
    let screen = '';
    terminal.onData((d) => (screen += d));
    const exited = new Promise<number>((done) => terminal.onExit(({ exitCode }) => done(exitCode)));
    await poll(() => screen.includes('Approve?')).toBe(true);
    terminal.write('y\r');
    expect(await exited).toBe(0);
    await log.getByText('Written.').waitFor({ timeout: 60_000 });
    const card = toolCard(page, 'write_file');
    await poll(() => card.locator('.tool-status').innerText()).toBe('Done');
    expect(await card.getByText('Approved in a terminal').count()).toBe(1);

    // Another thread works, the window moves on to a third, and a terminal stops the second.
    const threads = page.getByRole('region', { name: 'Threads' });
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await log.getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Hang task');
    const hang = agentRow(page, 'Hang task');
    await poll(() => stateOf(hang)).toBe('Working');
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await log.getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    const id = idOf('Hang task');
    expect(deepdesk(['stop', id.slice(0, 8)])).toBe(`Stopped ${id}.\n`);
    await poll(() => stateOf(hang)).toBe('Stopped');

    // Its row opens it: the stop is in its conversation, and still there after a reload.
    await hang.getByRole('button').click();
    await log.getByText('Stopped.', { exact: true }).waitFor({ timeout: 60_000 });
    await page.reload();
    await threads.locator('.thread-item').filter({ hasText: 'Hang task' }).locator('.thread-select').click();
    await log.getByText('Stopped.', { exact: true }).waitFor({ timeout: 60_000 });
    await page.context().close();
  });

  it('with one run at once, a second thread waits Queued until the first ends', async () => {
    const firstGo = gate();
    const step: ScriptStep = async (request) => {
      if (lastUserText(request).includes('First task')) await firstGo.opened;
      return { text: `${lastUserText(request)} answered.` };
    };
    const serve = await e2e.serve({ script: [step, step], settings: { maxConcurrentRuns: 1 } });
    const page = await openApp(e2e.browser, serve.url);
    // Settings shows the limit as saved.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    expect(await settings.getByRole('textbox', { name: 'Runs at once' }).inputValue()).toBe('1');
    await settings.getByRole('button', { name: 'Cancel', exact: true }).click();

    await sendMessage(page, 'First task');
    await poll(() => stateOf(agentRow(page, 'First task'))).toBe('Working');
    const threads = page.getByRole('region', { name: 'Threads' });
    await threads.getByRole('button', { name: 'New thread' }).press('Enter');
    await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Second task');
    await poll(() => stateOf(agentRow(page, 'Second task'))).toBe('Queued');
    await poll(() => threads.locator('.thread-item').filter({ hasText: 'Second task' }).locator('.thread-queued').innerText()).toBe('Queued');

    firstGo.open();
    await conversation(page).getByText('Second task answered.').waitFor({ timeout: 60_000 });
    await poll(() => stateOf(agentRow(page, 'First task'))).toBe('Done');
    await poll(() => threads.locator('.thread-queued').count()).toBe(0);
    await page.context().close();
  });
});
