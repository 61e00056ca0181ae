// MCP servers in the window (SPEC §9, §10): a folder's .mcp.json waits for trust behind the
// non-blocking `Trust this folder?` question; once trusted its server (the reference
// `everything` server from npm, run in the sandbox) connects, Settings › MCP servers shows it,
// and the agent's call of one of its tools asks, runs and returns the server's answer.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../src-main/core/models/testing/scripted-server';
import { auditEveryWay, describeViolations } from './axe';
import { approval, conversation, openApp, repo, screenshot, sendMessage, toolCard, useE2ESession } from './harness';

const e2e = useE2ESession();
const EVERYTHING = join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '';

function writeProjectConfig(folder: string): void {
  writeFileSync(join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
}

const mcpRegion = (page: Page) => page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'MCP servers' });

async function openSettings(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await mcpRegion(page).waitFor();
}

describe('MCP servers in the window', () => {
  it("a folder's server waits for trust, then connects and its tool runs after approval", { timeout: 120_000 }, async () => {
    const requests: RecordedRequest[] = [];
    const serve = await e2e.serve({
      script: [
        (req) => {
          requests.push(req);
          return { toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'hello from the model' } }] };
        },
        (req) => {
          requests.push(req);
          const result = req.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content)).join(' | ');
          return { text: `The server said: ${result}` };
        },
      ],
    });
    writeProjectConfig(serve.folder);
    // Written after start: the watcher picks the change up, as for a `git pull`.
    const page = await openApp(e2e.browser, serve.url);
    const question = page.getByRole('group', { name: 'Trust this folder?' });
    await question.waitFor({ timeout: 60_000 });
    await expect.poll(() => question.textContent()).toContain(`MCP server everything: ${process.execPath} ${EVERYTHING} stdio (sandboxed)`);

    // Nothing of it runs before trust: Settings lists it as not trusted.
    await openSettings(page);
    const item = mcpRegion(page).getByRole('listitem', { name: 'everything' });
    await expect.poll(() => item.textContent()).toContain('Not trusted');
    await page.getByRole('button', { name: 'Cancel' }).click();

    await question.getByRole('button', { name: 'Trust folder' }).click();
    await question.waitFor({ state: 'detached' });
    await openSettings(page);
    await expect.poll(() => item.textContent(), { timeout: 60_000 }).toMatch(/Connected · \d+ tools/);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await sendMessage(page, 'echo something');
    await approval(page).first().waitFor({ timeout: 60_000 });
    await approval(page).getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('The server said: Echo: hello from the model').waitFor({ timeout: 60_000 });
    await expect.poll(() => toolCard(page, 'mcp__everything__echo').count()).toBe(1);
    // The model was offered the server's tool with the server's own schema.
    const offered = requests[0]!.tools?.find((t) => t.function.name === 'mcp__everything__echo');
    expect(offered?.function.description).toBe('Echoes back the input string');
    expect(offered?.function.parameters).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
  });

  it('Not now leaves the folder untrusted and the agent without its servers', { timeout: 60_000 }, async () => {
    const requests: RecordedRequest[] = [];
    const serve = await e2e.serve({ script: [(req) => (requests.push(req), { text: 'ok' })] });
    writeProjectConfig(serve.folder);
    const page = await openApp(e2e.browser, serve.url);
    const question = page.getByRole('group', { name: 'Trust this folder?' });
    await question.waitFor({ timeout: 60_000 });
    await question.getByRole('button', { name: 'Not now' }).click();
    await question.waitFor({ state: 'detached' });
    await sendMessage(page, 'hi');
    await conversation(page).getByText('ok', { exact: true }).waitFor();
    expect(requests[0]!.tools?.some((t) => t.function.name.startsWith('mcp__'))).toBe(false);
  });

  it('the trust question and Settings › MCP servers pass the axe audit, at both sizes, in both themes', { timeout: 120_000 }, async () => {
    const serve = await e2e.serve();
    writeFileSync(join(serve.dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] }, broken: { command: join(serve.folder, 'missing') } } }));
    writeFileSync(join(serve.folder, '.mcp.json'), JSON.stringify({ mcpServers: { theirs: { command: 'node', args: ['server.js'], sandbox: false }, docs: { url: 'https://docs.example.com/mcp' } } }));
    const page = await openApp(e2e.browser, serve.url);
    const question = page.getByRole('group', { name: 'Trust this folder?' });
    await question.waitFor({ timeout: 60_000 });
    await expect.poll(() => question.textContent()).toContain('MCP server theirs: node server.js (not sandboxed)');
    await screenshot(page, 'mcp-trust-question');
    const trustFound = await auditEveryWay(page);

    await openSettings(page);
    const region = mcpRegion(page);
    await expect.poll(() => region.getByRole('listitem', { name: 'everything' }).textContent(), { timeout: 60_000 }).toMatch(/Connected · \d+ tools/);
    await expect.poll(() => region.getByRole('listitem', { name: 'broken' }).textContent()).toContain('Failed');
    await region.getByRole('listitem', { name: 'everything' }).getByText(/^Tools/).click();
    await screenshot(page, 'mcp-settings');
    const settingsFound = await auditEveryWay(page);
    const report = [...Object.entries(trustFound).map(([way, v]) => `trust question, ${way}:\n${describeViolations(v)}`), ...Object.entries(settingsFound).map(([way, v]) => `Settings, ${way}:\n${describeViolations(v)}`)];
    expect(report.join('\n')).toBe('');
  });
});
