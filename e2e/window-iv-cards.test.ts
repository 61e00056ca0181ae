// Window IV, the conversation's cards as a newcomer reads them (headless Chromium against
// `deepdesk serve` and the scripted model): every call is titled in words (`Edit pricing.py`,
// `echo (everything server)`), never by raw tool names or backticks; a refused call says why
// once; a command's approval says where it runs; consecutive reads and searches fold into
// one summary row; the `/` list never breaks a name mid-word.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { approval, conversation, openApp, repo, screenshot, sendMessage, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();
const EVERYTHING = join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** expect.poll with room for a loaded machine. */
const poll = <T,>(fn: () => T | Promise<T>, timeout = 60_000) => expect.poll(fn, { timeout });

/** What an approval and its card say as their title: the card's header and the approval's own line. */
async function titles(card: Locator): Promise<string> {
  return `${await card.locator('.tool-head').innerText()}\n${await card.getByRole('group', { name: 'Approve tool call' }).locator('.approval-meta').innerText()}`;
}

const occurrences = (text: string, part: string): number => text.split(part).length - 1;

describe('names in words', () => {
  it('an edit and an MCP tool are titled in words, their reasons do not repeat them, and a command says where it runs', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve({
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/pricing.py' } }] },
        { toolCalls: [{ name: 'edit_file', args: { file_path: '/pricing.py', old_string: 'rate = 1\n', new_string: 'rate = 2\n' } }] },
        { toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'hello' } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'pytest -q' } }] },
        { text: 'All asked.' },
      ],
    });
    writeFileSync(join(serve.folder, 'pricing.py'), 'rate = 1\n');
    // The person's own server (no folder trust involved).
    writeFileSync(join(serve.dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
    const page = await openApp(e2e.browser, serve.url, { width: 1400, height: 900 });
    await sendMessage(page, 'raise the rate');

    const edit = toolCard(page, 'edit_file');
    await edit.getByRole('group', { name: 'Approve tool call' }).waitFor({ timeout: 60_000 });
    const editTitles = await titles(edit);
    expect(editTitles).toContain('Edit pricing.py');
    expect(editTitles).not.toContain('edit_file');
    expect(editTitles).not.toContain('`');
    // The reason says why it asks, not the call again.
    const editReason = await approval(page).locator('.approval-reason').innerText();
    expect(editReason).not.toContain('`');
    expect(editReason).not.toContain('edit_file');
    expect(editReason).not.toContain('pricing.py');
    await screenshot(page, 'iv-approval-edit-1400x900');
    await approval(page).getByRole('button', { name: 'Approve', exact: true }).click();

    const mcp = toolCard(page, 'mcp__everything__echo');
    await mcp.getByRole('group', { name: 'Approve tool call' }).waitFor({ timeout: 60_000 });
    const mcpTitles = await titles(mcp);
    expect(mcpTitles).toContain('echo (everything server)');
    expect(mcpTitles).not.toContain('mcp__');
    expect(mcpTitles).not.toContain('`');
    const mcpReason = await approval(page).locator('.approval-reason').innerText();
    expect(mcpReason).not.toContain('mcp__');
    expect(mcpReason).not.toContain('`');
    await screenshot(page, 'iv-approval-mcp-1400x900');
    await approval(page).getByRole('button', { name: 'Approve', exact: true }).click();

    const run = toolCard(page, 'execute');
    await run.getByRole('group', { name: 'Approve tool call' }).waitFor({ timeout: 60_000 });
    // The command is code in the title, never wrapped in raw backticks.
    expect(await run.locator('.tool-head code').innerText()).toBe('pytest -q');
    expect(await titles(run)).not.toContain('`');
    expect(await approval(page).locator('.approval-reason').innerText()).not.toContain('pytest');
    // Where it runs: this computer, sandboxed or not as the terminal's header says.
    const sandbox = await page.getByRole('region', { name: 'Terminal' }).innerText();
    const where = await approval(page).locator('.approval-where').innerText();
    expect(where).toMatch(/^Runs on this computer · (Sandboxed|Not sandboxed)$/);
    expect(sandbox).toContain(where.includes('Not sandboxed') ? 'Not sandboxed' : 'Sandboxed');
    await screenshot(page, 'iv-approval-command-1400x900');
    await approval(page).getByRole('button', { name: 'Reject', exact: true }).click();
    await conversation(page).getByText('All asked.').waitFor({ timeout: 60_000 });
  });
});

