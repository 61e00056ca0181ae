// Settings › Mounts in the window (SPEC §6, §13): a read-only local mount added in Settings
// is what the scripted agent reads from (and fails to write to) on its next message; a git
// mount (a file:// bare repository made here) commits the agent's write, and its history
// shows the commit; the section passes the axe audit.

import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../src-main/core/models/testing/scripted-server';
import { makeRemote, remoteFile } from '../src-main/core/backends/git-mount/git-mount.test-support';
import { auditEveryWay, describeViolations } from './axe';
import { conversation, openApp, screenshot, sendMessage, useE2ESession } from './harness';

const e2e = useE2ESession();
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fixtures(): { ref: string; bare: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-mounts-')));
  made.push(root);
  const ref = join(root, 'ref');
  mkdirSync(ref);
  writeFileSync(join(ref, 'facts.md'), 'the sky is green\n');
  return { ref, bare: makeRemote(root, { 'readme.md': 'hello\n' }) };
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '';
const toolTexts = (req: RecordedRequest) => req.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content));

const mountsRegion = (page: Page) => page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Mounts' });

async function openSettings(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await mountsRegion(page).waitFor();
}

describe('Settings › Mounts', () => {
  it('a read-only mount added in Settings is read by the agent and refuses its write; a git mount shows its commits', { timeout: 120_000 }, async () => {
    const { ref, bare } = fixtures();
    const requests: RecordedRequest[] = [];
    const serve = await e2e.serve({
      settings: { rules: [{ tools: ['write_file'], decision: 'allow' }], mounts: [{ prefix: '/kb/', spec: `git+file://${bare}#main` }] },
      script: [
        () => ({ toolCalls: [{ name: 'read_file', args: { file_path: '/ref/facts.md' } }] }),
        () => ({ toolCalls: [{ name: 'write_file', args: { file_path: '/ref/new.md', content: 'x\n' } }] }),
        () => ({ toolCalls: [{ name: 'write_file', args: { file_path: '/kb/note.md', content: 'a note\n' } }] }),
        (req) => {
          requests.push(req);
          return { text: 'All done with the mounts.' };
        },
      ],
    });
    const page = await openApp(e2e.browser, serve.url);
    await openSettings(page);
    const region = mountsRegion(page);
    await expect.poll(() => region.getByRole('listitem', { name: '/kb/' }).textContent()).toContain(`git+file://${bare}#main`);

    // The same parser's message, before anything is sent.
    await region.getByRole('textbox', { name: 'Mount prefix' }).fill('/memories/team/');
    await region.getByRole('textbox', { name: 'Mount source' }).fill(`ro:${ref}`);
    await region.getByRole('button', { name: 'Add mount' }).click();
    await expect.poll(() => region.getByRole('alert').textContent()).toContain("/memories/ is Deepdesk's own folder");

    await region.getByRole('textbox', { name: 'Mount prefix' }).fill('/ref/');
    await region.getByRole('button', { name: 'Add mount' }).click();
    const item = region.getByRole('listitem', { name: '/ref/' });
    await expect.poll(() => item.textContent()).toContain('read-only');
    await expect.poll(() => item.textContent()).toContain('Saved in Settings');
    await page.getByRole('button', { name: 'Cancel' }).click();

    await sendMessage(page, 'use the mounts');
    await conversation(page).getByText('All done with the mounts.').waitFor({ timeout: 60_000 });
    const results = toolTexts(requests[0]!);
    expect(results[0]).toContain('the sky is green');
    expect(results[1]).toBe("Error: '/ref/new.md' is on a read-only mount");
    expect(results[2]).toBe('Updated file /kb/note.md');
    expect(existsSync(join(ref, 'new.md'))).toBe(false);
    expect(remoteFile(bare, 'note.md')).toBe('a note\n');

    await openSettings(page);
    const kb = mountsRegion(page).getByRole('listitem', { name: '/kb/' });
    await kb.getByRole('button', { name: 'History of /kb/' }).click();
    const commits = kb.getByRole('list', { name: 'Commits of /kb/' });
    await expect.poll(() => commits.textContent()).toContain('deepdesk: write_file /kb/note.md');
    await expect.poll(() => commits.textContent()).toContain('seed');
    await screenshot(page, 'mounts-settings');

    const found = await auditEveryWay(page);
    const report = Object.entries(found).map(([way, v]) => `Settings › Mounts, ${way}:\n${describeViolations(v)}`);
    expect(report.join('\n')).toBe('');

    // Removing it applies at once: the list follows.
    await mountsRegion(page).getByRole('button', { name: 'Remove /ref/' }).click();
    await expect.poll(() => mountsRegion(page).getByRole('listitem', { name: '/ref/' }).count()).toBe(0);
  });
});
