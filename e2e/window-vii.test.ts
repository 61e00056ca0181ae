// Window VII (issue 79): a day with goals, candidates and other vendors' agents, told truthfully —
// at 1024×700, as the walkthrough saw it. A goal's draft card holds its verify commands in boxes
// sized by what they hold and waits for the person as an approval does (no Working…, no Stop);
// the host's verify step asks as the goal's check (step i of n, what refusing does); the thread
// is titled by its objective; the final message shows once; the goal pill stays on one line; a
// stall is still said after a reload. A candidate whose model failed is failed with its reason
// in the Agents view and Compare, each candidate numbered with its model; Compare is not cut and
// offers Apply once, primary on the best; a candidate opens beside the person's folder, with Back. An agent's thread says whose it is (header, list), and
// *New thread with…* keeps its name at the list's narrowest.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../src-main/core/sandbox';
import type { RecordedRequest, ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { knownAgent } from '../src-main/app/agents/vendors/catalog';
import { startSlowRegistry } from '../src-main/app/agents/slow-registry.test-support';
import { approval, conversation, openApp, repo, screenshot, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();
const CHECK = 'node check.js';
const SCRIPT = join(repo, 'src-main/core/acp-client/testing/scripted-acp-agent.mjs');
const SMALL = { width: 1024, height: 700 };

function fixture(folder: string): void {
  writeFileSync(join(folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
  writeFileSync(join(folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL'); process.exit(1); }\nconsole.log('ok: sum(2, 3) = 5');\n");
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: folder, stdio: 'ignore' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'fixture');
}

const grade = (request: RecordedRequest): ScriptStep => {
  const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
  return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ FAILED/.test(prompt) ? 'needs_revision' : 'satisfied', reason: 'from the evidence' }] } }] };
};

/** Drafting proposes CHECK, the grader judges from the evidence, the agent takes `turns` in order. */
function scriptGoal(push: (step: (r: RecordedRequest) => ScriptStep) => void, turns: ScriptStep[]): void {
  for (let i = 0; i < 30; i++) {
    push((request) => {
      const tools = request.tools?.map((t) => t.function.name) ?? [];
      if (tools.includes('propose_goal')) return { toolCalls: [{ name: 'propose_goal', args: { criteria: ['sum adds'], verify: [{ command: CHECK, expectedExitCode: 0 }] } }] };
      if (tools.includes('record_verdict')) return grade(request);
      return turns.shift() ?? { text: 'Nothing more.' };
    });
  }
}

const box = async (locator: Locator) => (await locator.boundingBox())!;

/** Whether every element matched lies whole inside `outer` (left to right). */
async function inside(outer: Locator, inner: Locator): Promise<boolean> {
  const o = await box(outer);
  for (const b of await inner.all()) {
    const r = await box(b);
    if (r.x < o.x - 1 || r.x + r.width > o.x + o.width + 1) return false;
  }
  return true;
}

async function sendGoal(page: Page): Promise<Locator> {
  const message = page.getByRole('textbox', { name: 'Message', exact: true });
  await message.fill('/goal make sum add');
  await message.press('Enter');
  const card = page.getByRole('region', { name: 'Goal draft' });
  await card.waitFor();
  return card;
}