const HOOK_SCRIPT = `
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  if (String(JSON.parse(input).tool_input.file_path ?? '').includes('secrets')) {
    process.stderr.write('secrets stay put');
    process.exit(2);
  }
});
`;

describe('a refused call says why once', () => {
  it('a hook-blocked card, a rule-denied card and a rejected card each state their reason once', { timeout: 90_000 }, async () => {
    const serve = await e2e.serve({
      script: [
        { toolCalls: [{ name: 'write_file', args: { file_path: '/secrets.txt', content: 'x\n' } }] },
        { toolCalls: [{ name: 'execute', args: { command: 'rm -rf build' } }] },
        { toolCalls: [{ name: 'write_file', args: { file_path: '/notes.md', content: 'n\n' } }] },
        { text: 'Gave up.' },
      ],
      settings: { rules: [{ id: 'no-rm', tools: ['execute'], commands: ['rm'], decision: 'deny', description: 'never remove files' }] },
    });
    const script = join(serve.dataDir, 'guard.mjs');
    writeFileSync(script, HOOK_SCRIPT);
    writeFileSync(join(serve.dataDir, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `"${process.execPath}" "${script}"` }] }] } }));
    const page = await openApp(e2e.browser, serve.url, { width: 1024, height: 700 });
    await sendMessage(page, 'tidy up');

    const blocked = toolCard(page, 'write_file').filter({ hasText: 'secrets.txt' });
    await poll(() => blocked.innerText()).toContain('Blocked by hook');
    const blockedText = await blocked.innerText();
    expect(occurrences(blockedText, 'secrets stay put')).toBe(1);
    expect(await blocked.locator('.tool-status').innerText()).toBe('Rejected');
    expect(await blocked.locator('.tool-status').getAttribute('title')).toBe('Blocked by a hook');

    const denied = toolCard(page, 'execute');
    await poll(() => denied.locator('.tool-status').innerText()).toBe('Rejected');
    await poll(async () => occurrences(await denied.innerText(), 'never remove files')).toBe(1);

    const notes = toolCard(page, 'write_file').filter({ hasText: 'notes.md' });
    await notes.getByRole('group', { name: 'Approve tool call' }).waitFor({ timeout: 60_000 });
    await approval(page).getByRole('textbox', { name: 'Message to the agent' }).fill('not in this folder');
    await approval(page).getByRole('button', { name: 'Reject', exact: true }).click();
    await conversation(page).getByText('Gave up.').waitFor({ timeout: 60_000 });
    await poll(() => notes.locator('.tool-status').innerText()).toBe('Rejected');
    await poll(async () => occurrences(await notes.innerText(), 'not in this folder')).toBe(1);
    expect(await notes.innerText()).not.toContain('Error: the person rejected');
    await screenshot(page, 'iv-refused-cards-1024x700');

    // The result the agent got is still there, under the card's details.
    await blocked.getByRole('button', { name: /^Show details of/ }).click();
    await poll(() => blocked.locator('.tool-body').innerText()).toContain('secrets stay put');
  });
});


