// The Memories panel on a shared PostgreSQL store (SPEC §13), as a team meets it: what a
// teammate wrote from another data folder shows in the panel, searchable, with its writer;
// what the person writes in the panel reaches the teammate; the URL is shown without any
// password, which comes from PGPASSWORD.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src-main/core/backends/store/testing/postgres';
import { openApp, repo, screenshot, useE2ESession } from './harness';

const e2e = useE2ESession();
let database: TestDatabase | undefined;
let teammate: string | undefined;

afterEach(async () => {
  await database?.drop();
  database = undefined;
  if (teammate) rmSync(teammate, { recursive: true, force: true });
  teammate = undefined;
});

describe('the Memories panel on a shared PostgreSQL store', () => {
  it("lists and searches a teammate's memories, and the person's edits reach the teammate", async () => {
    database = await createTestDatabase();
    const parsed = new URL(database.url);
    const password = decodeURIComponent(parsed.password);
    parsed.password = '';
    const url = parsed.toString();
    teammate = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-teammate-'));
    // The teammate works on the same project (memories are the project's, SPEC §25).
    const folder = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-folder-'));
    const asTeammate = (args: string[], input?: string) =>
      execFileSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'memories', ...args, '--folder', folder, '--data-dir', teammate!, '--memories-store', url], {
        env: { ...process.env, PGPASSWORD: password },
        encoding: 'utf8',
        ...(input !== undefined ? { input } : {}),
      });
    asTeammate(['write', '/memories/release.md'], 'Releases are tagged vX.Y.Z and signed.\n');

    const serve = await e2e.serve({ folder, extraArgs: ['--memories-store', url], env: { PGPASSWORD: password } });
    const page = await openApp(e2e.browser, serve.url);
    const memories = page.getByRole('region', { name: 'Memories' });
    await expect.poll(() => memories.innerText(), { timeout: 60_000 }).toMatch(/release\.md[\s\S]*by you/);
    // The panel says where the memories live, and that they are shared beyond this computer.
    expect(await memories.innerText()).toContain(`Kept in ${url.replace(/\/$/, '')}`);
    expect(await memories.innerText()).toContain('everyone who uses that store');
    await memories.getByRole('searchbox', { name: 'Search memories' }).fill('SIGNED');
    await expect.poll(() => memories.getByRole('list', { name: 'Memory files' }).innerText()).toContain('Releases are tagged');
    await screenshot(page, 'memories-postgres');

    // Settings shows the store in force, set by the flag, without a password anywhere.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await expect.poll(() => dialog.innerText()).toContain('--memories-store');
    expect(await page.content()).not.toContain(password);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // The person deletes it in the panel: gone for the teammate too.
    await memories.getByRole('searchbox', { name: 'Search memories' }).fill('');
    await memories.getByRole('button', { name: /release\.md/ }).first().click();
    await memories.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('alertdialog', { name: 'Delete memory?' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => asTeammate(['ls'])).toBe('');
    await page.context().close();
  });
});
