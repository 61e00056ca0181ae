// A sandbox thread's whole life in the window (SPEC §18, §8, §16), in headless Chromium against
// `deepdesk serve` and the Daytona stand-in (the real @daytonaio/sdk pointed at it): Changes lists
// only what a command changed and Revert restores just that file; a sandbox stopped by the service
// is started again by the next command, whose output reaches the Terminal line by line; a sandbox
// deleted under the thread is said, with both ways forward (a new sandbox from the worktree, or
// this computer), each taken; the first Enter in a just-opened sandbox thread is never dropped.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createDaytonaProvider } from '../src-main/core/sandbox-providers/daytona/daytona-provider';
import { startDaytonaStandin } from '../src-main/core/sandbox-providers/testing/daytona-standin';
import type { ProviderStandin } from '../src-main/core/sandbox-providers/testing/standin';
import { shortSandboxId } from '../src-main/app/contract';
import { approval, conversation, openApp, sendMessage, useE2ESession } from './harness';

const session = useE2ESession();
const NO_PROVIDER_KEYS = { DAYTONA_API_KEY: '', DAYTONA_API_URL: '', E2B_API_KEY: '', MODAL_TOKEN_ID: '', MODAL_TOKEN_SECRET: '', DENO_DEPLOY_TOKEN: '' };
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 60_000 });

let standin: ProviderStandin | undefined;
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

/** A repository of several files: what a thread changes must stand out among them. */
function repository(): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-sandbox-life-')));
  writeFileSync(join(folder, 'README.md'), '# project\n');
  writeFileSync(join(folder, 'CHANGELOG.md'), '# changes\n- first\n');
  mkdirSync(join(folder, 'src'));
  writeFileSync(join(folder, 'src', 'app.js'), 'console.log(1);\n');
  writeFileSync(join(folder, 'src', 'util.js'), 'export const x = 1;\n');
  git(folder, 'init', '-q', '-b', 'main');
  git(folder, 'add', '-A');
  git(folder, 'commit', '-q', '-m', 'base');
  return folder;
}

const toolOutput = (page: Page, command: string) => conversation(page).getByRole('article').filter({ hasText: command }).first().innerText();
/** Whether the checkpoints hold the folder's first snapshot. */
function baselineOf(dataDir: string, folder: string): boolean {
  const db = new Database(join(dataDir, 'checkpoints.db'), { readonly: true });
  try {
    return (db.prepare('SELECT baseline_at FROM folders WHERE path = ?').get(folder) as { baseline_at: string | null } | undefined)?.baseline_at != null;
  } finally {
    db.close();
  }
}
const changes = (page: Page) => page.getByRole('region', { name: 'Changes' });
const changedPaths = async (page: Page): Promise<string[]> =>
  (await changes(page).getByRole('listitem').evaluateAll((items) => items.map((i) => i.getAttribute('aria-label') ?? ''))).filter((n) => n.startsWith('/')).sort();

async function startSandboxThread(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'New thread in a sandbox…', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'New thread in a sandbox…' });
  const start = dialog.getByRole('button', { name: 'Start in sandbox' });
  await poll(() => start.getAttribute('aria-disabled')).toBe('false');
  await start.click();
}