describe('goals in the window at 1024×700', () => {
  it('the draft card holds its command readable and waits for the person; the host’s check asks as the goal’s; the thread is titled by the objective; the answer shows once; the pill is one line', { timeout: 180_000 }, async () => {
    const serve = await e2e.serve();
    fixture(serve.folder);
    scriptGoal((s) => serve.model.push(s), [{ toolCalls: [{ name: 'execute', args: { command: "printf '%s\\n' 'module.exports = (a, b) => a + b;' > sum.js" } }] }, { text: 'Fixed the sum.' }]);
    const page = await openApp(e2e.browser, serve.url, SMALL);
    const card = await sendGoal(page);
    const command = card.getByRole('textbox', { name: 'Verify command 1' });
    await expect.poll(() => command.inputValue()).toBe(CHECK);
    // Sized by what each holds: the command takes the row, the exit code a few characters; the command reads whole.
    const code = card.getByRole('textbox', { name: 'Expected exit code 1' });
    const [cardBox, commandBox, codeBox] = [await box(card), await box(command), await box(code)];
    expect(commandBox.width).toBeGreaterThan(cardBox.width * 0.5);
    expect(codeBox.width).toBeLessThan(90);
    expect(await command.evaluate((el: HTMLInputElement) => el.scrollWidth <= el.clientWidth)).toBe(true);
    // Waiting for the person, said as such: no run going, nothing to stop.
    expect(await card.getByRole('status').innerText()).toContain('Waiting for you');
    expect(await page.getByRole('button', { name: 'Stop', exact: true }).count()).toBe(0);
    expect(await conversation(page).innerText()).not.toContain('Working…');
    await screenshot(page, 'window-vii-goal-draft-1024');

    await card.getByRole('button', { name: 'Start goal' }).click();
    await expect.poll(() => card.count()).toBe(0);
    // The agent's command asks as its own; the host's verify step asks as the goal's check, saying what refusing does.
    const badge = page.getByRole('button', { name: 'Goal: achieved', exact: true });
    let checkAsked = '';
    for (let i = 0; i < 240 && (await badge.count()) === 0; i++) {
      const pending = approval(page).first();
      if ((await pending.count()) > 0) {
        const text = await pending.innerText().catch(() => '');
        if (text.includes('Goal check') && checkAsked === '') {
          checkAsked = text;
          await screenshot(page, 'window-vii-goal-check-1024');
          // The window opened again while the host's check waits (the walkthrough's answer shown twice came from here).
          await page.reload();
          await page.getByRole('status', { name: 'Loading the thread' }).waitFor({ state: 'detached', timeout: 60_000 });
          continue;
        }
        await pending.getByRole('button', { name: 'Approve', exact: true }).click().catch(() => undefined);
      }
      await page.waitForTimeout(250);
    }
    await badge.waitFor({ timeout: 60_000 });
    expect(checkAsked).toContain('Goal check 1 of 1');
    expect(checkAsked).toMatch(/Reject it and the goal ends\s+blocked/);
    // The host's own run is marked on its card too; the agent's command is not.
    await expect.poll(() => conversation(page).getByRole('article', { name: /^execute node check\.js/ }).innerText()).toContain('Goal check 1 of 1');
    // Titled by its objective, not by the command that asked for it.
    await expect.poll(() => page.locator('.thread-heading').innerText()).toBe('Goal: make sum add');
    // The final answer once, live and after a reload.
    const count = async () => (await conversation(page).innerText()).split('Fixed the sum.').length - 1;
    await expect.poll(count).toBe(1);
    // The pill keeps one line in the header at 1024.
    const pill = await box(badge);
    const line = await badge.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 18);
    expect(pill.height).toBeLessThan(line * 1.8);
    await screenshot(page, 'window-vii-goal-achieved-1024');
    // The terminal lists the host's check once.
    await expect.poll(() => page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab', { name: /node check\.js/ }).count()).toBe(1);
    await page.reload();
    await page.getByRole('status', { name: 'Loading the thread' }).waitFor({ state: 'detached', timeout: 60_000 });
    await badge.waitFor();
    await expect.poll(count).toBe(1);
  });

  it('a stalled goal says why in the conversation, and still says it after a reload', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve({ settings: { rules: [{ tools: ['execute'], decision: 'allow' }] } });
    fixture(serve.folder);
    const again: ScriptStep = { toolCalls: [{ name: 'execute', args: { command: CHECK } }] };
    scriptGoal((s) => serve.model.push(s), [again, again, again, again, again]);
    const page = await openApp(e2e.browser, serve.url, SMALL);
    const card = await sendGoal(page);
    await card.getByRole('button', { name: 'Start goal' }).click();
    await page.getByRole('button', { name: 'Goal: stalled', exact: true }).waitFor({ timeout: 60_000 });
    await expect.poll(() => conversation(page).innerText()).toContain('The goal stopped:');
    await page.reload();
    await page.getByRole('status', { name: 'Loading the thread' }).waitFor({ state: 'detached', timeout: 60_000 });
    await expect.poll(() => conversation(page).innerText()).toContain('The goal stopped:');
  });
});

