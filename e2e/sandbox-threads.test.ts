// Sandbox providers in the window (SPEC §18), in headless Chromium against `deepdesk serve` and
// the Daytona stand-in (the real @daytonaio/sdk pointed at it): Settings › Sandboxes saves a key
// and never shows it back; `New thread in a sandbox…` says why not (no key), then makes the
// worktree thread whose session makes the sandbox and uploads the folder (the upload line is a
// notice); the thread header, the `execute` approval and the Agents view say `Runs in Daytona ·
// sandbox ID`; what the agent wrote in the sandbox comes back to the worktree; a worktree
// thread `Continue in a sandbox…` becomes a sandbox thread.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaytonaStandin } from '../src-main/core/sandbox-providers/testing/daytona-standin';
import type { ProviderStandin } from '../src-main/core/sandbox-providers/testing/standin';
import { approval, conversation, openApp, sendMessage, useE2ESession } from './harness';
import { shortSandboxId } from '../src-main/app/contract/sandboxes';

const session = useE2ESession();
const NO_PROVIDER_KEYS = { DAYTONA_API_KEY: '', DAYTONA_API_URL: '', E2B_API_KEY: '', MODAL_TOKEN_ID: '', MODAL_TOKEN_SECRET: '', DENO_DEPLOY_TOKEN: '' };
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 60_000 });

let standin: ProviderStandin | undefined;
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

function repository(): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-sandbox-')));
  writeFileSync(join(folder, 'README.md'), '# project\n');
  git(folder, 'init', '-q', '-b', 'main');
  git(folder, 'add', '-A');
  git(folder, 'commit', '-q', '-m', 'base');
  return folder;
}

/** What is cramped in a sandbox thread's window: overlapping head items, a squeezed title, a row wider than its panel. */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const box = (el: Element | null) => el?.getBoundingClientRect();
    const overlap = (a: DOMRect, b: DOMRect) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const title = box(document.querySelector('.thread-heading'));
    const badge = box(document.querySelector('.thread-runs-in'));
    if (!title || !badge) problems.push('no title or badge');
    else {
      if (overlap(title, badge)) problems.push('the badge overlaps the title');
      if (title.width < 110) problems.push(`the title is ${Math.round(title.width)} px wide`);
      if (Math.abs(title.top - badge.top) > 12) problems.push('the badge wrapped below the title');
    }
    for (const row of document.querySelectorAll<HTMLElement>('.agent-meta, .agent-line')) {
      if (row.scrollWidth > row.clientWidth + 1) problems.push(`an Agents row overflows: ${row.innerText}`);
    }
    const threadsHead = document.querySelector('.thread-list > .panel-head');
    const threadsTitle = threadsHead?.querySelector<HTMLElement>('.panel-title');
    if (threadsTitle) {
      if (threadsTitle.scrollWidth > threadsTitle.clientWidth + 1) problems.push('THREADS is cut');
      for (const button of threadsHead!.querySelectorAll('button')) {
        if (overlap(threadsTitle.getBoundingClientRect(), button.getBoundingClientRect())) problems.push(`THREADS is under ${button.getAttribute('aria-label') ?? button.textContent}`);
      }
    }
    return problems;
  });
}

const header = (page: Page) => page.getByRole('region', { name: 'Chat' }).locator('.thread-runs-in');
const notifications = (page: Page) => page.getByRole('region', { name: 'Notifications' });

