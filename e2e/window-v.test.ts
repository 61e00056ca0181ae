// Issue 52, Window V: the window's conversation and layout, in headless Chromium against
// `deepdesk serve` and the scripted model, at the size where each problem was seen. The first
// click after opening a folder lands (the offer of modes, open above it, stays where it is and
// is a line or two high). A run waiting for a run slot says Queued in its conversation (first,
// and again after an approval), Esc ends the wait, and the run's elapsed time counts from its
// start through approvals and waits; the placeholders of a run are one line.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, type ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();
const pages: Page[] = [];
/** Model answers held back by the test: let go after it, whatever happened. */
const held: Array<() => void> = [];
afterEach(async () => {
  for (const release of held.splice(0)) release();
  for (const page of pages.splice(0)) await page.context().close();
});

/** A promise the test resolves when it wants the model to answer. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  held.push(open);
  return { opened, open };
}

async function open(url: string, width: number, height: number): Promise<Page> {
  const page = await openApp(e2e.browser, url, { width, height });
  pages.push(page);
  return page;
}

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });
const offer = (page: Page) => page.getByRole('group', { name: /How much may the agent do on its own/ });

/**
 * A person's click: the pointer goes down on the middle of `target` as it is drawn now, a
 * moment passes (the page renders what the press set off), and it comes up at the same spot.
 */
async function personClick(page: Page, target: Locator): Promise<void> {
  const box = (await target.boundingBox())!;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50)))));
  await page.mouse.up();
}

describe('the first click after opening a folder', () => {
  it('lands on Trust folder and on Approve while the offer of modes is open; the offer is a line or two high', async () => {
    const serve = await e2e.serve({
      firstOpen: true,
      script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/first.txt', content: 'first\n' } }] }, { text: 'Wrote it.' }],
    });
    mkdirSync(join(serve.folder, '.claude', 'commands'), { recursive: true });
    writeFileSync(join(serve.folder, '.claude', 'commands', 'ship.md'), '---\ndescription: Ship the release\n---\nShip it.\n');
    const page = await open(serve.url, 1024, 700);
    const choices = offer(page);
    await choices.waitFor({ timeout: 60_000 });
    const question = page.getByRole('group', { name: 'Trust this folder?' });
    await question.waitFor({ timeout: 60_000 });
    // Compact: its choices and a line saying what one does, not a third of the window.
    await screenshot(page, 'v-mode-offer-and-trust-1024x700');
    const height = (await choices.boundingBox())!.height;
    expect(height).toBeGreaterThan(30);
    expect(height).toBeLessThanOrEqual(80);

    // One click on Trust folder trusts the folder: its command is offered.
    await personClick(page, question.getByRole('button', { name: 'Trust folder' }));
    await poll(() => question.count()).toBe(0);
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('/sh');
    await poll(async () => (await page.getByRole('listbox', { name: 'Commands' }).textContent()) ?? '').toContain('Ship the release');
    await box.fill('');
    // The offer is still there, where it was: nothing moved under the pointer.
    expect(await choices.count()).toBe(1);

    // One click on Approve approves the write.
    await sendMessage(page, 'write the first file');
    await approval(page).waitFor({ timeout: 60_000 });
    expect(await choices.count()).toBe(1);
    await personClick(page, approval(page).getByRole('button', { name: 'Approve', exact: true }));
    await conversation(page).getByText('Wrote it.').waitFor({ timeout: 60_000 });
    expect(existsSync(join(serve.folder, 'first.txt'))).toBe(true);
    expect(await choices.count()).toBe(1);
  });
});

/** What the conversation says of its run at its end (the Working or Queued line), or '' when none. */
const runLine = (page: Page) => conversation(page).locator('.working').evaluateAll((els) => els.map((el) => (el as HTMLElement).innerText.replace(/\s+/g, ' ').trim()).join(' | '));
/** The seconds the Working line shows. */
const workingSeconds = async (page: Page): Promise<number> => Number(/Working… (\d+) s/.exec(await runLine(page))?.[1] ?? NaN);

/** Whether the element's text takes one line: nothing wraps, nothing scrolls. */
function oneLine(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const style = getComputedStyle(el);
    const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
    const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
    return el.scrollHeight <= el.clientHeight + 1 && el.scrollHeight - padding < line * 1.9;
  });
}

