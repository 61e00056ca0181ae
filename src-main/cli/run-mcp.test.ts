// `deepdesk run` with MCP servers (SPEC §9, §10): a folder's untrusted configuration is not
// loaded and says so in one stderr line; `--trust` loads it for that run only; `--mcp-config`
// adds servers; a failed server is one stderr line and never stops the run; the agent calls
// a server's tool through approval.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../core/models/testing/scripted-server';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-mcp');
const EVERYTHING = join(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
const toolNames = (req: RecordedRequest): string[] => (req.tools ?? []).map((tool) => tool.function.name);
const textOf = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '');

const run = (...args: string[]) => t.deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...args]);

describe('deepdesk run with MCP servers', () => {
  it("does not load an untrusted folder's servers and says so in one line; --trust loads them for this run only", async () => {
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { theirs: everything } }));
    t.server.push({ text: 'first' }, { text: 'second' }, { text: 'third' });

    const untrusted = await run('hello');
    expect(untrusted).toMatchObject({ code: 0, stdout: 'first\n' });
    const lines = untrusted.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^deepdesk: not loading this folder's configuration/);
    expect(toolNames(t.server.requests[0]!).some((n) => n.startsWith('mcp__'))).toBe(false);

    const trusted = await run('--trust', 'hello');
    expect(trusted).toMatchObject({ code: 0, stdout: 'second\n', stderr: '' });
    expect(toolNames(t.server.requests[1]!)).toContain('mcp__theirs__echo');

    // For that run only: nothing was recorded.
    const again = await run('hello');
    expect(again.stderr).toMatch(/^deepdesk: not loading this folder's configuration/);
  }, 90_000);

  it('--mcp-config adds servers; a failed one is one stderr line; the agent calls a tool that a rule allows', async () => {
    const config = join(t.folder, 'extra-mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { everything, broken: { command: join(t.folder, 'missing-server') } } }));
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ rules: [{ tools: ['mcp__everything__*'], decision: 'allow' }] }));
    t.server.push({ toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'hi there' } }] }, (req) => ({
      text: `result: ${req.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content)).join('')}`,
    }));
    const result = await run('--mcp-config', config, 'echo it');
    expect(result.stdout).toBe('result: Echo: hi there\n');
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^deepdesk: MCP server broken failed: /);
  }, 90_000);

  it('a malformed entry is one line naming the file and field; the other servers still load', async () => {
    writeFileSync(join(t.dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { everything, bad: { command: ['not', 'a', 'string'] } } }));
    t.server.push({ text: 'ok' });
    const result = await run('hi');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`deepdesk: ${join(t.dataDir, 'mcp.json')}: mcpServers.bad.command: ${result.stderr.split('mcpServers.bad.command: ')[1]}`);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(toolNames(t.server.requests[0]!)).toContain('mcp__everything__echo');
    expect(readFileSync(join(t.dataDir, 'mcp.json'), 'utf8')).toContain('"bad"');
  }, 90_000);
});
