import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandMatches, matchesClaudeRule, parseClaudeRule, pathMatches, type ClaudeRule } from './claude-rule';

const folder = '/work/proj';
const rule = (text: string): ClaudeRule => {
  const parsed = parseClaudeRule(text);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed;
};
const call = (tool_name: string, tool_input: Record<string, unknown>) => ({ tool_name, tool_input });

describe("Claude Code's permission-rule syntax", () => {
  it('reads Tool and Tool(specifier), and says what is not a rule', () => {
    expect(rule('Bash(npm test:*)')).toEqual({ text: 'Bash(npm test:*)', tool: 'Bash', specifier: 'npm test:*' });
    expect(rule('Bash')).toEqual({ text: 'Bash', tool: 'Bash' });
    expect(rule('Bash(*)')).toEqual({ text: 'Bash(*)', tool: 'Bash' });
    expect(rule('mcp__github__create_issue')).toMatchObject({ tool: 'mcp__github__create_issue' });
    expect(parseClaudeRule('Bash(')).toEqual({ problem: expect.stringContaining("'Bash(' is not a rule") });
  });

  it('matches commands by prefix (`:*`), by wildcard, or whole', () => {
    expect(commandMatches('git push:*', 'git push origin main')).toBe(true);
    expect(commandMatches('git push:*', 'git pushx')).toBe(false);
    expect(commandMatches('rm -rf:*', '  rm -rf /tmp/x')).toBe(true);
    expect(commandMatches('git * main', 'git push origin main')).toBe(true);
    expect(commandMatches('npm test', 'npm test')).toBe(true);
    expect(commandMatches('npm test', 'npm test --watch')).toBe(false);
  });

  it('matches paths gitignore-style from the folder, the home folder or the root', () => {
    expect(pathMatches('*.env', `${folder}/config/prod.env`, folder)).toBe(true);
    expect(pathMatches('*.env', `${folder}/config/prod.ts`, folder)).toBe(false);
    expect(pathMatches('./src/**', `${folder}/src/a/b.ts`, folder)).toBe(true);
    expect(pathMatches('src/**', `${folder}/lib/b.ts`, folder)).toBe(false);
    expect(pathMatches('/secrets', `${folder}/secrets/key.pem`, folder)).toBe(true);
    expect(pathMatches('//etc/**', '/etc/passwd', folder)).toBe(true);
    expect(pathMatches('~/.ssh/**', join(homedir(), '.ssh', 'id_rsa'), folder)).toBe(true);
    expect(pathMatches('src/**', '/elsewhere/src/a.ts', folder)).toBe(false);
  });

  it('an Edit rule covers every tool that changes files, a Read rule every tool that reads them; MCP rules by server', () => {
    expect(matchesClaudeRule(rule('Edit(*.env)'), call('Write', { file_path: `${folder}/.env` }), folder)).toBe(true);
    expect(matchesClaudeRule(rule('Write(*.env)'), call('Write', { file_path: `${folder}/app.ts` }), folder)).toBe(false);
    expect(matchesClaudeRule(rule('Write(*.env)'), call('Edit', { file_path: `${folder}/.env` }), folder)).toBe(false);
    expect(matchesClaudeRule(rule('Read(./src/**)'), call('Grep', { pattern: 'x', path: `${folder}/src` }), folder)).toBe(true);
    expect(matchesClaudeRule(rule('Bash(git push:*)'), call('Bash', { command: 'git push origin main' }), folder)).toBe(true);
    expect(matchesClaudeRule(rule('Bash(git push:*)'), call('Write', { file_path: `${folder}/x` }), folder)).toBe(false);
    expect(matchesClaudeRule(rule('mcp__github'), call('mcp__github__create_issue', {}), folder)).toBe(true);
    expect(matchesClaudeRule(rule('mcp__github__*'), call('mcp__github__create_issue', {}), folder)).toBe(true);
    expect(matchesClaudeRule(rule('mcp__github'), call('mcp__githubx__create_issue', {}), folder)).toBe(false);
  });
});