const threadsRegion = (page: Page) => page.getByRole('region', { name: 'Threads' });
const openThread = (page: Page, title: string) => threadsRegion(page).locator('.thread-item').filter({ hasText: title }).locator('.thread-select').click();
const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });

describe('a run waiting for a run slot', () => {
  it('says Queued in its conversation, not Working, and Esc ends the wait', async () => {
    const firstGo = gate();
    const step: ScriptStep = async (request) => {
      if (lastUserText(request).includes('First task')) await firstGo.opened;
      return { text: `${lastUserText(request)} answered.` };
    };
    const serve = await e2e.serve({ script: [step, step, step], settings: { maxConcurrentRuns: 1 } });
    const page = await open(serve.url, 1024, 700);
    await sendMessage(page, 'First task');
    await poll(() => runLine(page)).toMatch(/^Working… \d+ s · Esc to stop$/);
    // The running placeholder is one line beside Stop and Send.
    expect(await oneLine(messageBox(page))).toBe(true);
    expect(await oneLine(conversation(page).locator('.working'))).toBe(true);
    await screenshot(page, 'v-working-1024x700');

    await threadsRegion(page).getByRole('button', { name: 'New thread' }).press('Enter');
    await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Second task');
    await poll(() => runLine(page)).toBe('Queued: waiting for a free run slot (1 of 1 in use) · Esc to stop');
    expect(await oneLine(messageBox(page))).toBe(true);
    expect(await messageBox(page).getAttribute('placeholder')).toMatch(/waits for a slot/);
    await screenshot(page, 'v-queued-1024x700');

    // Esc ends the wait: stopped, nothing ran.
    await messageBox(page).press('Escape');
    await conversation(page).getByText('Stopped.', { exact: true }).waitFor({ timeout: 60_000 });
    await poll(() => runLine(page)).toBe('');

    // Queued again, it starts once the first run ends.
    await sendMessage(page, 'Second task again');
    await poll(() => runLine(page)).toMatch(/^Queued: waiting for a free run slot/);
    firstGo.open();
    await conversation(page).getByText('Second task again answered.').waitFor({ timeout: 60_000 });
    await poll(() => runLine(page)).toBe('');
  });

  it('after an approval: Queued while another run has the slot, then Working with the time since the run started', async () => {
    const alphaFirst = gate();
    const alphaAfter = gate();
    const betaGo = gate();
    const step: ScriptStep = async (request) => {
      const last = request.messages[request.messages.length - 1];
      if (last?.role === 'tool') {
        await alphaAfter.opened;
        return { text: 'Alpha wrote it.' };
      }
      if (lastUserText(request).includes('Alpha task')) {
        await alphaFirst.opened;
        return { toolCalls: [{ name: 'write_file', args: { file_path: '/alpha.txt', content: 'alpha\n' } }] };
      }
      await betaGo.opened;
      return { text: 'Beta finished.' };
    };
    const serve = await e2e.serve({ script: [step, step, step, step], settings: { maxConcurrentRuns: 1 } });
    const page = await open(serve.url, 1024, 700);
    await sendMessage(page, 'Alpha task');
    // A few seconds into the run, it asks.
    await poll(() => workingSeconds(page)).toBeGreaterThanOrEqual(3);
    alphaFirst.open();
    await approval(page).waitFor({ timeout: 60_000 });
    // Waiting for the person, the run holds no slot: another thread's run takes it.
    await threadsRegion(page).getByRole('button', { name: 'New thread' }).press('Enter');
    await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Beta task');
    await poll(() => runLine(page)).toMatch(/^Working… \d+ s/);

    // Approved, Alpha waits for the slot Beta has: its conversation says so.
    await openThread(page, 'Alpha task');
    await approval(page).waitFor({ timeout: 60_000 });
    // The approval's buttons beside the run's: the placeholder is still one line.
    expect(await oneLine(messageBox(page))).toBe(true);
    await approval(page).getByRole('button', { name: 'Approve', exact: true }).click();
    await poll(() => runLine(page)).toBe('Queued: waiting for a free run slot (1 of 1 in use) · Esc to stop');

    // Beta ends: Alpha goes on, and its time counts from its start, not from the approval.
    betaGo.open();
    await poll(() => runLine(page)).toMatch(/^Working… \d+ s/);
    expect(await workingSeconds(page)).toBeGreaterThanOrEqual(3);
    alphaAfter.open();
    await conversation(page).getByText('Alpha wrote it.').waitFor({ timeout: 60_000 });
    await poll(() => runLine(page)).toBe('');
  });
});

