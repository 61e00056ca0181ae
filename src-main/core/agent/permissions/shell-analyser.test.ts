// The analyser against hostile commands (issue 9 §1): with only inert commands allowed,
// nothing that bash would turn into code is allowed; deny rules hold however the denied
// program is spelled or wrapped; the rule suggester offers only inert forms.
import { describe, expect, it } from 'vitest';
import { sedScriptEffect } from './command-effects';
import { analyzeCommand } from './shell-parse';
import { DENY_EVASIONS, DENY_RM, INERT_ALLOW, MUST_NOT_ALLOW, STAYS_ALLOWED } from './shell-attacks.test-support';
import { evaluatePermission, suggestAllowRule } from './rules';
import type { PermissionRule } from './types';

const run = (command: string) => ({ tool: 'execute', args: { command } });
const decide = (command: string, rules: PermissionRule[]) => evaluatePermission(run(command), rules).decision;

describe('with only inert commands allowed, nothing that runs more is allowed', () => {
  for (const [kind, commands] of Object.entries(MUST_NOT_ALLOW)) {
    it.each(commands)(`${kind}: %j asks`, (command) => {
      expect(decide(command, [INERT_ALLOW])).not.toBe('allow');
    });
  }
});

describe('ordinary inert commands stay allowed', () => {
  it.each(STAYS_ALLOWED)('%j is allowed', (command) => {
    const verdict = evaluatePermission(run(command), [INERT_ALLOW]);
    expect(verdict.decision, verdict.reason).toBe('allow');
  });
});

describe('bounded work', () => {
  it('stops at hostile nesting of wrappers at its limit, asking', () => {
    const analysis = analyzeCommand(`${'sudo '.repeat(40)}rm x`);
    expect(analysis.alwaysAsk).toContain('the command holds too many commands to be checked');
    expect(decide(`${'nice '.repeat(40)}rm x`, [DENY_RM])).toBe('deny');
  });
});

describe('builtins that evaluate data ask behind any wrapper', () => {
  it.each(['command printf -v "a[\\$(touch M)]" y', 'builtin printf -v x y', 'command -p printf -v x y', '\\command test -v x', 'time read "a[\\$(id)]"', 'builtin eval id'])('%j', (command) => {
    expect(analyzeCommand(command).alwaysAsk).not.toEqual([]);
  });
});

describe('expansions proven inert stay allowed', () => {
  it.each(['echo "${arr[@]}" ${#arr[*]} ${a[0]}', '[[ $# -gt 0 ]] && echo yes', '[[ ${#x} -eq 3 ]]', 'echo ${x:-a} ${x+b} ${#x}'])('%j', (command) => {
    expect(analyzeCommand(command).alwaysAsk).toEqual([]);
  });

  it.each(['echo ${a[$i]}', '[[ $n -gt 0 ]]', '[[ "$#" -gt $n ]]', 'echo ${x:=a}'])('%j asks', (command) => {
    expect(analyzeCommand(command).alwaysAsk).not.toEqual([]);
  });
});

describe('deny rules cannot be evaded', () => {
  it.each(DENY_EVASIONS)('%j is denied', (command) => {
    const allowAll: PermissionRule = { tools: ['execute'], decision: 'allow' };
    expect(decide(command, [DENY_RM, allowAll])).toBe('deny');
  });
});

describe('decoding words as bash does', () => {
  const words = (command: string) => analyzeCommand(command).commands.map((c) => c.argv);
  it.each<[string, string[][]]>([
    ["$'\\x72m' x", [['rm', 'x']]],
    ["echo $'\\x4a\\101\\0101\\cA\\e\\?\\'\\\"'", [['echo', 'JA\b1\x01\x1b?\'"']]],
    ["echo $'\\x4'g", [['echo', '\x04g']]],
    ["echo $'\\u4'", [['echo', '\x04']]],
    ["echo $'\\q'", [['echo', '\\q']]],
    ['echo a\rb', [['echo', 'a\rb']]],
    ['echo\ta\x0bb', [['echo', 'a\x0bb']]],
    ['echo "a\\b\\$c\\"d\\`e"', [['echo', 'a\\b$c"d`e']]],
    ['echo a\\\nb', [['echo', 'ab']]],
    ['ec\\\nho a', [['echo', 'a']]],
    ['echo $"x"', [['echo', 'x']]],
    ["echo 'a'\"b\"c$'d'", [['echo', 'abcd']]],
  ])('%j → %j', (command, expected) => {
    expect(words(command)).toEqual(expected);
  });

  it('asks when it cannot decode exactly', () => {
    expect(analyzeCommand("echo $'\\u00e9'").alwaysAsk).not.toEqual([]);
    expect(analyzeCommand("echo $'\\xff'").alwaysAsk).not.toEqual([]);
    expect(analyzeCommand("echo $'a\\0b'").alwaysAsk).not.toEqual([]);
    expect(analyzeCommand("echo $'\\c'").alwaysAsk).not.toEqual([]);
    expect(analyzeCommand('echo \x01').alwaysAsk).not.toEqual([]);
  });
});

describe('suggested rules cover only inert forms', () => {
  it.each(['uniq IN OUT', 'rg --pre x y', 'sort -o out in', 'GIT_TRACE=/f git status', 'sed -i s/a/b/ f', 'git -c a=b status', 'less f'])(
    'offers no rule for %j',
    (command) => {
      const rule = suggestAllowRule(run(command));
      expect(rule === undefined || (rule.commands ?? []).length === 0).toBe(true);
    },
  );

  it.each<[string, string]>([
    ['uniq f', 'uniq IN OUT'],
    ['rg foo', 'rg --pre touch foo'],
    ['sort f', 'sort -o out f'],
    ['git status', 'git status --porcelain -c core.fsmonitor=x'],
    ['git diff', 'git diff --ext-diff'],
    ['sed -n 1p f', "sed 's/a/b/w out' f"],
    ['find . -name x', 'find . -exec touch M ;'],
    ['tar -tf x.tar', 'tar -xf x.tar'],
  ])('the rule offered for %j does not allow %j', (inert, dangerous) => {
    const rule = suggestAllowRule(run(inert))!;
    expect(decide(inert, [rule])).toBe('allow');
    expect(decide(dangerous, [rule])).not.toBe('allow');
  });
});

describe('sed scripts', () => {
  it.each(['p', '1,10p', 's/a/b/g', 's|a|b|2', '/x/d', '$!N; P; D', 'y/abc/xyz/', '/start/,/end/{s/a/b/;p}', '1i hello', 's/e/w/'])('%j is inert', (script) => {
    expect(sedScriptEffect(script)).toBeNull();
  });
  it.each(['w out', 's/a/b/w out', 's/a/b/e', '1e id', 'W out', '1!e id', 's/a/b/gw out', 'v', 'Z'])('%j writes, runs or is unknown', (script) => {
    expect(sedScriptEffect(script)).not.toBeNull();
  });
});
