import { describe, expect, it } from 'vitest';
import { APPROVAL_MODES, decideCall, type ApprovalMode } from './modes';
import { DEFAULT_RULES } from './rules';
import type { PermissionRequest, PermissionRule } from './types';

type Op = 'read' | 'write' | 'edit' | 'command' | 'outside';
type RuleDecision = 'none' | 'allow' | 'ask' | 'deny';

const requests: Record<Op, PermissionRequest> = {
  read: { tool: 'read_file', args: { file_path: '/src/a.ts' } },
  write: { tool: 'write_file', args: { file_path: '/src/a.ts', content: 'x' } },
  edit: { tool: 'edit_file', args: { file_path: '/src/a.ts', old_string: 'a', new_string: 'b' } },
  command: { tool: 'execute', args: { command: 'npm test' } },
  outside: { tool: 'execute', args: { command: 'npm test', sandbox: false, reason: 'needs the network' } },
};

/** A rule of the person's that covers the call, with the given decision. */
function personRule(op: Op, decision: Exclude<RuleDecision, 'none'>): PermissionRule {
  if (op === 'command' || op === 'outside') return { tools: ['execute'], commands: ['npm test'], decision };
  return { tools: [requests[op].tool], paths: ['/src/**'], decision };
}

/** SPEC §7's table, written out independently of modes.ts. */
function expected(mode: ApprovalMode, op: Op, rule: RuleDecision, sandbox: boolean): string {
  if (rule === 'deny') return 'deny';
  if (op === 'read') return rule === 'ask' ? 'ask' : 'allow';
  if (mode === 'plan') return 'refuse';
  if (op === 'outside') return 'ask';
  if (rule === 'ask') return 'ask';
  if (rule === 'allow') return 'allow';
  if (op === 'write' || op === 'edit') return mode === 'edit' || mode === 'auto' ? 'allow' : 'ask';
  return mode === 'auto' && sandbox ? 'allow' : 'ask';
}

const ops: Op[] = ['read', 'write', 'edit', 'command', 'outside'];
const ruleDecisions: RuleDecision[] = ['none', 'allow', 'ask', 'deny'];
const cases = APPROVAL_MODES.flatMap((mode) =>
  ops.flatMap((op) => ruleDecisions.flatMap((rule) => [true, false].map((sandbox) => [mode, op, rule, sandbox, expected(mode, op, rule, sandbox)] as const))),
);

describe('decideCall: every mode × operation × rule decision × sandbox availability', () => {
  it.each(cases)('%s mode, %s, rule %s, sandbox %s → %s', (mode, op, rule, sandbox, outcome) => {
    const rules = rule === 'none' ? DEFAULT_RULES : [personRule(op, rule), ...DEFAULT_RULES];
    const decision = decideCall(requests[op], { mode, rules, sandboxAvailable: sandbox });
    expect(decision.decision).toBe(outcome);
    if (op === 'outside' && outcome === 'ask') {
      expect(decision).toMatchObject({ outsideSandbox: { reason: 'needs the network' } });
    }
  });
});

describe('decideCall: guards beat every mode', () => {
  const auto = { mode: 'auto' as const, rules: DEFAULT_RULES, sandboxAvailable: true };

  it.each(['/.git/config', '/.git/hooks/pre-commit', '/.env', '/.env.local', '/.deepdesk/x', '/sub/.git/HEAD'])('a write to %s asks in edit and auto', (path) => {
    for (const mode of ['edit', 'auto'] as const) {
      expect(decideCall({ tool: 'write_file', args: { file_path: path, content: 'x' } }, { ...auto, mode }).decision).toBe('ask');
      expect(decideCall({ tool: 'edit_file', args: { file_path: path, old_string: 'a', new_string: 'b' } }, { ...auto, mode }).decision).toBe('ask');
    }
  });

  it('a person\'s allow rule does not open a protected path in any mode', () => {
    const rules = [{ tools: ['write_file'], paths: ['**'], decision: 'allow' as const }, ...DEFAULT_RULES];
    for (const mode of ['ask', 'edit', 'auto'] as const) {
      expect(decideCall({ tool: 'write_file', args: { file_path: '/.git/config', content: 'x' } }, { ...auto, mode, rules }).decision).toBe('ask');
    }
  });

  it('in auto, a command naming a protected path asks; one the analyser cannot prove inert runs contained', () => {
    expect(decideCall({ tool: 'execute', args: { command: 'echo x > .git/hooks/pre-commit' } }, auto).decision).toBe('ask');
    expect(decideCall({ tool: 'execute', args: { command: 'rm -rf .git' } }, auto).decision).toBe('ask');
    expect(decideCall({ tool: 'execute', args: { command: 'cat --file=.env' } }, auto).decision).toBe('ask');
    expect(decideCall({ tool: 'execute', args: { command: 'echo $(date) > out.txt && ls | wc -l' } }, auto).decision).toBe('allow');
  });

  it('in auto, a person\'s ask rule on one part is not hidden behind another part', () => {
    const rules = [{ tools: ['execute'], commands: ['git push'], decision: 'ask' as const }, ...DEFAULT_RULES];
    expect(decideCall({ tool: 'execute', args: { command: 'echo $(date); git push' } }, { ...auto, rules }).decision).toBe('ask');
    expect(decideCall({ tool: 'execute', args: { command: 'ls; git push origin main' } }, { ...auto, rules }).decision).toBe('ask');
    expect(decideCall({ tool: 'execute', args: { command: 'ls; git status' } }, { ...auto, rules }).decision).toBe('allow');
  });

  it('deny rules beat auto and plan, also inside compound commands', () => {
    const rules = [{ tools: ['execute'], commands: ['rm'], decision: 'deny' as const }, ...DEFAULT_RULES];
    expect(decideCall({ tool: 'execute', args: { command: 'ls && rm -f x' } }, { ...auto, rules }).decision).toBe('deny');
    expect(decideCall({ tool: 'execute', args: { command: 'rm -f x', sandbox: false } }, { ...auto, rules }).decision).toBe('deny');
  });

  it('anything but an absent or true `sandbox` counts as outside, and asks even where a rule allows', () => {
    const rules = [{ tools: ['execute'], commands: ['ls'], decision: 'allow' as const }, ...DEFAULT_RULES];
    for (const sandbox of [false, 'false', 0, null]) {
      const decision = decideCall({ tool: 'execute', args: { command: 'ls', sandbox } }, { ...auto, rules });
      expect(decision).toMatchObject({ decision: 'ask', outsideSandbox: { reason: '(no reason given)' } });
    }
    expect(decideCall({ tool: 'execute', args: { command: 'ls', sandbox: true } }, { ...auto, rules }).decision).toBe('allow');
  });

  it('tools without side effects of their own run in every mode, plan included', () => {
    for (const mode of APPROVAL_MODES) {
      expect(decideCall({ tool: 'write_todos', args: { todos: [] } }, { ...auto, mode }).decision).toBe('allow');
      expect(decideCall({ tool: 'grep', args: { pattern: 'x' } }, { ...auto, mode }).decision).toBe('allow');
    }
  });
});