describe('the Agents view under the pointer', () => {
  it('keeps its rows in place while the pointer is over them: a click opens the row that was under it', async () => {
    const alphaGo = gate();
    const betaGo = gate();
    const step: ScriptStep = async (request) => {
      if (lastUserText(request).includes('Alpha task')) await alphaGo.opened;
      else await betaGo.opened;
      return { text: `${lastUserText(request)} answered.` };
    };
    const serve = await e2e.serve({ script: [step, step] });
    const page = await open(serve.url, 1024, 700);
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    const titles = () => agents.locator('.agent-title').allInnerTexts();
    const row = (title: string) => agents.getByRole('listitem').filter({ hasText: title });
    await sendMessage(page, 'Alpha task');
    await row('Alpha task').waitFor({ timeout: 60_000 });
    await threadsRegion(page).getByRole('button', { name: 'New thread' }).press('Enter');
    await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    await sendMessage(page, 'Beta task');
    await row('Beta task').waitFor({ timeout: 60_000 });
    // A third thread open, so neither run is seen when it ends.
    await threadsRegion(page).getByRole('button', { name: 'New thread' }).press('Enter');
    await conversation(page).getByText(/Ask the agent to read/).waitFor({ timeout: 60_000 });
    // Both working, the newest first.
    await poll(() => agents.locator('.agent-state').allInnerTexts()).toEqual(['Working', 'Working']);
    expect(await titles()).toEqual(['Beta task', 'Alpha task']);

    // The pointer rests on Alpha's row; Beta ends (by the list's order, Alpha would go first now).
    const alpha = row('Alpha task').getByRole('button');
    const box = (await alpha.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    betaGo.open();
    await poll(() => row('Beta task').locator('.agent-state').innerText()).toBe('Done');
    expect(await titles()).toEqual(['Beta task', 'Alpha task']);
    // The click opens Alpha, the row under the pointer.
    await page.mouse.down();
    await page.mouse.up();
    await poll(() => threadsRegion(page).locator('.thread-select[aria-current="true"]').innerText()).toContain('Alpha task');

    // The pointer gone, the rows take the list's order.
    await page.mouse.move(600, 400);
    await poll(() => titles()).toEqual(['Alpha task', 'Beta task']);
  });
});

describe('thread titles', () => {
  it('are short: the first sentence of the first line, at most 8 words, cut with …', async () => {
    const serve = await e2e.serve({ script: [{ text: 'Looked.' }] });
    const page = await open(serve.url, 1024, 700);
    await sendMessage(page, 'Find out why the rounding of the invoice totals in the VAT report differs from the export by one cent.\nThe export is in out/ and the report in reports/vat.');
    await conversation(page).getByText('Looked.').waitFor({ timeout: 60_000 });
    const title = 'Find out why the rounding of the invoice…';
    await poll(() => threadsRegion(page).locator('.thread-title').first().innerText()).toBe(title);
    expect(await page.locator('.thread-heading').innerText()).toBe(title);
  });
});

describe('the todo header of a run that ended', () => {
  it('names no current step: one left in progress reads Not finished, in the header and in the list', async () => {
    const go = gate();
    const serve = await e2e.serve({
      script: [
        { toolCalls: [{ name: 'write_todos', args: { todos: [{ content: 'Read the code', status: 'completed' }, { content: 'Write the notes', status: 'in_progress' }] } }] },
        async () => {
          await go.opened;
          return { text: 'Stopping here for now.' };
        },
      ],
    });
    const page = await open(serve.url, 1024, 700);
    await sendMessage(page, 'plan and write the notes');
    const head = page.getByRole('region', { name: 'Todos' }).locator('.todo-panel-head');
    // While the run goes, the step in progress is the current one.
    await poll(() => head.innerText()).toMatch(/1\/2 done\s+Write the notes$/);
    go.open();
    await conversation(page).getByText('Stopping here for now.').waitFor({ timeout: 60_000 });
    await poll(() => head.innerText()).toMatch(/1\/2 done\s+Not finished: Write the notes$/);
    await head.click();
    const step = page.getByRole('region', { name: 'Todos' }).getByRole('listitem').filter({ hasText: 'Write the notes' });
    expect(await step.innerText()).toContain('(not finished)');
  });
});
