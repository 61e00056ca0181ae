// MCP tools under the rules and the modes (SPEC §10 "Approval"): they ask in ask, edit and
// auto unless a rule allows them; rule names `mcp__s__t`, `mcp__s__*`, `mcp__*`; deny wins;
// plan runs only the server's read-only tools; "Always allow" offers the tool's rule.
import { describe, expect, it } from 'vitest';
import { APPROVAL_MODES, decideCall, type ApprovalMode } from './modes';
import { DEFAULT_RULES, evaluatePermission, suggestAllowRule } from './rules';
import type { PermissionRequest, PermissionRule } from './types';

const call = { tool: 'mcp__github__create_issue', args: { title: 'x', path: '/.git/config' } };
const readOnlyCall = { tool: 'mcp__github__list_issues', args: {} };
const readOnlyTool = (name: string): boolean => name === 'mcp__github__list_issues';
const decide = (mode: ApprovalMode, rules: PermissionRule[], request: PermissionRequest = call) =>
  decideCall(request, { mode, rules: [...rules, ...DEFAULT_RULES], sandboxAvailable: true, readOnlyTool }).decision;

describe('MCP tools and the modes', () => {
  it.each(['ask', 'edit', 'auto'] as const)('%s: an MCP tool asks without a rule (the default rules do not cover it)', (mode) => {
    expect(decide(mode, [])).toBe('ask');
    expect(decide(mode, [], readOnlyCall)).toBe('ask');
  });

  it.each([['mcp__github__create_issue'], ['mcp__github__*'], ['mcp__*'], ['*']])('a rule naming %s allows it in ask, edit and auto', (name) => {
    for (const mode of ['ask', 'edit', 'auto'] as const) expect(decide(mode, [{ tools: [name], decision: 'allow' }])).toBe('allow');
  });

  it('prefix rules stop at the server: mcp__git__* does not cover mcp__github__…; a star elsewhere is no wildcard', () => {
    expect(decide('auto', [{ tools: ['mcp__git__*'], decision: 'allow' }])).toBe('ask');
    expect(decide('auto', [{ tools: ['mcp__github__create*'], decision: 'allow' }])).toBe('allow');
    expect(decide('ask', [{ tools: ['write*'], decision: 'deny' }], { tool: 'write_todos', args: {} })).toBe('allow');
    expect(evaluatePermission({ tool: 'write_file', args: { file_path: '/a' } }, [{ tools: ['mcp__*'], decision: 'allow' }, ...DEFAULT_RULES]).decision).toBe('ask');
  });

  it('deny wins over a later allow and over every mode, plan included', () => {
    const rules: PermissionRule[] = [{ tools: ['mcp__github__*'], decision: 'deny' }, { tools: ['mcp__*'], decision: 'allow' }];
    for (const mode of APPROVAL_MODES) {
      expect(decide(mode, rules)).toBe('deny');
      expect(decide(mode, rules, readOnlyCall)).toBe('deny');
    }
  });

  it('plan: only read-only tools run (still under the rules); the rest are refused', () => {
    expect(decide('plan', [{ tools: ['mcp__*'], decision: 'allow' }])).toBe('refuse');
    expect(decide('plan', [{ tools: ['mcp__*'], decision: 'allow' }], readOnlyCall)).toBe('allow');
    expect(decide('plan', [], readOnlyCall)).toBe('ask');
    // Without knowledge of the annotations, nothing counts as read-only.
    expect(decideCall(readOnlyCall, { mode: 'plan', rules: [{ tools: ['mcp__*'], decision: 'allow' }], sandboxAvailable: true }).decision).toBe('refuse');
  });

  it('an MCP tool\'s path arguments are not virtual paths: path rules and protected paths do not apply', () => {
    const rules: PermissionRule[] = [{ tools: ['*'], paths: ['/.git/**'], decision: 'deny' }, { tools: ['mcp__*'], decision: 'allow' }];
    expect(decide('auto', rules)).toBe('allow');
  });

  it('other tools without an operation (task, write_todos) are still allowed by default', () => {
    expect(decide('ask', [], { tool: 'write_todos', args: {} })).toBe('allow');
    expect(decide('plan', [], { tool: 'tool_search', args: { query: 'x' } })).toBe('allow');
  });
});

describe('"Always allow" for an MCP tool', () => {
  it('offers the tool\'s own rule, whatever the arguments, and the rule then allows it', () => {
    const rule = suggestAllowRule(call)!;
    expect(rule).toEqual({ tools: ['mcp__github__create_issue'], decision: 'allow', description: 'Always allow the MCP tool `mcp__github__create_issue`, whatever its arguments' });
    expect(decide('ask', [rule])).toBe('allow');
    expect(decide('ask', [rule], readOnlyCall)).toBe('ask');
  });
});