describe('reads and searches fold into one row', () => {
  for (const [width, height] of [
    [1400, 900],
    [1024, 700],
  ] as const) {
    it(`a run of them is one summary row that opens to each card, shows its failure, and ends at a write (${width}x${height})`, { timeout: 90_000 }, async () => {
      const reads = ['a.py', 'b.py', 'c.py', 'd.py', 'missing.py'].map((f) => ({ name: 'read_file', args: { file_path: `/${f}` } }));
      const greps = ['alpha', 'beta', 'gamma', 'delta', 'eps'].map((p) => ({ name: 'grep', args: { pattern: p } }));
      const serve = await e2e.serve({
        script: [
          { toolCalls: [...reads, ...greps] },
          { toolCalls: [{ name: 'write_file', args: { file_path: '/out.txt', content: 'o\n' } }] },
          { toolCalls: [{ name: 'read_file', args: { file_path: '/a.py' } }, { name: 'glob', args: { pattern: '*.py' } }, { name: 'ls', args: { path: '/' } }] },
          { text: 'Looked around.' },
        ],
        settings: { rules: [{ tools: ['write_file'], decision: 'allow' }] },
      });
      for (const f of ['a.py', 'b.py', 'c.py', 'd.py']) writeFileSync(join(serve.folder, f), 'alpha = 1\n');
      const page = await openApp(e2e.browser, serve.url, { width, height });
      await sendMessage(page, 'look around');
      await conversation(page).getByText('Looked around.').waitFor({ timeout: 60_000 });

      const first = conversation(page).getByRole('button', { name: /^Read 5 files, searched 5 times/ });
      const second = conversation(page).getByRole('button', { name: /^Read 1 file, searched 1 time, listed 1 folder/ });
      await poll(() => first.count()).toBe(1);
      expect(await second.count()).toBe(1);
      expect(await first.getAttribute('aria-expanded')).toBe('false');
      // Folded: the failure is said on the row and its card stays in view; the rest wait behind the row.
      expect(await first.innerText()).toContain('1 failed');
      expect(await toolCard(page, 'read_file').count()).toBe(1);
      expect(await toolCard(page, 'read_file').innerText()).toContain('missing.py');
      expect(await toolCard(page, 'grep').count()).toBe(0);
      // The write stands between the groups, a card of its own.
      expect(await toolCard(page, 'write_file').count()).toBe(1);
      // The row is exactly as wide as a card.
      const rowWidth = await first.evaluate((el) => el.getBoundingClientRect().width);
      const cardWidth = await toolCard(page, 'write_file').evaluate((el) => el.getBoundingClientRect().width);
      expect(Math.abs(rowWidth - cardWidth)).toBeLessThanOrEqual(2);
      await screenshot(page, `iv-read-group-folded-${width}x${height}`);

      await first.click();
      expect(await first.getAttribute('aria-expanded')).toBe('true');
      await poll(() => toolCard(page, 'read_file').count()).toBe(5);
      expect(await toolCard(page, 'grep').count()).toBe(5);
      // Each card keeps its status and result.
      expect(await toolCard(page, 'read_file').filter({ hasText: 'a.py' }).first().locator('.tool-status').innerText()).toBe('Done');
      expect(await toolCard(page, 'read_file').filter({ hasText: 'missing.py' }).locator('.tool-status').innerText()).toBe('Error');
      expect(await toolCard(page, 'grep').filter({ hasText: 'alpha' }).innerText()).toContain('4 files');
      // Focus stays on the row's button, which reads as expanded.
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-expanded'))).toBe('true');
      await screenshot(page, `iv-read-group-open-${width}x${height}`);
    });
  }
});

describe('the / list', () => {
  for (const [width, height] of [
    [1024, 700],
    [1400, 900],
  ] as const) {
    it(`never breaks a name mid-word; a long one is cut with an ellipsis and the description wraps (${width}x${height})`, { timeout: 60_000 }, async () => {
      const serve = await e2e.serve({ script: [{ text: 'unused' }] });
      const description = 'Writes the release notes for every package of the monorepo from the git log since the last tag, grouped by feature';
      for (const name of ['release-notes-for-the-whole-monorepo-since-the-last-tag', 'changelog']) {
        mkdirSync(join(serve.dataDir, 'skills', name), { recursive: true });
        writeFileSync(join(serve.dataDir, 'skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nWrite them.\n`);
      }
      const page = await openApp(e2e.browser, serve.url, { width, height });
      const box = page.getByRole('textbox', { name: 'Message', exact: true });
      await box.click();
      await box.pressSequentially('/');
      const list = page.getByRole('listbox', { name: 'Commands' });
      await poll(() => list.getByRole('option').filter({ hasText: 'changelog' }).count()).toBe(1);
      await poll(() => list.getByRole('option').filter({ hasText: 'release-notes' }).count()).toBe(1);
      const names = await list.locator('.mention-name').evaluateAll((els) =>
        els.map((el) => {
          const style = getComputedStyle(el);
          return { text: el.textContent ?? '', oneLine: el.getBoundingClientRect().height <= parseFloat(style.lineHeight) * 1.5, cut: el.scrollWidth > el.clientWidth, ellipsis: style.textOverflow === 'ellipsis' };
        }),
      );
      for (const name of names) {
        expect(name.oneLine, name.text).toBe(true);
        if (name.cut) expect(name.ellipsis, name.text).toBe(true);
      }
      // Short names show whole; the description of a command reads whole (wrapped), never cut.
      expect(names.find((n) => n.text.startsWith('/changelog'))?.cut).toBe(false);
      const detail = list.getByRole('option').filter({ hasText: 'changelog' }).locator('.mention-dir');
      expect(await detail.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await screenshot(page, `iv-slash-list-${width}x${height}`);
    });
  }
});
