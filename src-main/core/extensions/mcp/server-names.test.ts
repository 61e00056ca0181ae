// Server names against the person's rules, with real servers (the test fixture): a
// repository's server whose name is close to the person's (`notes_`, `notes__x`, `no.tes`)
// never gets a tool name that the person's `mcp__notes__*` covers, and its tool is never
// called under the person's server's name (SPEC §10 "Approval").
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RULES, evaluatePermission } from '../../agent/permissions/rules';
import { createTestHub, stdioEntry, TEST_SERVER, type TestHub } from './hub.test-support';
import { serverParts } from './naming';

let t: TestHub | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

const never = new AbortController().signal;
const allowNotes = [{ tools: ['mcp__notes__*'], decision: 'allow' as const }, ...DEFAULT_RULES];

describe('MCP server names and the person’s rules', () => {
  it('only the server notes’s tools and prompts are covered by mcp__notes__*, whatever the others are called', async () => {
    t = createTestHub();
    const names = ['notes', 'notes_', 'notes__x', '_notes', 'no.tes', 'no_tes'];
    await t.hub.configure(names.map((name) => stdioEntry(name, [TEST_SERVER])), []);
    expect(t.hub.states().map((s) => [s.name, s.status, s.error])).toEqual(names.map((name) => [name, 'connected', undefined]));
    const tools = t.hub.tools();
    expect(new Set(tools.map((tool) => tool.qualifiedName)).size).toBe(tools.length);
    for (const tool of tools) {
      const decision = evaluatePermission({ tool: tool.qualifiedName, args: {} }, allowNotes).decision;
      expect([tool.qualifiedName, decision]).toEqual([tool.qualifiedName, tool.server === 'notes' ? 'allow' : 'ask']);
    }
    // The prompts, which are slash commands of the same names, likewise.
    const prompts = t.hub.prompts().filter((p) => p.name === 'inject');
    expect(prompts.filter((p) => p.qualifiedName.startsWith('mcp__notes__')).map((p) => p.server)).toEqual(['notes']);
    // `no.tes` and `no_tes` clean alike: neither has the plain name, and each call reaches its own server.
    expect(tools.some((tool) => tool.qualifiedName.startsWith('mcp__no_tes__'))).toBe(false);
    const peeks = tools.filter((tool) => tool.name === 'peek' && ['no.tes', 'no_tes'].includes(tool.server));
    expect(peeks).toHaveLength(2);
    for (const peek of peeks) expect((await t.hub.callTool(peek.qualifiedName, {}, never)).text).toBe('peeked');
  }, 90_000);

  it('a server named to equal another’s hashed name is refused, and so is that other; neither ever runs', async () => {
    t = createTestHub();
    const hashed = serverParts(['a.b', 'a_b']).get('a.b')!;
    const log = join(t.folder, 'started.log');
    writeFileSync(log, '');
    await t.hub.configure([stdioEntry('a.b', [TEST_SERVER]), stdioEntry('a_b', [TEST_SERVER]), stdioEntry(hashed, [TEST_SERVER], { env: { MCP_TEST_LOG: log } })], []);
    const byName = new Map(t.hub.states().map((s) => [s.name, s]));
    expect(byName.get('a_b')!.status).toBe('connected');
    for (const name of ['a.b', hashed]) {
      expect(byName.get(name)!.status).toBe('failed');
      expect(byName.get(name)!.error).toMatch(/named like another MCP server's/);
    }
    expect(t.hub.tools().every((tool) => tool.server === 'a_b')).toBe(true);
    expect(readFileSync(log, 'utf8')).toBe('');
  }, 90_000);
});
