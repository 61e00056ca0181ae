// Auto-review in the window (SPEC §23), in headless Chromium against `deepdesk serve` and the
// scripted model. The reviewer's events are put into the window's own connection exactly as
// the contract shapes them (`thread.event` frames of the open thread), beside a real run: a
// call under review says so and asks nothing; then its card says who decided and why; a denied
// call says it with its risk and category; the thread's reviewed calls list both; the breaker's
// notice leads to Settings › Approvals; a real approval whose reviewer could not
// answer says so on the card the person answers. Then for real, `serve --reviewer thread` with
// the scripted model playing the agent and the reviewer, where a denied call is allowed once by
// the person's explicit act. Settings › Approvals › Review with a model writes settings.json's
// `reviewer` (for all folders or this one), and its Test shows the reviewer's verdict or why it gave none.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { describeViolations, seriousViolations } from './axe';
import { conversation, screenshot, sendMessage, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();
let context: BrowserContext | undefined;

afterEach(async () => {
  await context?.close();
  context = undefined;
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

const ALLOW = { decision: 'allow', risk: 'low', authorization: 'high', category: 'other', rationale: 'The person asked for a build.' };
const DENY = { decision: 'deny', risk: 'high', authorization: 'none', category: 'destructive_action', rationale: 'Deleting the whole folder was not asked for.' };

interface Window {
  page: Page;
  /** Sends one agent event of the open thread to the window, as the server would. */
  inject(event: Record<string, unknown>): void;
  /** The first event of the thread the server sent that matches. */
  seen(match: (event: Record<string, unknown>) => boolean): Record<string, unknown> | undefined;
}

/** The window with its connection passed through, the server's thread events recorded, and a way to add more. */
async function openWindow(url: string): Promise<Window> {
  context = await e2e.browser.newContext({ viewport: { width: 1400, height: 900 } });
  let socket: WebSocketRoute | undefined;
  let threadId = '';
  let seq = 1_000_000;
  const events: Array<Record<string, unknown>> = [];
  await context.routeWebSocket(/.*/, (ws) => {
    socket = ws;
    const server = ws.connectToServer();
    ws.onMessage((m) => server.send(m));
    server.onMessage((m) => {
      const frame = typeof m === 'string' ? (JSON.parse(m) as { event?: string; payload?: { threadId: string; event: Record<string, unknown> } }) : undefined;
      if (frame?.event === 'thread.event' && frame.payload) {
        threadId = frame.payload.threadId;
        events.push(frame.payload.event);
      }
      ws.send(m);
    });
  });
  const page = await context.newPage();
  page.on('pageerror', (err) => {
    throw err;
  });
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
  return {
    page,
    inject: (event) => socket!.send(JSON.stringify({ event: 'thread.event', payload: { threadId, seq: seq++, event: { threadId, ...event } } })),
    seen: (match) => events.find(match),
  };
}

describe('auto-review in the window (SPEC §23)', () => {
  it('the reviewer’s verdicts on the cards, the reviewed calls, the breaker’s notice, and a failed review on the person’s card', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve({ script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo fallback' } }] }, { text: 'Done.' }] });
    const { page, inject, seen } = await openWindow(serve.url);
    const log = conversation(page);
    await sendMessage(page, 'build it');

    // A real approval; the reviewer could not answer it, so the person does, and the card says why.
    await poll(() => seen((e) => e.type === 'approval' && e.status === 'pending') !== undefined).toBe(true);
    const asked = seen((e) => e.type === 'approval' && e.status === 'pending')!;
    inject({ type: 'approval', id: asked.id, name: 'execute', args: asked.args, status: 'pending', reason: String(asked.reason), reviewFailed: 'the reviewer could not answer: it did not answer within 30 s, twice' });
    const card = toolCard(page, 'execute').filter({ hasText: 'echo fallback' });
    const group = card.getByRole('group', { name: 'Approve tool call' });
    await poll(() => group.getAttribute('aria-describedby').then(async (ids) => page.evaluate((list) => list!.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' '), ids))).toContain(
      'The reviewer could not answer: it did not answer within 30 s, twice. You decide.',
    );
    await screenshot(page, 'review-failed-1400x900');
    await group.getByRole('button', { name: 'Approve', exact: true }).click();
    await log.getByText('Done.').waitFor({ timeout: 60_000 });

    // A call under review: no buttons, said plainly; then allowed by the reviewer, with why.
    inject({ type: 'tool_call', id: 'rv-a', name: 'execute', args: { command: 'make build' } });
    inject({ type: 'approval', id: 'rv-a', name: 'execute', args: { command: 'make build' }, status: 'reviewing', reason: 'ask mode' });
    const reviewing = log.getByRole('article', { name: 'execute make build — Reviewing' });
    await reviewing.waitFor({ timeout: 60_000 });
    expect(await reviewing.innerText()).toContain('The reviewer is looking at this call.');
    expect(await reviewing.getByRole('group', { name: 'Approve tool call' }).count()).toBe(0);
    expect(await reviewing.getByRole('button', { name: /Approve|Reject/ }).count()).toBe(0);
    inject({ type: 'approval', id: 'rv-a', name: 'execute', args: { command: 'make build' }, status: 'approved', reason: 'ask mode', decidedBy: 'reviewer', review: ALLOW });
    inject({ type: 'tool_result', id: 'rv-a', name: 'execute', output: 'built', isError: false, exitCode: 0 });
    const allowed = log.getByRole('article', { name: 'execute make build — Done' });
    await poll(() => allowed.innerText()).toContain('Allowed by the reviewer — low risk: The person asked for a build.');

    // Denied: the card says by whom, the risk and the category, and why.
    inject({ type: 'tool_call', id: 'rv-b', name: 'execute', args: { command: 'rm -rf .' } });
    inject({ type: 'approval', id: 'rv-b', name: 'execute', args: { command: 'rm -rf .' }, status: 'reviewing', reason: 'ask mode' });
    inject({ type: 'approval', id: 'rv-b', name: 'execute', args: { command: 'rm -rf .' }, status: 'denied', reason: 'ask mode', decidedBy: 'reviewer', review: DENY });
    inject({ type: 'tool_result', id: 'rv-b', name: 'execute', output: `Error: denied by the reviewer: ${DENY.rationale}`, isError: true });
    const denied = log.getByRole('article', { name: 'execute rm -rf . — Rejected' });
    await poll(() => denied.innerText()).toContain('Denied by the reviewer (high, destructive_action): Deleting the whole folder was not asked for.');
    await screenshot(page, 'review-verdicts-1400x900');
    // Read by a screen reader as every card is: no serious or critical axe finding.
    expect(describeViolations(await seriousViolations(page))).toBe('');

    // The thread's reviewed calls: both, with risk and rationale.
    await page.getByRole('button', { name: 'Reviewed calls · 2 (1 denied)' }).click();
    const list = page.getByRole('dialog', { name: 'Reviewed calls' });
    const rows = list.getByRole('listitem');
    await poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toMatch(/make build[\s\S]*Allowed[\s\S]*low risk[\s\S]*The person asked for a build\./);
    expect(await rows.nth(1).innerText()).toMatch(/rm -rf \.[\s\S]*Denied[\s\S]*high risk[\s\S]*destructive_action[\s\S]*Deleting the whole folder/);
    await screenshot(page, 'reviewed-calls-1400x900');
    expect(describeViolations(await seriousViolations(page))).toBe('');
    // By keyboard: the list takes the keys when it opens, Escape closes it and gives them back.
    await poll(() => page.evaluate(() => document.activeElement?.closest('[role="dialog"]')?.getAttribute('aria-label') ?? null)).toBe('Reviewed calls');
    await page.keyboard.press('Escape');
    await poll(() => list.count()).toBe(0);
    await poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toBe('Reviewed calls · 2 (1 denied)');

    // The breaker's notice, and the way back to review.
    inject({ type: 'note', id: 'rv-n', kind: 'reviewer', text: 'Review is off for this thread: the reviewer denied 3 calls in a row. You answer its approvals until you save review on again in Settings › Approvals (or give --reviewer on a later run).' });
    const notice = log.getByRole('note').filter({ hasText: 'Review is off for this thread' });
    await notice.waitFor({ timeout: 60_000 });
    await notice.getByRole('button', { name: 'Review settings' }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.getByRole('checkbox', { name: 'Review with a model' }).waitFor();
    await poll(() => settings.getByRole('link', { name: 'Approvals' }).getAttribute('aria-current')).toBe('true');
  });

  it('Settings › Approvals › Review with a model: on with a timeout and the thread’s model, Test shows the verdict or the error, Save writes settings.json, off for this folder alone, off clears it; a wrong typed field is said', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve({ script: [{ toolCalls: [{ name: 'review_decision', args: ALLOW }] }, { text: 'It looks fine to me.' }] });
    const { page } = await openWindow(serve.url);
    const saved = (): unknown => (JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8')) as { reviewer?: unknown }).reviewer;
    const open = async () => {
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Approvals' }).click();
      return dialog.getByRole('group', { name: 'Approvals' }).getByRole('group', { name: 'Review with a model' });
    };
    let section = await open();
    const on = section.getByRole('checkbox', { name: 'Review with a model' });
    expect(await on.isChecked()).toBe(false);
    // Named apart from its section (issue 97), and first: on or off, then where, then its model.
    expect(await page.getByRole('group', { name: 'Review with a model', exact: true }).count()).toBe(1);
    expect(await page.getByRole('checkbox', { name: 'Review with a model', exact: true }).count()).toBe(0);
    expect(await section.getByRole('checkbox', { name: 'Turn on review with a model', exact: true }).count()).toBe(1);
    expect(await on.evaluate((box) => [...box.closest('fieldset')!.querySelectorAll('input[type="checkbox"], [role="radiogroup"], #settings-reviewer-model')].map((el) => el.getAttribute('role') ?? (el.id || el.getAttribute('type'))))).toEqual(['checkbox', 'radiogroup', 'settings-reviewer-model']);
    await on.check();
    await section.getByRole('spinbutton', { name: 'Reviewer timeout (seconds)' }).fill('20');

    await section.getByRole('button', { name: 'Test reviewer' }).click();
    await poll(() => section.getByRole('status').innerText()).toBe('Allowed by the reviewer — low risk: The person asked for a build.');
    // An answer that is no review_decision: said, never taken for an allow.
    await section.getByRole('button', { name: 'Test reviewer' }).click();
    await poll(() => section.locator('.error-text[role="status"]').count()).toBe(1);
    expect(await section.getByRole('status').innerText()).not.toMatch(/^Allowed/);
    await screenshot(page, 'settings-auto-review-1400x900');
    expect(describeViolations(await seriousViolations(page))).toBe('');

    await page.getByRole('button', { name: 'Save settings' }).click();
    await poll(saved).toEqual({ model: '', timeoutSeconds: 20 });
    section = await open();
    expect(await section.getByRole('checkbox', { name: 'Review with a model' }).isChecked()).toBe(true);
    expect(await section.getByRole('spinbutton', { name: 'Reviewer timeout (seconds)' }).inputValue()).toBe('20');
    // Off for this folder alone: its own entry, over the one for all.
    expect(await section.getByRole('radio', { name: 'For all folders' }).isChecked()).toBe(true);
    await section.getByRole('radio', { name: 'For this folder only' }).check();
    await section.getByRole('checkbox', { name: 'Review with a model' }).uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => Object.values((saved() as { folders?: object }).folders ?? {})).toEqual([{ model: 'off', timeoutSeconds: 20 }]);
    expect(saved()).toMatchObject({ model: '', timeoutSeconds: 20 });
    section = await open();
    expect(await section.getByRole('radio', { name: 'For this folder only' }).isChecked()).toBe(true);
    expect(await section.getByRole('checkbox', { name: 'Review with a model' }).isChecked()).toBe(false);
    // For all folders again (the folder's own entry goes), then off.
    await section.getByRole('radio', { name: 'For all folders' }).check();
    expect(await section.getByRole('checkbox', { name: 'Review with a model' }).isChecked()).toBe(true);
    await section.getByRole('checkbox', { name: 'Review with a model' }).uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await poll(saved).toBeUndefined();

    // Settings' other typed fields are read the same way: the first one wrong is said, and nothing is saved.
    await open();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('textbox', { name: 'Context window override (tokens)' }).fill('many');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => dialog.getByRole('alert').innerText()).toBe('The context window must be a whole number of tokens.');
    await dialog.getByRole('textbox', { name: 'Context window override (tokens)' }).fill('9000');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => (JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8')) as { contextWindow?: number }).contextWindow).toBe(9000);
  });

  it('the breaker notice’s Review settings, then Save settings with review on as it is: review resumes for the thread (issue 97)', { timeout: 120_000 }, async () => {
    const run = (command: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command } }] });
    const verdict = (args: object): ScriptStep => ({ toolCalls: [{ name: 'review_decision', args }] });
    const agent: ScriptStep[] = [run('rm -rf ./a'), run('rm -rf ./b'), run('rm -rf ./c'), { text: 'Gave up.' }, run('echo resumed'), { text: 'Resumed.' }];
    const reviewer: ScriptStep[] = [verdict(DENY), verdict(DENY), verdict(DENY), verdict(ALLOW)];
    const isReview = (request: RecordedRequest): boolean => request.tools?.some((t) => t.function.name === 'review_decision') === true;
    const next = (request: RecordedRequest): ScriptStep => (isReview(request) ? reviewer.shift() : agent.shift()) ?? { text: 'Nothing more.' };
    const serve = await e2e.serve({ script: Array.from({ length: 12 }, () => next), settings: { reviewer: { model: '' } } });
    const { page } = await openWindow(serve.url);
    const log = conversation(page);
    await sendMessage(page, 'clean up');
    const notice = log.getByRole('note').filter({ hasText: 'Review is off for this thread: the reviewer denied 3 calls in a row.' });
    await notice.waitFor({ timeout: 60_000 });
    await log.getByText('Gave up.').waitFor({ timeout: 60_000 });

    await notice.getByRole('button', { name: 'Review settings' }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    expect(await settings.getByRole('checkbox', { name: 'Turn on review with a model' }).isChecked()).toBe(true);
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => settings.count()).toBe(0);

    await sendMessage(page, 'go on');
    await poll(() => log.getByRole('article', { name: /^execute echo resumed — Done/ }).innerText()).toContain('Allowed by the reviewer — low risk: The person asked for a build.');
    expect(await log.getByRole('group', { name: 'Approve tool call' }).count()).toBe(0);
  });

  it('for real: serve --reviewer thread, the scripted model the agent and the reviewer: verdicts, a failed review asks the person, the breaker trips, a denied call allowed once', { timeout: 180_000 }, async () => {
    const run = (command: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command } }] });
    const verdict = (args: object): ScriptStep => ({ toolCalls: [{ name: 'review_decision', args }] });
    const agent: ScriptStep[] = [run('echo allowed-by-reviewer'), run('echo asked-of-you'), run('rm -rf ./a'), run('rm -rf ./b'), run('rm -rf ./c'), { text: 'Done.' }, run('rm -rf ./a'), { text: 'Removed.' }];
    const reviewer: ScriptStep[] = [verdict(ALLOW), { text: 'Looks fine, I suppose.' }, verdict(DENY), verdict(DENY), verdict(DENY)];
    const isReview = (request: RecordedRequest): boolean => request.tools?.some((t) => t.function.name === 'review_decision') === true;
    const next = (request: RecordedRequest): ScriptStep => (isReview(request) ? reviewer.shift() : agent.shift()) ?? { text: 'Nothing more.' };
    const serve = await e2e.serve({ script: Array.from({ length: 16 }, () => next), extraArgs: ['--reviewer', 'thread'] });
    const { page } = await openWindow(serve.url);
    const log = conversation(page);
    await sendMessage(page, 'build it');

    await poll(() => log.getByRole('article', { name: /^execute echo allowed-by-reviewer — Done/ }).innerText()).toContain('Allowed by the reviewer — low risk: The person asked for a build.');
    // The reviewer's answer did not parse: the person is asked, told why; nothing ran before.
    const asked = toolCard(page, 'execute').filter({ hasText: 'echo asked-of-you' }).getByRole('group', { name: 'Approve tool call' });
    await poll(() => asked.innerText()).toContain('The reviewer could not answer: its answer was not a review_decision it could be read as. You decide.');
    await asked.getByRole('button', { name: 'Approve', exact: true }).click();

    const denied = log.getByRole('article', { name: 'execute rm -rf ./a — Rejected' });
    await poll(() => denied.innerText()).toContain('Denied by the reviewer (high, destructive_action): Deleting the whole folder was not asked for.');
    const notice = log.getByRole('note').filter({ hasText: 'Review is off for this thread: the reviewer denied 3 calls in a row.' });
    await notice.waitFor({ timeout: 60_000 });
    await log.getByText('Done.').waitFor({ timeout: 60_000 });
    await screenshot(page, 'auto-review-real-1400x900');

    await page.getByRole('button', { name: 'Reviewed calls · 4 (3 denied)' }).click();
    const rows = page.getByRole('dialog', { name: 'Reviewed calls' }).getByRole('listitem');
    expect(await rows.allInnerTexts()).toHaveLength(4);
    expect(await rows.nth(1).innerText()).toMatch(/rm -rf \.\/a[\s\S]*Denied[\s\S]*high risk/);
    await page.keyboard.press('Escape');

    // Kept with the thread: after a reload the cards and the list say the same.
    await page.reload();
    await poll(() => log.getByRole('article', { name: 'execute rm -rf ./a — Rejected' }).innerText()).toContain('Denied by the reviewer (high, destructive_action): Deleting the whole folder was not asked for.');
    expect(await log.getByRole('article', { name: /^execute echo allowed-by-reviewer — Done/ }).innerText()).toContain('Allowed by the reviewer — low risk: The person asked for a build.');
    await page.getByRole('button', { name: 'Reviewed calls · 4 (3 denied)' }).waitFor();

    // A denied call allowed once, by an explicit act: *Allow once…* asks, and its Cancel has the keyboard (Enter allows nothing).
    await page.getByRole('button', { name: 'Reviewed calls · 4 (3 denied)' }).click();
    const list = page.getByRole('dialog', { name: 'Reviewed calls' });
    expect(await list.getByRole('button', { name: /^Allow once: / }).count()).toBe(3);
    const allowA = list.getByRole('button', { name: /^Allow once: .*rm -rf \.\/a$/ });
    await allowA.click();
    const confirm = list.getByRole('group', { name: 'Allow this call once?' });
    await poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toBe('Cancel');
    expect(describeViolations(await seriousViolations(page))).toBe('');
    await screenshot(page, 'allow-once-1400x900');
    await page.keyboard.press('Enter');
    await poll(() => confirm.count()).toBe(0);
    await poll(() => allowA.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await confirm.getByRole('button', { name: 'Allow once', exact: true }).click();
    await poll(() => list.getByRole('status').innerText()).toBe('Allowed once: it runs the next time the agent makes exactly this call. The agent is told.');
    await page.keyboard.press('Escape');
    // Opened again, it is not offered twice.
    await page.getByRole('button', { name: 'Reviewed calls · 4 (3 denied)' }).click();
    await poll(() => list.getByRole('status').innerText()).toBe('Allowed once: it runs the next time the agent makes exactly this call. The agent is told.');
    expect(await list.getByRole('button', { name: /^Allow once: / }).count()).toBe(2);
    await page.keyboard.press('Escape');
    await log.getByRole('note').filter({ hasText: 'You allowed the denied execute call once.' }).waitFor({ timeout: 60_000 });
    // The agent makes it again: it runs, decided by the person, with nobody asked (the breaker still holds the rest).
    await sendMessage(page, 'go on');
    await log.getByText('Removed.').waitFor({ timeout: 60_000 });
    expect(await log.getByRole('article', { name: 'execute rm -rf ./a — Done' }).count()).toBe(1);
    expect(await log.getByRole('group', { name: 'Approve tool call' }).count()).toBe(0);
    // Every card says who decided (issue 97): the person's approval, and the call they allowed once.
    expect(await log.getByRole('article', { name: /^execute echo asked-of-you — Done/ }).innerText()).toContain('Approved by you');
    expect(await log.getByRole('article', { name: 'execute rm -rf ./a — Done' }).innerText()).toContain('Allowed once by you, after the reviewer denied it');
    // Reviewed calls says what became of the denied call, and offers it no more.
    await page.getByRole('button', { name: 'Reviewed calls · 4 (3 denied)' }).click();
    await poll(() => list.getByRole('listitem').nth(1).innerText()).toContain('Denied, then allowed once by you · Done');
    expect(await list.getByRole('button', { name: /^Allow once: / }).count()).toBe(2);
    expect(await list.getByRole('status').count()).toBe(0);
  });
});