describe('sandbox threads in the window', () => {
  it('Settings › Sandboxes saves a provider key without showing it back, and the provider, sizes and price', async () => {
    const serve = await session.serve({ env: NO_PROVIDER_KEYS });
    const page = await openApp(session.browser, serve.url);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const section = dialog.getByRole('group', { name: 'Sandboxes' });
    await section.getByRole('combobox', { name: 'Sandbox service' }).selectOption('e2b');
    // E2B sizes by template: no CPU or memory asked.
    await poll(() => section.getByRole('textbox', { name: 'CPUs' }).count()).toBe(0);
    // Deno takes memory, no CPU count.
    await section.getByRole('combobox', { name: 'Sandbox service' }).selectOption('deno');
    await poll(() => section.getByRole('textbox', { name: 'CPUs' }).count()).toBe(0);
    await poll(() => section.getByRole('textbox', { name: 'Memory (GiB)' }).count()).toBe(1);
    await section.getByRole('combobox', { name: 'Sandbox service' }).selectOption('daytona');
    await section.getByRole('textbox', { name: 'CPUs' }).fill('2');
    await section.getByRole('textbox', { name: 'Memory (GiB)' }).fill('4');
    await section.getByRole('textbox', { name: 'Idle timeout (minutes)' }).fill('15');
    await section.getByRole('textbox', { name: 'Upload cap (MB)' }).fill('50');
    await section.getByRole('textbox', { name: 'Price per hour for Daytona (USD)' }).fill('0.25');

    const secret = 'dtn-secret-key-9f8e7d';
    const key = section.getByLabel('Daytona key DAYTONA_API_KEY');
    await key.fill(secret);
    await section.getByRole('button', { name: 'Save DAYTONA_API_KEY' }).click();
    await poll(() => section.getByText('A key is stored for DAYTONA_API_KEY.').count()).toBe(1);
    // The window hears of the stored key (settings changed) before the call that stored it
    // answers and empties the field: both are polled.
    await poll(() => key.inputValue()).toBe('');
    await poll(() => page.content()).not.toContain(secret);
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => dialog.count()).toBe(0);
    const saved = JSON.parse(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(saved.sandboxes).toEqual({ provider: 'daytona', cpu: 2, memoryGiB: 4, idleTimeoutMin: 15, maxUploadMb: 50, pricesPerHourUsd: { daytona: 0.25 } });
    expect(readFileSync(join(serve.dataDir, 'settings.json'), 'utf8')).not.toContain(secret);

    // Opened again: the values as saved, the key only as stored.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const again = page.getByRole('dialog', { name: 'Settings' }).getByRole('group', { name: 'Sandboxes' });
    await poll(() => again.getByRole('combobox', { name: 'Sandbox service' }).inputValue()).toBe('daytona');
    await poll(() => again.getByRole('textbox', { name: 'CPUs' }).inputValue()).toBe('2');
    await poll(() => again.getByLabel('Daytona key DAYTONA_API_KEY').inputValue()).toBe('');
    await poll(() => again.getByText('A key is stored for DAYTONA_API_KEY.').count()).toBe(1);
    expect(await page.content()).not.toContain(secret);
  });

  it('Settings › Sandboxes shows the chosen service’s key and price (the others behind a disclosure), and Test key says refused or accepted', async () => {
    const daytona = (standin = await startDaytonaStandin());
    const serve = await session.serve({ env: { ...NO_PROVIDER_KEYS, DAYTONA_API_URL: daytona.env.DAYTONA_API_URL! } });
    const page = await openApp(session.browser, serve.url);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const section = page.getByRole('dialog', { name: 'Settings' }).getByRole('group', { name: 'Sandboxes' });
    await section.getByRole('combobox', { name: 'Sandbox service' }).selectOption('daytona');
    await section.getByLabel('Daytona key DAYTONA_API_KEY').waitFor();
    expect(await section.getByRole('textbox', { name: 'Price per hour for Daytona (USD)' }).isVisible()).toBe(true);
    // Another service's key and price are there, behind the disclosure.
    expect(await section.getByLabel('E2B key E2B_API_KEY').isVisible()).toBe(false);
    expect(await section.getByRole('textbox', { name: 'Price per hour for E2B (USD)' }).isVisible()).toBe(false);
    await section.getByText('Other services’ keys and prices').click();
    await poll(() => section.getByLabel('E2B key E2B_API_KEY').isVisible()).toBe(true);

    const daytonaGroup = section.getByRole('group', { name: 'Daytona' });
    const result = daytonaGroup.locator('.sandbox-test-key [role="status"]');
    // No key: says so.
    await daytonaGroup.getByRole('button', { name: 'Test Daytona key' }).click();
    await poll(() => result.innerText()).toMatch(/Daytona needs DAYTONA_API_KEY/);
    // A wrong key: refused.
    await section.getByLabel('Daytona key DAYTONA_API_KEY').fill('not-the-key');
    await section.getByRole('button', { name: 'Save DAYTONA_API_KEY' }).click();
    await poll(() => section.getByText('A key is stored for DAYTONA_API_KEY.').count()).toBe(1);
    await daytonaGroup.getByRole('button', { name: 'Test Daytona key' }).click();
    await poll(() => result.innerText()).toMatch(/^Daytona refused the key/);
    // The right one: accepted.
    await section.getByLabel('Daytona key DAYTONA_API_KEY').fill(daytona.env.DAYTONA_API_KEY!);
    await section.getByRole('button', { name: 'Save DAYTONA_API_KEY' }).click();
    // Stored once the call that stores it has answered (the field is emptied then).
    await poll(() => section.getByLabel('Daytona key DAYTONA_API_KEY').inputValue()).toBe('');
    await daytonaGroup.getByRole('button', { name: 'Test Daytona key' }).click();
    await poll(() => result.innerText()).toMatch(/^Daytona accepted the key/);
  });

  it('New thread in a sandbox… says why not without a key, then runs the thread in Daytona: header, approval and Agents view say so, and the file comes back', async () => {
    const daytona = (standin = await startDaytonaStandin());
    const folder = repository();
    const serve = await session.serve({
      folder,
      env: NO_PROVIDER_KEYS,
      script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo from-the-sandbox > made.txt' } }] }, { text: 'Made it.' }],
    });
    const page = await openApp(session.browser, serve.url);

    // No key anywhere: the one line naming the variable and Settings.
    await page.getByRole('button', { name: 'New thread in a sandbox…', exact: true }).click();
    let dialog = page.getByRole('dialog', { name: 'New thread in a sandbox…' });
    await poll(() => dialog.getByRole('alert').innerText()).toBe('Daytona needs DAYTONA_API_KEY: set it in the environment or in Settings › Sandboxes.');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // The key and the stand-in's address saved in Settings (the address is an endpoint variable: given through the environment here).
    await serve.stop({ keepData: true });
    const served = await session.serve({
      folder,
      dataDir: serve.dataDir,
      env: { ...NO_PROVIDER_KEYS, ...daytona.env },
      script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo from-the-sandbox > made.txt' } }] }, { text: 'Made it.' }],
    });
    const window = await openApp(session.browser, served.url);
    await window.getByRole('button', { name: 'New thread in a sandbox…', exact: true }).click();
    dialog = window.getByRole('dialog', { name: 'New thread in a sandbox…' });
    await poll(() => dialog.getByRole('combobox', { name: 'Sandbox service' }).inputValue()).toBe('daytona');
    // It says what goes up, what it costs and when it stops, and takes a name.
    const terms = dialog.getByRole('list', { name: 'What this sandbox costs and holds' });
    await poll(() => terms.innerText()).toContain(folder);
    expect(await terms.innerText()).toMatch(/Price: not priced[\s\S]*Stops when idle after: Daytona’s default/);
    await dialog.getByRole('textbox', { name: 'Name (optional)' }).fill('in-the-cloud');
    const start = dialog.getByRole('button', { name: 'Start in sandbox' });
    await poll(() => start.getAttribute('aria-disabled')).toBe('false');
    await start.click();

    // The worktree thread folder is open, in the stand-in's sandbox: the header says where, the upload is told.
    await poll(() => daytona.boxes.size).toBe(1);
    const [sandboxId] = [...daytona.boxes.keys()];
    // The badge shows the short ID; the whole one is its accessible name and tooltip.
    await poll(() => header(window).innerText()).toBe(`Runs in Daytona · sandbox ${shortSandboxId(sandboxId!)}`);
    expect(await header(window).getAttribute('aria-label')).toBe(`Runs in Daytona · sandbox ${sandboxId}`);
    expect(await header(window).getAttribute('title')).toContain(sandboxId);
    await poll(() => notifications(window).innerText()).toMatch(new RegExp(`Uploaded 1 file \\(.*\\) to the Daytona sandbox ${sandboxId}`));
    // A calm notice (a status, not an alert), two lines at most; the thread keeps it, with how to send less or more.
    const uploadNotice = notifications(window).locator('.toast').filter({ hasText: 'Uploaded 1 file' });
    expect(await uploadNotice.getAttribute('role')).toBe('status');
    expect((await uploadNotice.boundingBox())!.height).toBeLessThan(56);
    await poll(() => conversation(window).innerText()).toMatch(/Uploaded 1 file .*nothing was left out\. To leave more out, add it to the folder’s \.gitignore; to send more, raise Upload cap \(MB\) in Settings › Sandboxes\./);
    const worktree = window.getByRole('group', { name: 'Worktree' });
    await poll(() => worktree.innerText()).toContain('deepdesk/in-the-cloud');
    expect(await window.getByRole('button', { name: 'Continue in a sandbox…' }).count()).toBe(0);

    await sendMessage(window, 'Make the file');
    const ask = approval(window).first();
    await poll(() => ask.innerText()).toContain(`Runs in Daytona · sandbox ${sandboxId}`);
    expect(await ask.innerText()).not.toContain('Runs on this computer');

    // The Agents view's row, read while the run waits for the person: once it finishes with the
    // window looking at it, the row leaves the view (it was seen, Workspace.tsx), a few hundred ms later.
    const agents = window.getByRole('region', { name: 'Agents', exact: true });
    await poll(() => agents.getByRole('listitem').filter({ hasText: 'Make the file' }).innerText()).toContain(`Runs in Daytona · sandbox ${shortSandboxId(sandboxId!)}`);
    // At both sizes: the title keeps room beside the badge, nothing overlaps, nothing runs out sideways.
    const size = window.viewportSize();
    for (const [width, height] of [
      [1400, 900],
      [1024, 700],
    ] as const) {
      await window.setViewportSize({ width, height });
      await poll(() => layoutProblems(window)).toEqual([]);
    }
    if (size) await window.setViewportSize(size);
    await ask.getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(window).getByText('Made it.').waitFor({ timeout: 60_000 });

    // What the agent wrote in the sandbox is in the worktree, not in the person's folder.
    const info = (await window.evaluate(() => document.querySelector('.header-folder')?.getAttribute('title'))) ?? '';
    await poll(() => existsSync(join(info, 'made.txt'))).toBe(true);
    expect(readFileSync(join(info, 'made.txt'), 'utf8')).toBe('from-the-sandbox\n');
    expect(existsSync(join(folder, 'made.txt'))).toBe(false);

    // The command is shown in the thread's Terminal, as a local one is.
    await window.getByRole('region', { name: 'Terminal' }).getByRole('tablist', { name: 'Terminals' }).getByRole('tab', { name: /echo from-the-sandbox/ }).waitFor({ timeout: 60_000 });

  });

  it('Continue in a sandbox… makes a worktree thread a Daytona sandbox thread', async () => {
    const daytona = (standin = await startDaytonaStandin());
    const folder = repository();
    const serve = await session.serve({ folder, env: { ...NO_PROVIDER_KEYS, ...daytona.env } });
    const page = await openApp(session.browser, serve.url);
    await page.getByRole('button', { name: 'New thread in a worktree', exact: true }).click();
    const made = page.getByRole('dialog', { name: 'New thread in a worktree' });
    await made.getByRole('textbox', { name: 'Name (optional)' }).fill('later-up');
    await made.getByRole('button', { name: 'Create worktree' }).click();
    const worktree = page.getByRole('group', { name: 'Worktree' });
    await poll(() => worktree.innerText()).toContain('deepdesk/later-up');
    expect(await header(page).count()).toBe(0);

    await page.getByRole('region', { name: 'Chat' }).getByRole('button', { name: 'Continue in a sandbox…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Continue in a sandbox…' });
    const go = dialog.getByRole('button', { name: 'Continue in sandbox' });
    await poll(() => go.getAttribute('aria-disabled')).toBe('false');
    await go.click();
    await poll(() => daytona.boxes.size).toBe(1);
    const [sandboxId] = [...daytona.boxes.keys()];
    await poll(() => header(page).innerText()).toBe(`Runs in Daytona · sandbox ${shortSandboxId(sandboxId!)}`);
    await poll(() => worktree.innerText()).toContain('deepdesk/later-up');
    await poll(() => page.getByRole('button', { name: 'Continue in a sandbox…' }).count()).toBe(0);
  });
});
