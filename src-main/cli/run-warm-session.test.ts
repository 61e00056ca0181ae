// Issue 66: the agent host keeps a folder's session warm between `deepdesk run`s (app/session/
// session-pool.ts), and the next run still sees every change made between two runs exactly as
// a freshly opened session would: Settings, the person's skills, hooks and MCP servers, the
// folder's configuration once trusted, and trust given and revoked. By effect: what the model
// is sent, whether a hook ran, whether an MCP server was started again.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../core/models/testing/scripted-server';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-warm');
const SERVER = join(import.meta.dirname, '../core/extensions/mcp/__fixtures__/test-server.mjs');
let home: string;
beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-run-warm-home-')));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function writeSkill(parent: string, name: string, description: string): void {
  mkdirSync(join(parent, name), { recursive: true });
  writeFileSync(join(parent, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nbody`);
}

describe('deepdesk run with the folder session kept warm in the host', () => {
  it('sees settings, skills, hooks, MCP servers, project configuration and trust changed between two runs', async () => {
    // In the folder: a server's sandbox writes only there.
    const starts = join(t.folder, 'mcp-starts.log');
    const probe = (log: string) => ({ command: process.execPath, args: [SERVER], env: { MCP_TEST_LOG: log } });
    writeFileSync(join(t.dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { probe: probe(starts) } }));
    // The folder's own skill: not loaded until the folder is trusted.
    writeSkill(join(t.folder, '.claude', 'skills'), 'proj-skill', 'The project skill.');
    const marker = join(t.folder, 'hook-ran');
    let sent = 0;
    const run = async (): Promise<RecordedRequest> => {
      t.server.push({ text: 'ok' });
      const result = await t.deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, 'hi'], { HOME: home });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout, result.stderr).toBe('ok\n');
      expect(t.server.requests).toHaveLength(++sent);
      return t.server.requests.at(-1)!;
    };
    const has = (request: RecordedRequest, text: string) => JSON.stringify(request).includes(text);
    const toolNames = (request: RecordedRequest) => (request.tools ?? []).map((tool) => tool.function.name);
    const startCount = () => readFileSync(starts, 'utf8').split('\n').filter((line) => line.startsWith('started')).length;

    const first = await run();
    expect(toolNames(first)).toContain('mcp__probe__peek');
    expect(has(first, 'proj-skill')).toBe(false);
    expect(startCount()).toBe(1);

    // Nothing changed: the same session, its MCP server still the one started for the first run.
    await run();
    expect(startCount()).toBe(1);

    // Settings: a subagent.
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ subagents: [{ name: 'warm-reviewer', description: 'Reviews warmly.', systemPrompt: 'You review.' }] }));
    expect(has(await run(), 'warm-reviewer')).toBe(true);
    // A changed settings.json is a session opened again (its server started again).
    expect(startCount()).toBe(2);

    // The person's skill.
    writeSkill(join(t.dataDir, 'skills'), 'warm-skill', 'A skill added between runs.');
    expect(has(await run(), 'warm-skill')).toBe(true);

    // Trust given in another process: the folder's skill loads.
    const trusted = await t.deepdesk(['trust', '--folder', t.folder], { HOME: home });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(has(await run(), 'proj-skill')).toBe(true);

    // The folder's configuration changed after trust: the changed skill is not trusted any more.
    writeSkill(join(t.folder, '.claude', 'skills'), 'proj-skill', 'The project skill, changed.');
    expect(has(await run(), 'proj-skill')).toBe(false);
    await t.deepdesk(['trust', '--folder', t.folder], { HOME: home });
    expect(has(await run(), 'The project skill, changed.')).toBe(true);

    // The person's hook.
    expect(existsSync(marker)).toBe(false);
    writeFileSync(join(t.dataDir, 'hooks.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch "${marker}"` }] }] } }));
    await run();
    expect(existsSync(marker)).toBe(true);

    // The person's MCP servers.
    writeFileSync(join(t.dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { probe: probe(starts), second: probe(`${starts}.2`) } }));
    expect(toolNames(await run())).toEqual(expect.arrayContaining(['mcp__probe__peek', 'mcp__second__peek']));

    // Trust revoked: the folder's skill is gone from the next run.
    const revoked = await t.deepdesk(['trust', '--revoke', '--folder', t.folder], { HOME: home });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(has(await run(), 'proj-skill')).toBe(false);
  }, 180_000);
});
