// Folder trust through the app's contract (SPEC §9), by effect, with real hooks, a real MCP
// server, the real sandbox and a real trust.json: what a trusted hook runs cannot be
// rewritten by a sandboxed command, a changed script asks again and does not run, `Trust
// folder` trusts only the list that was shown, and a revoke made elsewhere (another process
// on the same data folder) takes effect before the next step.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../core/models/testing/scripted-server';
import { TrustStore } from '../../core/trust/store';
import { useAppTestEnv } from '../window/app-harness.test-support';

const t = useAppTestEnv('deepdesk-trust-app');
const TEST_SERVER = join(import.meta.dirname, '../../core/extensions/mcp/__fixtures__/test-server.mjs');

let outside: string;
beforeEach(() => {
  outside = mkdtempSync(join(tmpdir(), 'deepdesk-trust-app-outside-'));
});
afterEach(() => rmSync(outside, { recursive: true, force: true }));

const toolNames = (req: RecordedRequest): string[] => (req.tools ?? []).map((tool) => tool.function.name);

function hookScript(name: string, log: string): void {
  mkdirSync(join(t.folder, 'tools'), { recursive: true });
  writeFileSync(join(t.folder, 'tools', name), `echo ran >> "${log}"\n`);
}

function hooksFile(...commands: string[]): void {
  mkdirSync(join(t.folder, '.deepdesk'), { recursive: true });
  writeFileSync(join(t.folder, '.deepdesk', 'hooks.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: commands.map((command) => ({ type: 'command', command })) }] } }));
}

describe('folder trust through the contract', () => {
  it("a sandboxed command cannot make a trusted hook run its code; a changed script asks again and does not run", async () => {
    const log = join(outside, 'hook-log');
    const marker = join(outside, 'pwned');
    hookScript('a.sh', log);
    hookScript('b.sh', log);
    hooksFile('sh tools/a.sh', 'sh "${CLAUDE_PROJECT_DIR}/tools/b.sh"');
    const { call } = await t.open();
    await expect.poll(async () => (await call('trust.get', {})).untrusted.map((e) => e.kind), { timeout: 60_000 }).toEqual(['hook', 'hook']);
    const shown = await call('trust.get', {});
    await call('trust.grant', { digest: shown.digest });
    await call('mode.set', { mode: 'auto' });

    const thread = await call('threads.create', {});
    const evil = `touch "${marker}"`;
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: `printf '%s\\n' '${evil}' > tools/a.sh; printf '%s\\n' '${evil}' > tools/b.sh; echo done` } }] }, { text: 'rewritten' }, { text: 'second' });
    await call('threads.send', { threadId: thread.id, text: 'first' });
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running, { timeout: 60_000 }).toBe(false);
    await call('threads.send', { threadId: thread.id, text: 'second' });
    await expect.poll(() => t.server.requests.length, { timeout: 60_000 }).toBe(3);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(t.folder, 'tools', 'a.sh'), 'utf8')).toBe(`echo ran >> "${log}"\n`);
    // Both hooks ran their trusted content on both prompts.
    expect(readFileSync(log, 'utf8')).toBe('ran\nran\nran\nran\n');

    // A change made outside the sandbox (a `git pull`): the hook does not run it and asks again.
    writeFileSync(join(t.folder, 'tools', 'a.sh'), `${evil}\n`);
    t.server.push({ text: 'third' });
    await call('threads.send', { threadId: thread.id, text: 'third' });
    await expect.poll(() => t.server.requests.length, { timeout: 60_000 }).toBe(4);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    expect(existsSync(marker)).toBe(false);
    await expect.poll(async () => (await call('trust.get', {})).untrusted.map((e) => e.label), { timeout: 60_000 }).toEqual(['Hook UserPromptSubmit: sh tools/a.sh']);
  }, 120_000);

  it('Trust folder trusts the list that was shown: a change in between is refused and the new list is shown', async () => {
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { theirs: { command: 'srv' } } }));
    const { call } = await t.open();
    await expect.poll(async () => (await call('trust.get', {})).untrusted.map((e) => e.label), { timeout: 60_000 }).toEqual(['MCP server theirs: srv (sandboxed)']);
    const shown = await call('trust.get', {});
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { theirs: { command: 'srv' }, added: { command: 'evil', sandbox: false } } }));
    const answer = await call('trust.grant', { digest: shown.digest });
    expect(answer.note).toMatch(/changed/);
    expect(answer.untrusted.map((e) => e.label)).toEqual(['MCP server theirs: srv (sandboxed)', 'MCP server added: evil (not sandboxed)']);
    expect(existsSync(join(t.dataDir, 'trust.json')) ? readFileSync(join(t.dataDir, 'trust.json'), 'utf8') : '').not.toContain('mcp:');
    const granted = await call('trust.grant', { digest: answer.digest });
    expect(granted.untrusted).toEqual([]);
  });

  it('Trust folder answers at once when a server is slow to start: trust is recorded, the server starts in the background and its state follows', async () => {
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { slow: { command: process.execPath, args: [TEST_SERVER, '--slow-start', '6000'] } } }));
    const { call, events } = await t.open();
    await expect.poll(async () => (await call('trust.get', {})).untrusted.length, { timeout: 60_000 }).toBe(1);
    // Answered while the server still starts (it takes 6 s): the answer did not wait for it.
    const granted = await call('trust.grant', { digest: (await call('trust.get', {})).digest });
    expect(granted.untrusted).toEqual([]);
    expect(readFileSync(join(t.dataDir, 'trust.json'), 'utf8')).toContain('mcp:slow');
    // Shown as starting where servers are shown, then connected, told by mcp.changed.
    expect((await call('mcp.list', {})).servers[0]).toMatchObject({ name: 'slow', status: 'starting' });
    const changes = events.filter((e) => e.event === 'mcp.changed').length;
    await expect.poll(async () => (await call('mcp.list', {})).servers[0]?.status, { timeout: 60_000 }).toBe('connected');
    expect(events.filter((e) => e.event === 'mcp.changed').length).toBeGreaterThan(changes);

    // The class: every request that starts servers answers while they start (Restart, adding one in Settings).
    expect((await call('mcp.restart', { name: 'slow' })).servers[0]).toMatchObject({ name: 'slow', status: 'starting' });
    const added = await call('mcp.save', { name: 'mine', entry: { command: process.execPath, args: [TEST_SERVER, '--slow-start', '6000'] } });
    expect(added.servers.find((server) => server.name === 'mine')).toMatchObject({ status: 'starting' });
    await expect.poll(async () => (await call('mcp.list', {})).servers.map((server) => server.status), { timeout: 60_000 }).toEqual(['connected', 'connected']);
  }, 90_000);

  it('a revoke in another process: before the next step the folder has no hooks and no servers, and its server stops', async () => {
    const log = join(outside, 'hook-log');
    hooksFile(`echo ran >> "${log}"`);
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { theirs: { command: process.execPath, args: [TEST_SERVER] } } }));
    const { call } = await t.open();
    await expect.poll(async () => (await call('trust.get', {})).untrusted.length, { timeout: 60_000 }).toBe(2);
    await call('trust.grant', { digest: (await call('trust.get', {})).digest });
    await expect.poll(async () => (await call('mcp.list', {})).servers[0]?.status, { timeout: 60_000 }).toBe('connected');

    const thread = await call('threads.create', {});
    t.server.push({ text: 'one' }, { text: 'two' });
    await call('threads.send', { threadId: thread.id, text: 'first' });
    await expect.poll(() => t.server.requests.length, { timeout: 60_000 }).toBe(1);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    expect(readFileSync(log, 'utf8')).toBe('ran\n');
    expect(toolNames(t.server.requests[0]!).some((name) => name.startsWith('mcp__theirs__'))).toBe(true);

    // `deepdesk trust --revoke` in a terminal: the same trust.json, another store.
    const other = new TrustStore(t.dataDir);
    expect(other.revoke(t.folder)).toBe(true);
    other.close();

    // The very next step, with no waiting: no hook runs, no tool of the server is offered.
    await call('threads.send', { threadId: thread.id, text: 'second' });
    await expect.poll(() => t.server.requests.length, { timeout: 60_000 }).toBe(2);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    expect(readFileSync(log, 'utf8')).toBe('ran\n');
    expect(toolNames(t.server.requests[1]!).filter((name) => name.startsWith('mcp__'))).toEqual([]);
    await expect.poll(async () => (await call('mcp.list', {})).servers[0]?.status, { timeout: 60_000 }).toBe('not-trusted');
    await expect.poll(async () => (await call('trust.get', {})).untrusted.length, { timeout: 60_000 }).toBe(2);
  }, 120_000);
});
