// MCP rule names are matched by their `__`-separated parts (SPEC §10 "Approval"): a rule
// naming one server covers that server's tools and no other's, whatever another server is
// called. Tool names here are made as the hub makes them (naming.ts).
import { describe, expect, it } from 'vitest';
import { qualifiedName, serverParts } from '../../extensions/mcp/naming';
import { DEFAULT_RULES, evaluatePermission, suggestAllowRule } from './rules';
import { parseMcpName } from './tool-targets';
import type { PermissionRule } from './types';

/** What a rule decides for a tool, with the defaults behind it (an MCP tool asks by default). */
const decide = (rule: string, tool: string, decision: PermissionRule['decision'] = 'allow') =>
  evaluatePermission({ tool, args: {} }, [{ tools: [rule], decision }, ...DEFAULT_RULES]).decision;

/** The tool names of servers configured together, as the hub names them. */
function toolsOf(servers: string[], tool = 'read'): Map<string, string | null> {
  const parts = serverParts(servers);
  return new Map(servers.map((s) => [s, parts.get(s) === null ? null : qualifiedName(parts.get(s)!, tool)]));
}

describe('allow rules match MCP tool names by parts', () => {
  it.each([
    // rule, tool, allowed?
    ['mcp__notes__*', 'mcp__notes__read', true],
    ['mcp__notes__*', 'mcp__notes___read', true],
    ['mcp__notes__*', 'mcp__notes___x__read', true],
    ['mcp__notes__*', 'mcp__notes_x__read', false],
    ['mcp__notes__*', 'mcp__notesx__read', false],
    ['mcp__notes__*', 'mcp__note__read', false],
    ['mcp__notes__*', 'mcp__notes', false],
    ['mcp__notes__read', 'mcp__notes__read_all', false],
    ['mcp__notes__read*', 'mcp__notes__read_all', true],
    ['mcp__notes__read*', 'mcp__notes_x__read_all', false],
    ['mcp__notes*', 'mcp__notes__read', false],
    ['mcp__notes*', 'mcp__notes_x__read', false],
    ['mcp__no*__read', 'mcp__notes__read', false],
    ['mcp__*', 'mcp__notes__read', true],
    ['mcp__*', 'mcp__anything', true],
    ['mcp__*', 'write_todos', true],
    ['*', 'mcp__notes__read', true],
    ['mcp__git__*', 'mcp__github__read', false],
  ])('%s on %s: %s', (rule, tool, allowed) => {
    expect(decide(rule, tool)).toBe(allowed ? 'allow' : tool.startsWith('mcp__') ? 'ask' : 'allow');
  });

  it('"Always allow" offers the tool\'s own name, which covers no other server\'s tool', () => {
    const rule = suggestAllowRule({ tool: 'mcp__notes__read', args: {} })!;
    expect(evaluatePermission({ tool: 'mcp__notes__read', args: {} }, [rule, ...DEFAULT_RULES]).decision).toBe('allow');
    expect(evaluatePermission({ tool: 'mcp__notes___read', args: {} }, [rule, ...DEFAULT_RULES]).decision).toBe('ask');
  });
});

describe('deny and ask rules cover at least what they say', () => {
  it.each([
    ['mcp__notes__*', 'mcp__notes__read', true],
    ['mcp__notes__*', 'mcp__notes_x__read', false],
    ['mcp__notes*', 'mcp__notes__read', true],
    ['mcp__notes*', 'mcp__notes_x__read', true],
    ['mcp__*', 'mcp__notes__read', true],
  ])('%s on %s: %s', (rule, tool, covered) => {
    expect(decide(rule, tool, 'deny')).toBe(covered ? 'deny' : 'ask');
    const asked = evaluatePermission({ tool, args: {} }, [{ tools: [rule], decision: 'ask' }, { tools: ['mcp__*'], decision: 'allow' }]).decision;
    expect(asked).toBe(covered ? 'ask' : 'allow');
  });
});

describe('no server passes for another in tool names', () => {
  const personRule = (server: string) => `mcp__${server}__*`;

  it.each([
    ['a trailing underscore', 'notes_'],
    ['a leading underscore', '_notes'],
    ['a double underscore', 'notes__x'],
    ['a name that cleans to the same', 'no.tes'],
    ['one only cleaning tells apart', 'notes!'],
  ])('a repository server with %s (%s) is not covered by the person\'s rule for notes', (_what, theirs) => {
    const tools = toolsOf(['notes', theirs]);
    const mine = tools.get('notes')!;
    const their = tools.get(theirs);
    if (their !== null && their !== undefined) {
      expect(decide(personRule('notes'), their)).toBe('ask');
      expect(decide(mine, their)).toBe('ask');
      expect(parseMcpName(their)!.server).not.toBe('notes');
    }
  });

  it('servers whose names clean alike all get their own part, whichever loaded; none keeps the plain one', () => {
    const together = toolsOf(['a.b', 'a_b']);
    const plain = 'mcp__a_b__read';
    expect([...together.values()]).not.toContain(plain);
    expect(new Set(together.values()).size).toBe(2);
    for (const name of together.values()) expect(parseMcpName(name!)!.server).toMatch(/^a_b_[0-9a-f]{8}$/);
    // Alone, a name keeps its plain part.
    expect(toolsOf(['a.b']).get('a.b')).toBe(plain);
    expect(toolsOf(['a_b']).get('a_b')).toBe(plain);
  });

  it('a server named to equal another\'s hashed part is refused, and so is that other', () => {
    const hashed = parseMcpName(toolsOf(['a.b', 'a_b']).get('a.b')!)!.server;
    const parts = serverParts(['a.b', 'a_b', hashed]);
    expect(parts.get('a.b')).toBeNull();
    expect(parts.get(hashed)).toBeNull();
    expect(parts.get('a_b')).not.toBeNull();
  });

  it('a long server name is never cut into: its part is whole, and rules on it match only its tools', () => {
    const long = `${'s'.repeat(40)}`;
    const tools = toolsOf([long, `${long}x`], 't'.repeat(80));
    const [first, second] = [tools.get(long)!, tools.get(`${long}x`)!];
    expect(first.length).toBeLessThanOrEqual(64);
    expect(parseMcpName(first)!.server).not.toBe(parseMcpName(second)!.server);
    expect(decide(`mcp__${parseMcpName(first)!.server}__*`, second)).toBe('ask');
    expect(decide(`mcp__${parseMcpName(first)!.server}__*`, first)).toBe('allow');
  });

  it('every server part is well formed: no `__`, no leading or trailing `_`, at most 32 characters', () => {
    const names = ['notes', 'notes_', '__', '_', '', 'a__b__c', 'ß', 'x'.repeat(100), 'a.b', 'a_b', 'a b', '-', 'mcp'];
    for (const part of serverParts(names).values()) {
      if (part === null) continue;
      expect(part).not.toMatch(/__|^_|_$/);
      expect(part.length).toBeGreaterThan(0);
      expect(part.length).toBeLessThanOrEqual(32);
    }
  });
});