describe('candidates in the window at 1024×700', () => {
  it('a candidate whose model failed is failed with its reason (Agents view, Compare); rows and columns are numbered with their models; Compare is not cut and offers Apply once, primary on the best', { timeout: 240_000 }, async () => {
    const serve = await e2e.serve();
    fixture(serve.folder);
    const write = (body: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command: `printf '%s\\n' 'module.exports = (a, b) => ${body};' > sum.js` } }] });
    const refused: ScriptStep = { error: { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } } };
    const turns: Record<string, ScriptStep[]> = {
      'cand-a': Array.from({ length: 10 }, () => refused),
      'cand-b': [write('a + b'), { text: 'Changed sum to add.' }],
      'cand-c': [write('a * b'), { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }],
    };
    for (let i = 0; i < 80; i++) {
      serve.model.push((request: RecordedRequest): ScriptStep => (request.tools?.some((t) => t.function.name === 'record_verdict') ? grade(request) : (turns[request.model]?.shift() ?? { text: 'Nothing more.' })));
    }
    const page = await openApp(e2e.browser, serve.url, SMALL);
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    const models = ['cand-a', 'cand-b', 'cand-c'].flatMap((m) => ['--model', `openai-compatible:${m}`]);
    const run = spawn(
      process.execPath,
      [join(repo, 'bin/deepdesk.mjs'), 'run', '--folder', serve.folder, '--data-dir', serve.dataDir, '--base-url', serve.model.url, '--approve', 'auto', '--candidates', '3', ...models, '--goal', 'make sum add', '--verify', CHECK, '--json'],
      { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(await new Promise<number | null>((done) => run.on('close', done))).toBe(0);

    // Each candidate by its number and model; the failed one failed with its reason, never a paused goal.
    const set = agents.getByRole('list', { name: 'Candidates: make sum add' });
    await expect.poll(() => set.getByRole('listitem').count(), { timeout: 60_000 }).toBe(3);
    const rows = set.getByRole('listitem');
    for (const [i, model] of ['cand-a', 'cand-b', 'cand-c'].entries()) {
      await expect.poll(() => rows.nth(i).innerText()).toContain(`Candidate ${i + 1}`);
      expect(await rows.nth(i).innerText()).toContain(`openai-compatible:${model}`);
    }
    await expect.poll(() => rows.nth(0).innerText()).toContain('Failed');
    expect(await rows.nth(0).innerText()).toContain('Incorrect API key provided');
    expect(await rows.nth(0).innerText()).not.toContain('paused');
    await screenshot(page, 'window-vii-agents-candidates-1024');

    await agents.getByRole('button', { name: 'Compare', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Candidates' });
    const column = (n: number) => dialog.getByRole('region', { name: `Candidate ${n}` });
    await expect.poll(() => column(1).innerText(), { timeout: 60_000 }).toContain('failed');
    expect(await column(1).innerText()).toContain('Incorrect API key provided');
    expect(await column(1).innerText()).not.toContain('paused');
    expect(await column(2).innerText()).toContain('Ranked 1');
    expect(await column(2).innerText()).toContain('openai-compatible:cand-b');
    // Not cut: the dialog in the window, every column in the dialog, nothing scrolled sideways — at 1024 and at 1400.
    for (const size of [SMALL, { width: 1400, height: 900 }]) {
      await page.setViewportSize(size);
      await expect.poll(() => inside(page.locator('body'), dialog)).toBe(true);
      await expect.poll(() => inside(dialog, dialog.getByRole('region'))).toBe(true);
      expect(await dialog.locator('.candidate-columns').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await screenshot(page, `window-vii-compare-${size.width}`);
    }
    await page.setViewportSize(SMALL);
    // Apply: primary only on the one whose checks passed; once applied, not offered again.
    const applyOf = (n: number) => column(n).getByRole('button', { name: 'Apply', exact: true });
    expect(await applyOf(2).getAttribute('class')).toContain('btn-primary');
    expect(await applyOf(1).getAttribute('class')).not.toContain('btn-primary');
    expect(await applyOf(3).getAttribute('class')).not.toContain('btn-primary');
    await applyOf(2).click();
    await expect.poll(() => dialog.getByRole('status').innerText()).toContain('Applied candidate 2 to your folder');
    expect(readFileSync(join(serve.folder, 'sum.js'), 'utf8')).toContain('a + b');
    await expect.poll(() => applyOf(2).count()).toBe(0);
    expect(await column(2).innerText()).toContain('Applied to your folder');

    // Opening a candidate shows its thread (messages, Changes) while the window stays on the person's folder; Back is one step.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    const folderTitle = await page.title();
    const threads = page.getByRole('region', { name: 'Threads' });
    const listed = await threads.locator('.thread-item').count();
    await rows.nth(1).getByRole('button').first().click();
    await expect.poll(() => conversation(page).innerText(), { timeout: 60_000 }).toContain('Changed sum to add.');
    await expect.poll(() => page.getByRole('region', { name: 'Changes' }).innerText(), { timeout: 60_000 }).toContain('sum.js');
    expect(await page.title()).toBe(folderTitle);
    expect(await threads.locator('.thread-item').count()).toBe(listed);
    await screenshot(page, 'window-vii-candidate-beside-1024');
    await page.getByRole('button', { name: 'Back', exact: true }).click();
    await expect.poll(() => conversation(page).innerText()).not.toContain('Changed sum to add.');
    expect(await page.getByRole('button', { name: 'Back', exact: true }).count()).toBe(0);
    expect(await page.title()).toBe(folderTitle);
  });
});

describe('another agent’s thread in the window', async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available)('New thread with… keeps its name and size at 1024; the thread says whose it is in the header and the list, not Deepdesk’s model', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve({ settings: { agents: { added: [{ name: 'scripted', command: process.execPath, args: [SCRIPT], env: {} }] } } });
    const page = await openApp(e2e.browser, serve.url, SMALL);
    const start = page.getByRole('button', { name: 'New thread with…' });
    await start.waitFor({ timeout: 60_000 });
    const size = await box(start);
    expect(size.width).toBeGreaterThan(100);
    expect(size.height).toBeGreaterThanOrEqual(24);
    expect(await start.innerText()).toContain('New thread with…');
    await screenshot(page, 'window-vii-new-thread-with-1024');
    await start.click();
    const dialog = page.getByRole('dialog', { name: 'New thread with…' });
    await dialog.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    // The header names the agent where Deepdesk's model control was.
    const header = page.getByRole('banner');
    await expect.poll(() => header.getByRole('note', { name: 'Agent scripted' }).count(), { timeout: 60_000 }).toBe(1);
    expect(await header.getByRole('button', { name: /^Model / }).count()).toBe(0);
    await sendMessage(page, 'say hello from the scripted agent');
    await expect.poll(() => conversation(page).innerText(), { timeout: 60_000 }).toContain('hello from the scripted agent');
    // The thread list names it too.
    const threads = page.getByRole('region', { name: 'Threads' });
    await expect.poll(() => threads.locator('.thread-item.current').innerText()).toContain('scripted');
    await screenshot(page, 'window-vii-agent-thread-1024');
    // A thread of Deepdesk's own shows the model again.
    await threads.getByRole('button', { name: 'New thread', exact: true }).press('Enter');
    await expect.poll(() => header.getByRole('button', { name: /^Model / }).count()).toBe(1);
  });
});

