// Issue 27, by keyboard and for a screen reader: the approval loop keeps the keyboard (the
// next waiting approval, else the message box) and says, assertively, that a call waits;
// what closes gives the keyboard back to what opened it; F6 / Shift+F6 go from region to
// region; the thread list is one Tab stop with arrows inside, as is the file tree; the log
// is busy while an answer streams. One `deepdesk serve` for the file: the scripted model
// answers by what the message asks.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, type RecordedRequest, type ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, openApp, startServe, useE2ESession, type ServeHandle } from './harness';

const e2e = useE2ESession();

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

const STREAMED = Array.from({ length: 40 }, (_, i) => `Sentence ${i + 1} of an answer that streams in.`).join(' ');

let written = 0;
/** Writes two files when asked to, streams slowly when asked to, else answers at once. */
function respond(req: RecordedRequest): ScriptStep {
  if (req.messages.at(-1)?.role === 'tool') return { text: 'Done with the files.' };
  const asked = lastUserText(req);
  if (asked.includes('write two files')) {
    written += 2;
    return {
      toolCalls: [
        { name: 'write_file', args: { file_path: `/note-${written - 1}.txt`, content: 'one\n' } },
        { name: 'write_file', args: { file_path: `/note-${written}.txt`, content: 'two\n' } },
      ],
    };
  }
  if (asked.includes('run a command')) return { toolCalls: [{ name: 'execute', args: { command: 'echo ran-$((6*7))' } }] };
  if (asked.includes('stream')) return { text: STREAMED, pace: { chunkChars: 12, chunksPerSecond: 20 } };
  return { text: `Noted: ${asked}` };
}

// Started here, not by e2e.serve (which stops its servers after each test): the tests share it.
let serve: ServeHandle;
beforeAll(async () => {
  serve = await startServe({ script: Array.from({ length: 60 }, () => respond), settings: { rules: [{ tools: ['execute'], decision: 'allow' }] } });
  writeFileSync(join(serve.folder, 'alpha.txt'), 'a\n');
  writeFileSync(join(serve.folder, 'beta.txt'), 'b\n');
  mkdirSync(join(serve.folder, 'src'));
  writeFileSync(join(serve.folder, 'src', 'gamma.ts'), 'g\n');
});

afterAll(async () => {
  await serve?.stop();
});

const messageBox = (page: Page): Locator => page.getByRole('textbox', { name: 'Message', exact: true });

/** Sends `text` from the keyboard (the box focused, typed, Enter). */
async function typeAndSend(page: Page, text: string): Promise<void> {
  await messageBox(page).focus();
  await page.keyboard.type(text);
  // All of it is in the box (nothing drew the box anew under the keys) before Enter.
  await poll(() => messageBox(page).inputValue()).toBe(text);
  await page.keyboard.press('Enter');
}

/** What has the keyboard: `Message`, an approval's button (`Approve`, `Reject`, …), or the element's name. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (el === null || el === document.body) return 'body';
    if (el.getAttribute('aria-label') === 'Message') return 'Message';
    const inApproval = el.closest('[role="group"][aria-label="Approve tool call"]');
    const name = el.getAttribute('aria-label') ?? el.innerText.split('\n')[0]!.trim();
    return inApproval ? `approval ${name.replace(/\s+\S$/, '')}` : name;
  });

/** The region (`data-region`) the keyboard is in. */
const focusedRegion = (page: Page) => page.evaluate(() => document.activeElement?.closest<HTMLElement>('[data-region]')?.dataset.region ?? null);

