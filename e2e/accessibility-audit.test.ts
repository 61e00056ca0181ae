// Issue 27, the audit: axe-core's WCAG 2.0–2.2 A/AA rules find no serious or critical
// violation in the eight states of the window the audit looked at (empty window, mode offer,
// Settings, Memories, an approval waiting, a command running, a long Markdown answer,
// Changes with a diff), at 1400×900 and 1024×700, in the light and the dark theme.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { auditEveryWay, describeViolations, type AxeViolation } from './axe';
import { approval, conversation, openApp, repo, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();

const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000 });

const LONG_ANSWER = [
  '# Why the total is off',
  '',
  'The **rounding** happens *before* the sum, so cents drift. See `src/total.ts` and [the notes](notes.txt).',
  '',
  '## What to change',
  '',
  '1. Sum in cents.',
  '2. Round once, at the end.',
  '',
  '| File | Lines | Change |',
  '| --- | --- | --- |',
  '| src/total.ts | 12–30 | sum in cents |',
  '| src/format.ts | 4 | round once |',
  '',
  '```ts',
  `export const total = (items: Item[]): number => items.reduce((sum, item) => sum + Math.round(item.price * 100) * item.quantity, 0) / 100; // ${'a very long line '.repeat(12)}`,
  '```',
  '',
  '> A quote, for the record.',
  '',
  ...Array.from({ length: 30 }, (_, i) => `- Point ${i + 1}: more text so the answer is long enough to scroll.`),
].join('\n');

const everyWay: Record<string, Record<string, AxeViolation[]>> = {};

async function audit(page: Page, state: string): Promise<void> {
  const found = await auditEveryWay(page);
  if (Object.keys(found).length > 0) everyWay[state] = found;
}

function report(): string {
  return Object.entries(everyWay)
    .map(([state, ways]) => Object.entries(ways).map(([way, v]) => `### ${state} — ${way}\n${describeViolations(v)}`).join('\n'))
    .join('\n');
}

describe('the axe audit (WCAG 2.2 AA, serious and critical)', () => {
  // 8 states × 4 ways of axe over a large page: bounded only against a hang (a loaded machine takes minutes).
  it('finds nothing in the eight states, at both sizes, in both themes', { timeout: 15 * 60_000 }, async () => {
    const serve = await e2e.serve({
      settings: { rules: [{ tools: ['execute'], decision: 'allow' }] },
      script: [
        { toolCalls: [{ name: 'write_todos', args: { todos: [{ content: 'Read the code', status: 'completed' }, { content: 'Write the notes', status: 'in_progress' }] } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'echo checked; exit 1' } }] },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/notes.txt', content: 'first line\nsecond line\n' } }] },
        { text: LONG_ANSWER },
        // Dim text (SGR 2) too: xterm draws it at half its colour's opacity unless told otherwise.
        { toolCalls: [{ name: 'execute', args: { command: "printf '\\033[2mdim text\\033[0m\\n'; echo started; sleep 60" } }] },
        { text: 'Stopped.' },
      ],
    });
    execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'memories', 'write', '/memories/style.md', '--folder', serve.folder, '--data-dir', serve.dataDir], { input: 'Use tabs.\n' });
    const page = await openApp(e2e.browser, serve.url);
    const log = conversation(page);

    await audit(page, 'empty window');

    await page.getByRole('button', { name: 'Show mode choices for this new folder' }).click();
    await page.getByRole('group', { name: /How much may the agent do on its own/ }).waitFor();
    await audit(page, 'mode offer');
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByRole('dialog').waitFor();
    await audit(page, 'Settings');
    await page.keyboard.press('Escape');
    await poll(() => page.getByRole('dialog').count()).toBe(0);

    const memories = page.getByRole('region', { name: 'Memories' });
    await poll(() => memories.innerText()).toContain('style.md');
    await audit(page, 'Memories');

    await sendMessage(page, 'Fix the total');
    await approval(page).first().waitFor({ timeout: 60_000 });
    await audit(page, 'an approval waiting');
    // A card is named by tool, target and status (not "Tool call execute").
    expect(await log.getByRole('article', { name: 'execute echo checked; exit 1 — Failed · exit 1', exact: true }).count()).toBe(1);

    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await log.getByText('A quote, for the record.').waitFor({ timeout: 60_000 });
    await audit(page, 'a long Markdown answer');

    const changes = page.getByRole('region', { name: 'Changes' });
    await poll(() => changes.getByRole('figure', { name: 'Changes to /notes.txt' }).innerText()).toContain('second line');
    await audit(page, 'Changes with a diff');

    await sendMessage(page, 'Run it');
    await poll(() => page.getByRole('region', { name: 'Terminal' }).innerText()).toContain('started');
    await poll(() => page.getByRole('region', { name: 'Terminal' }).locator('.xterm-dim').count()).toBeGreaterThan(0);
    await audit(page, 'a command running');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();

    expect(report()).toBe('');
    await page.context().close();
  });
});
