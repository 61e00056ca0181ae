// `/goal` in the window (SPEC §21): the agent drafts criteria and verify steps, shown as an
// editable card; accepted, the goal starts, the host runs the verify step itself (asked like
// the agent's own command) and the header shows the state, with its evidence one click away.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, openApp, useE2ESession } from './harness';

const e2e = useE2ESession();
const CHECK = 'node check.js';

describe('goals in the window', () => {
  it('/goal → an editable draft card → Start goal → the host checks it → the header says achieved, the evidence shows the host’s run', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve();
    writeFileSync(join(serve.folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
    writeFileSync(join(serve.folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL'); process.exit(1); }\nconsole.log('ok: sum(2, 3) = 5');\n");
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: serve.folder, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'fixture');

    const turns: ScriptStep[] = [{ toolCalls: [{ name: 'execute', args: { command: "printf '%s\\n' 'module.exports = (a, b) => a + b;' > sum.js" } }] }, { text: 'Fixed.' }];
    let graderPrompt = '';
    for (let i = 0; i < 12; i++) {
      serve.model.push((request: RecordedRequest): ScriptStep => {
        const tools = request.tools?.map((t) => t.function.name) ?? [];
        if (tools.includes('propose_goal')) return { toolCalls: [{ name: 'propose_goal', args: { criteria: ['sum adds'], verify: [{ command: CHECK, expectedExitCode: 0 }] } }] };
        if (tools.includes('record_verdict')) {
          graderPrompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
          return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ FAILED/.test(graderPrompt) ? 'needs_revision' : 'satisfied', reason: 'from the evidence' }] } }] };
        }
        return turns.shift() ?? { text: 'Nothing more.' };
      });
    }

    const page = await openApp(e2e.browser, serve.url);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('/goal make sum add');
    await box.press('Enter');
    const card = page.getByRole('region', { name: 'Goal draft' });
    await card.waitFor();
    await expect.poll(() => card.getByRole('textbox', { name: 'Verify command 1' }).inputValue()).toBe(CHECK);
    // The draft is kept with its thread, not only in the reply that brought it: a window that opens the thread shows it.
    await page.reload();
    await card.waitFor();
    await expect.poll(() => card.getByRole('textbox', { name: 'Verify command 1' }).inputValue()).toBe(CHECK);
    // The person edits the criteria before accepting.
    await card.getByRole('textbox', { name: 'Criteria' }).fill('sum(2, 3) is 5');
    await card.getByRole('button', { name: 'Start goal' }).click();
    await expect.poll(() => card.count()).toBe(0);
    // While its run waits for the person (the agent's command asks), the Agents view shows the goal's state.
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    await expect.poll(() => agents.getByRole('listitem').first().innerText(), { timeout: 60_000 }).toContain('Goal: pursuing');

    // The agent's command and the host's verify step each ask (the folder's mode asks for commands).
    const badge = page.getByRole('button', { name: 'Goal: achieved', exact: true });
    for (let i = 0; i < 240 && (await badge.count()) === 0; i++) {
      const pending = approval(page).first().getByRole('button', { name: 'Approve', exact: true });
      if ((await pending.count()) > 0) await pending.click().catch(() => undefined);
      await page.waitForTimeout(250);
    }
    await badge.waitFor({ timeout: 60_000 });
    expect(graderPrompt).toContain('sum(2, 3) is 5');
    expect(graderPrompt).toContain('exit code 0');
    expect(graderPrompt).not.toContain('Fixed.');
    await badge.click();
    const dialog = page.getByRole('dialog', { name: 'Goal evidence' });
    await dialog.waitFor();
    await expect.poll(() => dialog.innerText()).toContain(`${CHECK} exited 0 (expected 0) — passed`);
    await expect.poll(() => dialog.innerText()).toContain('ok: sum(2, 3) = 5');
  });
  it('Settings › Goals: revision rounds set to 1 in the window → the next goal of a lying agent ends unmet after one revision round', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve();
    writeFileSync(join(serve.folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
    writeFileSync(join(serve.folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL'); process.exit(1); }\n");
    let graderCalls = 0;
    for (let i = 0; i < 12; i++) {
      serve.model.push((request: RecordedRequest): ScriptStep => {
        const tools = request.tools?.map((t) => t.function.name) ?? [];
        if (tools.includes('propose_goal')) return { toolCalls: [{ name: 'propose_goal', args: { criteria: ['sum adds'], verify: [{ command: CHECK, expectedExitCode: 0 }] } }] };
        if (tools.includes('record_verdict')) {
          graderCalls++;
          return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: 'needs_revision', reason: 'the check fails' }] } }] };
        }
        // The agent claims a fix it never made.
        return { text: 'Fixed: sum adds now.' };
      });
    }

    const page = await openApp(e2e.browser, serve.url);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.waitFor();
    const goals = settings.getByRole('group', { name: 'Goals' });
    await goals.getByRole('spinbutton', { name: 'Revision rounds' }).fill('1');
    await goals.getByRole('textbox', { name: 'Budget for a set of candidates (USD)' }).fill('2.5');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => settings.count()).toBe(0);
    expect(JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8'))).toMatchObject({ goals: { maxRounds: 1, candidatesBudgetUsd: 2.5 } });
    // Run N candidates… shows it is the set's budget when its own is left empty.
    await page.getByRole('button', { name: 'Run N candidates…' }).click();
    const run = page.getByRole('dialog', { name: 'Run candidates' });
    expect(await run.getByLabel('Budget for the set (USD, optional)').getAttribute('placeholder')).toBe('Settings › Goals: 2.5');
    await run.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => run.count()).toBe(0);

    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('/goal make sum add');
    await box.press('Enter');
    const card = page.getByRole('region', { name: 'Goal draft' });
    await card.getByRole('button', { name: 'Start goal' }).click();
    const badge = page.getByRole('button', { name: 'Goal: unmet', exact: true });
    for (let i = 0; i < 240 && (await badge.count()) === 0; i++) {
      const pending = approval(page).first().getByRole('button', { name: 'Approve', exact: true });
      if ((await pending.count()) > 0) await pending.click().catch(() => undefined);
      await page.waitForTimeout(250);
    }
    await badge.waitFor();
    // Graded once, sent back once (the one revision round), graded again, ended: with the default 3 it would go back three times.
    expect(graderCalls).toBe(2);
  });
});