describe('the approval loop by keyboard', () => {
  it('goes to the next waiting approval after a decision, then to the message box; an arriving approval is announced and takes the keys', async () => {
    const page = await openApp(e2e.browser, serve.url);
    await typeAndSend(page, 'write two files');
    await poll(() => approval(page).count()).toBe(2);
    // Announced assertively (the log is polite), naming the call.
    const announcer = page.locator('[aria-live="assertive"]');
    await poll(() => announcer.innerText()).toMatch(/^Write note-\d\.txt needs your approval \(2 waiting\)$/);
    // The box was empty: the first approval took the keys.
    await poll(() => focused(page)).toBe('approval Approve');
    // The second one decided first (Enter on its Approve): the keys go to the one still waiting.
    const [first, second] = [approval(page).nth(0), approval(page).nth(1)];
    await second.getByRole('button', { name: 'Approve', exact: true }).focus();
    // Still there when Enter goes (an approval drawn anew meanwhile does not take the keys back).
    await poll(() => focused(page)).toBe('approval Approve');
    expect(await second.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Enter');
    await poll(() => approval(page).count()).toBe(1);
    await poll(() => focused(page)).toBe('approval Approve');
    expect(await first.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    // Reject, reached with Tab, decided with Enter: the message box has the keys again.
    await page.keyboard.press('Tab');
    await poll(() => focused(page)).toBe('approval Reject');
    await page.keyboard.press('Enter');
    await poll(() => approval(page).count()).toBe(0);
    await poll(() => focused(page)).toBe('Message');
    await conversation(page).getByText('Done with the files.').waitFor({ timeout: 60_000 });
    expect(await focused(page)).toBe('Message');
    await page.context().close();
  });
});

describe('a just-opened window', () => {
  it('takes a message sent with Enter before its settings have loaded, and sends it once they have', async () => {
    // The settings come late (a busy machine): their request is held back until the message is sent.
    const page = await openApp(e2e.browser, serve.url, {
      init: () => {
        const send = WebSocket.prototype.send;
        let held: (() => void)[] | undefined = [];
        (window as unknown as { releaseSettings: () => void }).releaseSettings = () => {
          const go = held ?? [];
          held = undefined;
          go.forEach((f) => f());
        };
        WebSocket.prototype.send = function (this: WebSocket, data: string | ArrayBufferLike | Blob | ArrayBufferView) {
          if (held && typeof data === 'string' && data.includes('"method":"settings.get"')) held.push(() => send.call(this, data));
          else send.call(this, data);
        };
      },
    });
    await poll(() => messageBox(page).getAttribute('placeholder')).toBe('Loading settings…');
    await typeAndSend(page, 'sent before loading');
    expect(await messageBox(page).getAttribute('placeholder')).toBe('Loading settings…');
    await page.evaluate(() => (window as unknown as { releaseSettings: () => void }).releaseSettings());
    await conversation(page).getByText('Noted: sent before loading').waitFor({ timeout: 60_000 });
    await poll(() => messageBox(page).inputValue()).toBe('');
    await page.context().close();
  });
});

describe('what closes gives the keyboard back', () => {
  it('Esc in the offer of modes returns it to what opened it', async () => {
    const page = await openApp(e2e.browser, serve.url);
    const offerButton = page.getByRole('button', { name: 'Show mode choices for this new folder' });
    await offerButton.focus();
    await page.keyboard.press('Enter');
    const choices = page.getByRole('group', { name: /How much may the agent do on its own/ });
    await choices.waitFor();
    await page.keyboard.press('Tab');
    await poll(() => choices.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await poll(() => choices.count()).toBe(0);
    // Closed, not dismissed: the keyboard is back on its button, which stays to open it again.
    await poll(() => focused(page)).toBe('Show mode choices for this new folder');
    await page.context().close();
  });

  it('a folded panel closed below 1000 px returns it to its button', async () => {
    const page = await openApp(e2e.browser, serve.url, { width: 900, height: 700 });
    const show = page.getByRole('button', { name: 'Show Threads' });
    await show.focus();
    await page.keyboard.press('Enter');
    const threads = page.getByRole('region', { name: 'Threads' });
    await poll(() => threads.isVisible()).toBe(true);
    await threads.getByRole('button', { name: 'New thread' }).focus();
    await page.keyboard.press('Escape');
    await poll(() => threads.isVisible()).toBe(false);
    await poll(() => focused(page)).toBe('Show Threads');
    // The same for Memories, closed from its search box.
    await page.getByRole('button', { name: 'Show Memories' }).focus();
    await page.keyboard.press('Enter');
    const search = page.getByRole('region', { name: 'Memories' }).getByRole('searchbox', { name: 'Search memories' });
    await poll(() => search.isVisible()).toBe(true);
    await search.focus();
    await page.keyboard.press('Escape');
    await poll(() => focused(page)).toBe('Show Memories');
    await page.context().close();
  });
});

describe('moving around', () => {
  it('F6 and Shift+F6 go from region to region and back to where the keyboard was', async () => {
    const page = await openApp(e2e.browser, serve.url);
    await messageBox(page).focus();
    const order: Array<string | null> = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('F6');
      order.push(await focusedRegion(page));
    }
    expect(order).toEqual(['Terminal', 'Memories', 'Changes', 'Header', 'Agents', 'Threads', 'Files', 'Chat']);
    // Back in the chat, where the keyboard was: the message box.
    expect(await focused(page)).toBe('Message');
    await page.keyboard.press('Shift+F6');
    expect(await focusedRegion(page)).toBe('Files');
    await page.keyboard.press('Shift+F6');
    expect(await focusedRegion(page)).toBe('Threads');
    await page.context().close();
  });

  it('the thread list is one Tab stop, and arrows move between threads', async () => {
    const page = await openApp(e2e.browser, serve.url);
    const threads = page.getByRole('region', { name: 'Threads' });
    for (const text of ['first thread', 'second thread']) {
      await page.getByRole('button', { name: 'New thread' }).press('Enter');
      // The new thread is open (its empty log) before the message is typed.
      await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
      await typeAndSend(page, text);
      await conversation(page).getByText(`Noted: ${text}`).waitFor({ timeout: 60_000 });
    }
    const items = threads.locator('.thread-select');
    await poll(() => items.count()).toBeGreaterThanOrEqual(3);
    // The list has settled: the open thread is in it and none still runs (a run ending re-sorts it).
    await poll(() => threads.locator('.thread-select[aria-current="true"]').count()).toBe(1);
    await poll(() => threads.locator('.thread-running').count()).toBe(0);
    const stops = () => items.evaluateAll((els) => els.filter((el) => (el as HTMLElement).tabIndex === 0).length);
    await poll(stops).toBe(1);
    // Tab from the search box lands on the open thread, the next Tab leaves the list.
    await threads.getByRole('searchbox', { name: 'Search threads' }).focus();
    await page.keyboard.press('Tab');
    const current = () => page.evaluate(() => document.activeElement?.matches('.thread-select[aria-current="true"]') === true);
    await poll(current).toBe(true);
    const index = () => items.evaluateAll((els) => (els as Element[]).indexOf(document.activeElement as Element));
    const start = await index();
    await page.keyboard.press('ArrowDown');
    await poll(index).toBe(start + 1);
    await page.keyboard.press('End');
    await poll(index).toBe((await items.count()) - 1);
    await page.keyboard.press('Home');
    await poll(index).toBe(0);
    expect(await stops()).toBe(1);
    await page.keyboard.press('Tab');
    await poll(index).toBe(-1);
    expect(await page.evaluate(() => document.activeElement?.closest('.thread-item') === null)).toBe(true);
    // Shift+Tab comes back to the thread the keyboard was on; Enter opens it.
    await page.keyboard.press('Shift+Tab');
    await poll(index).toBe(0);
    await page.keyboard.press('Enter');
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-current'))).toBe('true');
    // F2 renames it in place; Esc gives the keyboard back to the thread.
    await page.keyboard.press('F2');
    await poll(() => focused(page)).toBe('Thread title');
    await page.keyboard.press('Escape');
    await poll(() => page.evaluate(() => document.activeElement?.matches('.thread-select[aria-current="true"]') === true)).toBe(true);
    await page.context().close();
  });

  it('the file tree is one Tab stop, arrows move in it and open a folder, and the viewer gives the keyboard back on close', async () => {
    const page = await openApp(e2e.browser, serve.url);
    const tree = page.getByRole('tree');
    await tree.getByRole('treeitem', { name: 'src' }).waitFor();
    const stops = () => tree.getByRole('treeitem').evaluateAll((els) => els.filter((el) => (el as HTMLElement).tabIndex === 0).length);
    await poll(stops).toBe(1);
    await page.getByRole('button', { name: 'Refresh files' }).focus();
    await page.keyboard.press('Tab');
    const at = () => page.evaluate(() => (document.activeElement?.getAttribute('role') === 'treeitem' ? document.activeElement.querySelector('.tree-name')?.textContent : null));
    await poll(at).toBe('src');
    await page.keyboard.press('ArrowRight');
    await tree.getByRole('treeitem', { name: 'gamma.ts' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await poll(at).toBe('gamma.ts');
    await page.keyboard.press('ArrowDown');
    await poll(at).toBe('alpha.txt');
    await page.keyboard.press('ArrowUp');
    await poll(at).toBe('gamma.ts');
    expect(await stops()).toBe(1);
    // Enter opens the file; closing the viewer gives the keyboard back to its row.
    await page.keyboard.press('Enter');
    const viewer = page.getByRole('region', { name: 'File viewer' });
    await poll(() => viewer.innerText()).toContain('gamma.ts');
    await viewer.getByRole('button', { name: 'Close file' }).focus();
    await page.keyboard.press('Enter');
    await poll(() => viewer.count()).toBe(0);
    await poll(at).toBe('gamma.ts');
    await page.context().close();
  });
});

describe('the terminal by keyboard', () => {
  it('the tab list is one Tab stop holding only tabs; arrows move between them, Delete closes a finished command’s view', async () => {
    const page = await openApp(e2e.browser, serve.url);
    await page.getByRole('button', { name: 'New thread' }).press('Enter');
    await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await typeAndSend(page, 'run a command');
    await conversation(page).getByText('Done with the files.').waitFor({ timeout: 60_000 });
    // Its card is named by tool, target and status.
    await poll(() => conversation(page).getByRole('article', { name: 'execute echo ran-$((6*7)) — Done', exact: true }).count()).toBe(1);
    const tabs = page.getByRole('region', { name: 'Terminal' }).getByRole('tablist', { name: 'Terminals' });
    const command = tabs.getByRole('tab', { name: /echo ran-/ });
    await command.waitFor({ timeout: 60_000 });
    expect(await tabs.evaluate((el) => [...el.querySelectorAll('button:not([aria-hidden="true"])')].every((b) => b.getAttribute('role') === 'tab'))).toBe(true);
    // One Tab stop, the shown tab; Left and Right move between the tabs.
    await poll(() => tabs.getByRole('tab').evaluateAll((els) => els.filter((el) => (el as HTMLElement).tabIndex === 0).length)).toBe(1);
    await tabs.getByRole('tab', { name: /Your shell/ }).focus();
    await page.keyboard.press('ArrowRight');
    await poll(() => command.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Delete');
    await poll(() => command.count()).toBe(0);
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('tab');
    await poll(() => tabs.getByRole('tab', { name: /Your shell/ }).evaluate((el) => el === document.activeElement)).toBe(true);
    await page.context().close();
  });
});

describe('for a screen reader', () => {
  it('the log is busy while an answer streams, and not once it is complete', async () => {
    const page = await openApp(e2e.browser, serve.url);
    // A thread of its own: the thread open last may still hold an earlier test's run (its last
    // answer under load), which would queue this message behind it and answer it otherwise.
    await page.getByRole('button', { name: 'New thread' }).press('Enter');
    await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await typeAndSend(page, 'stream an answer');
    const log = conversation(page);
    await poll(() => log.getAttribute('aria-busy')).toBe('true');
    await log.getByText('Sentence 40 of an answer').waitFor({ timeout: 60_000 });
    await poll(() => log.getAttribute('aria-busy')).toBe(null);
    await page.context().close();
  });
});
