// Skills and hooks in the window (SPEC §11): a person's skill is listed for the agent, offered
// as /name and shown in Settings › Skills; a PreToolUse hook blocks one write (the card says
// which hook and why) and rewrites another (the file gets the hook's content, the card says
// `Edited by hook`); Settings › Hooks lists it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../src-main/core/models/testing/scripted-server';
import { auditEveryWay, describeViolations } from './axe';
import { conversation, openApp, screenshot, sendMessage, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();

const HOOK_SCRIPT = `
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const event = JSON.parse(input);
  const path = String(event.tool_input.file_path ?? '');
  if (path.includes('blocked')) {
    process.stderr.write('that file is off limits');
    process.exit(2);
  }
  if (path.includes('rewrite')) {
    const updatedInput = { ...event.tool_input, content: 'from the hook\\n' };
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput } }));
  }
});
`;

function seed(dataDir: string): string {
  mkdirSync(join(dataDir, 'skills', 'release-notes'), { recursive: true });
  writeFileSync(join(dataDir, 'skills', 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Write release notes from the git log\n---\n# Release notes\nGroup by feature.\n');
  // Hooks run as the person (outside the sandbox): the script may live in the data folder.
  const script = join(dataDir, 'guard.mjs');
  writeFileSync(script, HOOK_SCRIPT);
  const command = `"${process.execPath}" "${script}"`;
  writeFileSync(join(dataDir, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command }] }] } }));
  return command;
}

const settingsRegion = (page: Page, name: string) => page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name });

describe('skills and hooks in the window', () => {
  it('a skill is listed for the agent and offered as /name; a hook blocks one write and rewrites another', { timeout: 90_000 }, async () => {
    const requests: RecordedRequest[] = [];
    const serve = await e2e.serve({
      script: [
        (req) => {
          requests.push(req);
          return {
            toolCalls: [
              { name: 'write_file', args: { file_path: '/blocked.txt', content: 'nope\n' } },
              { name: 'write_file', args: { file_path: '/rewrite.txt', content: 'from the model\n' } },
            ],
          };
        },
        { text: 'Done writing.' },
      ],
    });
    const command = seed(serve.dataDir);
    const page = await openApp(e2e.browser, serve.url);

    // The / list offers the skill.
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.click();
    await box.pressSequentially('/rel');
    await expect.poll(() => page.getByRole('listbox', { name: 'Commands' }).getByRole('option').allInnerTexts()).toEqual([expect.stringContaining('/release-notes')]);
    await box.fill('');

    await sendMessage(page, 'write the files');
    await conversation(page).getByText('Done writing.').waitFor({ timeout: 60_000 });
    expect(requests[0]!.messages[0]!.content).toContain('release-notes: Write release notes from the git log');

    // Cards title a file by its path in the folder (`Write blocked.txt`); a refused one shows no restated result.
    const blocked = toolCard(page, 'write_file').filter({ hasText: 'blocked.txt' });
    await expect.poll(() => blocked.textContent()).toContain('Blocked by hook');
    await expect.poll(() => blocked.textContent()).toContain('that file is off limits');
    expect(await blocked.textContent()).toContain(command);
    const rewritten = toolCard(page, 'write_file').filter({ hasText: '/rewrite.txt' });
    await expect.poll(() => rewritten.textContent()).toContain('Edited by hook');
    expect(readFileSync(join(serve.folder, 'rewrite.txt'), 'utf8')).toBe('from the hook\n');
    expect(() => readFileSync(join(serve.folder, 'blocked.txt'))).toThrow();

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await expect.poll(() => settingsRegion(page, 'Skills').getByRole('listitem', { name: 'release-notes' }).textContent()).toContain('Write release notes');
    await expect.poll(() => settingsRegion(page, 'Hooks').getByRole('listitem').first().textContent()).toContain('PreToolUse');
    await settingsRegion(page, 'Hooks').scrollIntoViewIfNeeded();
    await screenshot(page, 'skills-hooks-settings');
    const found = await auditEveryWay(page);
    expect(Object.entries(found).map(([way, v]) => `${way}:\n${describeViolations(v)}`).join('\n')).toBe('');
  });
});
