// SPEC §26 in the window, in headless Chromium against `deepdesk serve`: Settings › Model ›
// Subagent model is what a subagent then runs on (the scripted server sees the model asked
// for), and the task's card says `Ran on` it; the Usage view says of a thread whose 4th turn
// cost 3× the median of its earlier ones `Turn 4: cost ×3 the thread's median`.

import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { databasePath } from '../src-main/app/base/data-dir';
import { ThreadStore } from '../src-main/app/threads/thread-store';
import { newThreadState } from '../src-main/core/agent/types';
import { openDatabase } from '../src-main/core/backends/store/store';
import type { ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { UsageLedger } from '../src-main/core/telemetry/usage-ledger';
import { conversation, openApp, sendMessage, useE2ESession } from './harness';

const session = useE2ESession();
const pages: Page[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
});

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

describe('cheaper subagents', () => {
  it('Settings › Model › Subagent model is what a subagent runs on; its card says so', { timeout: 120_000 }, async () => {
    const delegate: ScriptStep = (req) => {
      const system = JSON.stringify(req.messages[0]?.content ?? '');
      if (system.includes('You are a subagent')) return { text: 'Looked around.' };
      return req.messages.some((m) => m.role === 'tool') ? { text: 'All done.' } : { toolCalls: [{ name: 'task', args: { description: 'look around', subagent_type: 'general-purpose' } }] };
    };
    const serve = await session.serve({ script: [delegate, delegate, delegate] });
    const page = await openApp(session.browser, serve.url);
    pages.push(page);

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.getByRole('group', { name: 'Model' }).getByRole('textbox', { name: 'Subagent model' }).fill('openai-compatible:cheap-model');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => settings.count()).toBe(0);
    expect(JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8'))).toMatchObject({ models: { subagent: 'openai-compatible:cheap-model' } });

    await sendMessage(page, 'delegate it');
    await conversation(page).getByText('All done.', { exact: true }).waitFor({ timeout: 60_000 });
    expect(serve.model.requests.map((r) => r.model)).toEqual(['scripted-model', 'cheap-model', 'scripted-model']);
    expect(await conversation(page).getByText('Ran on openai-compatible:cheap-model', { exact: true }).isVisible()).toBe(true);
    // After a reload, from the stored result.
    await page.reload();
    await conversation(page).getByText('Ran on openai-compatible:cheap-model', { exact: true }).waitFor({ timeout: 60_000 });
  });
});

describe('cost drift', () => {
  it('the Usage view says of a thread’s turn that cost 3× its median: cost ×3 the thread’s median', { timeout: 120_000 }, async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-folder-')));
    const dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-data-'));
    const db = openDatabase(databasePath(dataDir));
    try {
      const threads = new ThreadStore(db);
      for (const [id, title] of [
        ['drifted', 'Nightly refactor'],
        ['steady', 'Steady work'],
      ] as const) threads.save({ ...newThreadState(id), messages: [{ role: 'user', content: title }] }, { folder });
      const ledger = new UsageLedger(db);
      const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
      const call = { purpose: 'agent' as const, provider: 'anthropic' as const, model: 'claude-sonnet-4-5', system: '', messages: [], tools: [] };
      // Each turn: one step asking for a tool call, then the answer.
      const turn = (threadId: string, n: number, usd: number) => {
        const run = ledger.telemetry().turn({ threadId, turn: n, agentName: 'deepdesk', depth: 0, provider: 'anthropic', model: 'claude-sonnet-4-5' });
        run.modelCall(call).end({ usage: zero, costUsd: usd / 2, durationMs: 1, toolCalls: [{ id: 'c1', name: 'ls', args: {} }] });
        run.modelCall(call).end({ usage: zero, costUsd: usd / 2, durationMs: 1, toolCalls: [] });
      };
      for (const [n, usd] of [0.01, 0.01, 0.01, 0.03].entries()) turn('drifted', n + 1, usd);
      for (const [n, usd] of [0.01, 0.01, 0.01, 0.01].entries()) turn('steady', n + 1, usd);
      ledger.close();
    } finally {
      db.close();
    }
    const serve = await session.serve({ folder, dataDir });
    const page = await openApp(session.browser, serve.url);
    pages.push(page);
    await page.getByRole('banner').getByRole('button', { name: 'Usage', exact: true }).click();
    const usage = page.getByRole('region', { name: 'Usage', exact: true });
    const row = (label: string) => usage.getByRole('row').filter({ has: page.getByRole('rowheader').filter({ hasText: label }) });
    await row('Nightly refactor').waitFor();
    expect(await row('Nightly refactor').getByRole('rowheader').innerText()).toContain("Turn 4: cost ×3 the thread's median");
    expect(await row('Steady work').getByRole('rowheader').innerText()).not.toContain('median');
  });
});