describe('a command another agent runs', async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available)('told as its call, then run in a terminal (as Claude Code runs its Bash), is listed once: one card, asked on it, and one Terminal tab', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve({ settings: { agents: { added: [{ name: 'scripted', command: process.execPath, args: [SCRIPT], env: {} }] } } });
    const page = await openApp(e2e.browser, serve.url, SMALL);
    await page.getByRole('button', { name: 'New thread with…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New thread with…' });
    await dialog.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await sendMessage(page, 'bash echo listed-$((40+2)) ;; say Ran it.');
    // The folder's mode asks for the command: on the call's own card.
    const card = approval(page).first();
    await card.waitFor({ timeout: 60_000 });
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    // Its answer, after the person's message that holds the same words.
    await expect.poll(async () => (await conversation(page).innerText()).split('Ran it.').length - 1, { timeout: 60_000 }).toBe(2);
    const cards = conversation(page).getByRole('article').filter({ hasText: 'echo listed-$((40+2))' });
    await expect.poll(() => cards.count()).toBe(1);
    await expect.poll(() => cards.innerText()).toContain('listed-42');
    expect(await cards.innerText()).not.toContain('Stopped');
    const tabs = page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab').filter({ hasText: 'echo listed-' });
    await expect.poll(() => tabs.count()).toBe(1);
  });
});

describe('installing an agent in the window', () => {
  it('is never reported failed while npm works: it streams npm’s progress past the 30 s call limit, is still installing when Settings opens again, and ends saying it is installed', { timeout: 180_000 }, async () => {
    const agent = knownAgent('claude-code')!;
    const registry = await startSlowRegistry(agent);
    try {
      const serve = await e2e.serve({ env: registry.env });
      const page = await openApp(e2e.browser, serve.url, SMALL);
      // The page's clock is the test's: the call's time can be moved past any limit at once.
      await page.clock.install();
      const openSettings = async (): Promise<Locator> => {
        await page.getByRole('button', { name: 'Settings', exact: true }).click();
        return page.getByRole('dialog', { name: 'Settings' });
      };
      let settings = await openSettings();
      await settings.getByRole('button', { name: 'Install Claude Code' }).click();
      await settings.getByRole('group', { name: 'Install Claude Code?' }).getByRole('button', { name: 'Install', exact: true }).click();
      await expect.poll(() => registry.tarballAsked, { timeout: 60_000 }).toBe(true);
      // npm's requests as they come.
      const status = settings.getByRole('status').filter({ hasText: 'Installing…' });
      await expect.poll(() => status.innerText(), { timeout: 60_000 }).toContain('npm http ');
      await page.clock.fastForward('02:00');
      await page.keyboard.press('Escape');
      settings = await openSettings();
      // Still installing: not failed, not offered again.
      expect(await settings.getByRole('alert').count()).toBe(0);
      await expect.poll(() => settings.getByRole('button', { name: 'Install Claude Code' }).innerText()).toBe('Installing…');
      expect(await settings.getByRole('button', { name: 'Install Claude Code' }).isDisabled()).toBe(true);
      registry.release();
      await expect.poll(() => settings.getByRole('status').filter({ hasText: 'is installed' }).innerText(), { timeout: 60_000 }).toBe(`Claude Code ${agent.version} is installed.`);
      await expect.poll(() => settings.getByRole('list', { name: 'Agents' }).innerText()).toContain(`${agent.packageName}@${agent.version} · Installed`);
      expect(await settings.getByRole('alert').count()).toBe(0);
      await page.context().close();
    } finally {
      await registry.close();
    }
  });
});