describe('a sandbox thread, told truthfully', () => {
  it('Changes lists only what the command changed; Revert of one restores exactly it', async () => {
    const daytona = (standin = await startDaytonaStandin());
    const folder = repository();
    const serve = await session.serve({
      folder,
      env: { ...NO_PROVIDER_KEYS, ...daytona.env },
      script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo more >> README.md && echo new > made.txt' } }] }, { text: 'Changed two.' }, { toolCalls: [{ name: 'execute', args: { command: 'ls' } }] }, { text: 'Listed.' }],
    });
    const page = await openApp(session.browser, serve.url);
    await startSandboxThread(page);
    await poll(() => daytona.boxes.size).toBe(1);
    await poll(() => page.getByRole('region', { name: 'Chat' }).locator('.thread-runs-in').count()).toBe(1);
    const worktreeFolder = (await page.evaluate(() => document.querySelector('.header-folder')?.getAttribute('title'))) ?? '';

    await sendMessage(page, 'Change two files');
    const ask = approval(page).first();
    await ask.waitFor({ timeout: 60_000 });
    await ask.getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Changed two.').waitFor({ timeout: 60_000 });
    await poll(() => existsSync(join(worktreeFolder, 'made.txt'))).toBe(true);

    await poll(() => changedPaths(page)).toEqual(['/README.md', '/made.txt']);
    // The host took each folder's first snapshot (the person's and the worktree): what a step changed is measured against it.
    await poll(() => baselineOf(serve.dataDir, worktreeFolder)).toBe(true);
    expect(baselineOf(serve.dataDir, folder)).toBe(true);
    // Revert of one restores exactly it; the rest of the folder is untouched.
    await changes(page).getByRole('listitem', { name: '/README.md' }).getByRole('button', { name: 'Revert' }).click();
    await poll(() => readFileSync(join(worktreeFolder, 'README.md'), 'utf8')).toBe('# project\n');
    expect(readFileSync(join(worktreeFolder, 'CHANGELOG.md'), 'utf8')).toBe('# changes\n- first\n');
    expect(readFileSync(join(worktreeFolder, 'made.txt'), 'utf8')).toBe('new\n');
    await poll(() => changedPaths(page)).toEqual(['/made.txt']);
    await new Promise((r) => setTimeout(r, 3000));
    await sendMessage(page, 'List');
    const ask2 = approval(page).first();
    await ask2.waitFor({ timeout: 60_000 });
    await ask2.getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Listed.').waitFor({ timeout: 60_000 });
    await poll(() => changedPaths(page)).toEqual(['/made.txt']);
    // What Apply would carry: only the real change.
    expect(git(worktreeFolder, 'status', '--porcelain').trim().split('\n').sort()).toEqual(['?? made.txt']);
  });

  it('stopped by the service: the next command starts the sandbox again and runs; what changed is only what changed', async () => {
    const daytona = (standin = await startDaytonaStandin());
    const folder = repository();
    const serve = await session.serve({
      folder,
      env: { ...NO_PROVIDER_KEYS, ...daytona.env },
      script: [
        { toolCalls: [{ name: 'execute', args: { command: 'echo one > one.txt' } }] },
        { text: 'One.' },
        { toolCalls: [{ name: 'execute', args: { command: "cat one.txt && echo two > two.txt && printf 'alpha\\nbeta\\n'" } }] },
        { text: 'Two.' },
      ],
    });
    const page = await openApp(session.browser, serve.url);
    await startSandboxThread(page);
    await poll(() => daytona.boxes.size).toBe(1);
    const [sandboxId] = [...daytona.boxes.keys()];
    await poll(() => page.getByRole('region', { name: 'Chat' }).locator('.thread-runs-in').count()).toBe(1);
    await sendMessage(page, 'First');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('One.', { exact: true }).waitFor({ timeout: 60_000 });

    // Stopped outside Deepdesk (its auto-stop, the dashboard): the stand-in refuses commands with 400 until started.
    await createDaytonaProvider({ env: { ...daytona.env } }).stop(sandboxId!);
    await sendMessage(page, 'Second');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Two.', { exact: true }).waitFor({ timeout: 60_000 });
    const worktreeFolder = (await page.evaluate(() => document.querySelector('.header-folder')?.getAttribute('title'))) ?? '';
    await poll(() => existsSync(join(worktreeFolder, 'two.txt'))).toBe(true);
    await poll(() => toolOutput(page, 'cat one.txt')).toContain('one');
    await poll(() => changedPaths(page)).toEqual(['/one.txt', '/two.txt']);

    // The Terminal: the sandbox's output line by line, each at the left edge (no staircase), and where each tab runs.
    const terminal = page.getByRole('region', { name: 'Terminal' });
    // The first command's `[exit code 0]` is there already: the second's last line and its own are what is waited for.
    await poll(() => terminal.locator('.xterm-rows').innerText()).toMatch(/^beta\s*$[\s\S]*\[exit code 0\]/m);
    const rows = await terminal.locator('.xterm-rows').innerText();
    expect(rows).toMatch(/^alpha\s*$/m);
    await poll(() => terminal.locator('.sandbox-status').innerText()).toBe('Runs in Daytona');
    await poll(() => terminal.getByRole('tab', { name: /Your shell/ }).innerText()).toMatch(/^Your shell\s+· this computer, in the worktree$/);
  });

  it('a sandbox deleted under the thread: the window says so and offers a new sandbox or this computer; on this computer the thread carries on in its worktree', async () => {
    const daytona = (standin = await startDaytonaStandin());
    const folder = repository();
    const serve = await session.serve({
      folder,
      env: { ...NO_PROVIDER_KEYS, ...daytona.env },
      script: [
        { toolCalls: [{ name: 'execute', args: { command: 'echo one > one.txt' } }] },
        { text: 'One.' },
        { toolCalls: [{ name: 'execute', args: { command: 'echo two > two.txt' } }] },
        { text: 'Two failed.' },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/here.txt', content: 'on this computer\n' } }] },
        { text: 'Here.' },
      ],
    });
    const page = await openApp(session.browser, serve.url);
    await startSandboxThread(page);
    await poll(() => daytona.boxes.size).toBe(1);
    const [sandboxId] = [...daytona.boxes.keys()];
    await poll(() => page.getByRole('region', { name: 'Chat' }).locator('.thread-runs-in').count()).toBe(1);
    await sendMessage(page, 'First');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('One.', { exact: true }).waitFor({ timeout: 60_000 });
    const worktreeFolder = (await page.evaluate(() => document.querySelector('.header-folder')?.getAttribute('title'))) ?? '';

    await createDaytonaProvider({ env: { ...daytona.env } }).remove(sandboxId!);
    await sendMessage(page, 'Second');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    // The step's result says it, with the ways forward.
    await conversation(page).getByText('Two failed.', { exact: true }).waitFor({ timeout: 60_000 });
    await poll(() => conversation(page).innerText()).toMatch(/is gone \(deleted or expired\)\. The thread and what came back from the sandbox are kept in its worktree/);

    // The failed command's tab shows why, not only its status.
    const terminal = page.getByRole('region', { name: 'Terminal' });
    await terminal.getByRole('tab', { name: /echo two > two\.txt/ }).click();
    await poll(() => terminal.locator('.xterm-rows').innerText()).toMatch(/is gone[\s\S]*\[exit code 1\]/);

    // Told, with both ways forward.
    const lost = page.getByRole('group', { name: 'Sandbox gone' });
    await poll(() => lost.getByRole('alert').innerText()).toMatch(new RegExp(`${sandboxId}.*gone.*kept in its worktree`));
    expect(await lost.getByRole('button', { name: 'Continue in a sandbox…' }).count()).toBe(1);
    // The badge shows the short ID; the whole one is its accessible name.
    await poll(() => page.getByRole('region', { name: 'Chat' }).locator('.thread-runs-in').innerText()).toBe(`Gone: Daytona sandbox ${shortSandboxId(sandboxId!)}`);
    expect(await page.getByRole('region', { name: 'Chat' }).locator('.thread-runs-in').getAttribute('aria-label')).toBe(`Gone: Daytona sandbox ${sandboxId}`);

    await lost.getByRole('button', { name: 'Continue on this computer' }).click();
    // The folder opens anew, on this computer: no sandbox, the same worktree and thread.
    await poll(() => page.getByRole('region', { name: 'Chat' }).locator('.thread-runs-in').count()).toBe(0);
    await poll(() => page.getByRole('group', { name: 'Sandbox gone' }).count()).toBe(0);
    const db = new Database(join(serve.dataDir, 'deepdesk.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM sandboxes').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    await sendMessage(page, 'Third');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Here.', { exact: true }).waitFor({ timeout: 60_000 });
    await poll(() => existsSync(join(worktreeFolder, 'here.txt'))).toBe(true);
    expect(readFileSync(join(worktreeFolder, 'one.txt'), 'utf8')).toBe('one\n');
  });

  it('the first Enter in a just-opened sandbox thread is taken (or says why it waits), never dropped', async () => {
    const daytona = (standin = await startDaytonaStandin());
    const folder = repository();
    const serve = await session.serve({ folder, env: { ...NO_PROVIDER_KEYS, ...daytona.env }, script: [{ text: 'Heard you.' }] });
    const page = await openApp(session.browser, serve.url);
    await startSandboxThread(page);
    // As soon as the message box takes typing in the new folder's window, Enter.
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await poll(async () => (await page.getByRole('dialog', { name: 'New thread in a sandbox…' }).count()) === 0 && (await box.isEditable().catch(() => false))).toBe(true);
    await box.fill('first words');
    await box.press('Enter');
    await conversation(page).getByText('Heard you.', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await conversation(page).getByText('first words', { exact: true }).count()).toBe(1);
    expect(daytona.boxes.size).toBe(1);
  });

  it('a thread whose sandbox is gone continues in a new sandbox made from its worktree (Continue in a sandbox…)', async () => {
    const daytona = (standin = await startDaytonaStandin());
    const folder = repository();
    const serve = await session.serve({
      folder,
      env: { ...NO_PROVIDER_KEYS, ...daytona.env },
      script: [
        { toolCalls: [{ name: 'execute', args: { command: 'echo one > one.txt' } }] },
        { text: 'One.' },
        { toolCalls: [{ name: 'execute', args: { command: 'echo two' } }] },
        { text: 'Two failed.' },
        { toolCalls: [{ name: 'execute', args: { command: 'cat one.txt' } }] },
        { text: 'Read it.' },
      ],
    });
    const page = await openApp(session.browser, serve.url);
    await startSandboxThread(page);
    await poll(() => daytona.boxes.size).toBe(1);
    const [first] = [...daytona.boxes.keys()];
    const badge = page.getByRole('region', { name: 'Chat' }).locator('.thread-runs-in');
    await poll(() => badge.count()).toBe(1);
    await sendMessage(page, 'First');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('One.', { exact: true }).waitFor({ timeout: 60_000 });

    await createDaytonaProvider({ env: { ...daytona.env } }).remove(first!);
    // The next command finds it gone: said, and a new sandbox offered.
    await sendMessage(page, 'Again');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Two failed.', { exact: true }).waitFor({ timeout: 60_000 });
    const lost = page.getByRole('group', { name: 'Sandbox gone' });
    await poll(() => lost.count()).toBe(1);
    await lost.getByRole('button', { name: 'Continue in a sandbox…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Continue in a sandbox…' });
    const go = dialog.getByRole('button', { name: 'Continue in sandbox' });
    await poll(() => go.getAttribute('aria-disabled')).toBe('false');
    await go.click();
    await poll(() => daytona.boxes.size).toBe(1);
    const [second] = [...daytona.boxes.keys()];
    expect(second).not.toBe(first);
    await poll(() => badge.innerText()).toBe(`Runs in Daytona · sandbox ${shortSandboxId(second!)}`);
    expect(await badge.getAttribute('aria-label')).toBe(`Runs in Daytona · sandbox ${second}`);
    await sendMessage(page, 'Second');
    await approval(page).first().getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('Read it.', { exact: true }).waitFor({ timeout: 60_000 });
    // The new sandbox was made from the worktree: what came back from the first is there.
    await poll(() => toolOutput(page, 'cat one.txt')).toContain('one');
  });
});
