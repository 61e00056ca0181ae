// One module per vendor (issue 77 item 5), chosen by id: each request shape as measured from the
// real adapters (../shared/acp-agents-offline.md), each vendor's allow-rules left out of its
// private home, the person's added command under every vendor's quirks, and (issue 79 item 13)
// a price for every model the catalog's agents call by default.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolvePrice } from '../../../core/models/model-info';
import { KNOWN_AGENTS, knownAgent, vendorOf, type AgentVendor } from './catalog';
import { inEveryShape } from './generic';

/** How the agent of this id names a request's command and paths; an id the catalog lacks is read in every vendor's shape. */
function describeRequest(vendorId: string): AgentVendor['describeRequest'] {
  return knownAgent(vendorId)?.describeRequest ?? ((call) => inEveryShape(call, KNOWN_AGENTS));
}

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** A private home holding these files (relative path → content). */
function home(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'vendor-home-'));
  homes.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const json = (dir: string, path: string): unknown => JSON.parse(readFileSync(join(dir, path), 'utf8'));

describe('the catalog', () => {
  it('prices every model its agents call by default (Codex calls gpt-5.5), so a budget can hold them', () => {
    const unpriced = KNOWN_AGENTS.flatMap((a) => a.defaultModels.map((m) => `${a.priceProvider}:${m}`)).filter((id) => resolvePrice(id) === null);
    expect(unpriced).toEqual([]);
    expect(knownAgent('codex')?.defaultModels).toContain('gpt-5.5');
  });

  it('chooses a vendor by id; one module each, with its row', () => {
    expect(KNOWN_AGENTS.map((a) => a.name)).toEqual(['claude-code', 'codex', 'gemini', 'opencode']);
    expect(knownAgent('opencode')).toMatchObject({ label: 'OpenCode', native: true, args: ['acp'], loginEntries: ['.config/opencode', '.local/share/opencode/auth.json'] });
    expect(knownAgent('nobody')).toBeUndefined();
  });
});

describe('request shapes', () => {
  it('Claude Code: the command a string in rawInput; a file in file_path, notebook_path or path', () => {
    const read = describeRequest('claude-code');
    expect(read({ kind: 'execute', title: '`npm test`', rawInput: { command: 'npm test', description: 'tests' } })).toEqual({ command: 'npm test', paths: [] });
    expect(read({ kind: 'edit', title: 'Write a.ts', locations: [{ path: '/p/a.ts' }], rawInput: { file_path: '/p/a.ts' } })).toEqual({ paths: ['/p/a.ts'] });
    expect(read({ kind: 'search', rawInput: { pattern: 'x', path: '/etc' } }).paths).toEqual(['/etc']);
  });

  it('Codex: an argv in rawInput (`bash -lc SCRIPT` is the script); a patch\'s files in locations and its changes', () => {
    const read = describeRequest('codex');
    expect(read({ kind: 'execute', title: 'x', rawInput: { command: ['bash', '-lc', 'npm test && rm -rf build'] } }).command).toBe('npm test && rm -rf build');
    expect(read({ kind: 'execute', title: 'x', rawInput: { command: ['git', 'commit', '-m', 'a b'] } }).command).toBe("git commit -m 'a b'");
    expect(read({ kind: 'edit', locations: [{ path: '/p/b.ts' }], rawInput: { changes: {} } })).toEqual({ paths: ['/p/b.ts'] });
    // A move's source is only a key of its changes: `locations` has where it goes.
    const move = read({ kind: 'edit', locations: [{ path: '/p/c.ts' }], rawInput: { changes: { '/p/.env': { type: 'update', move_path: '/p/c.ts' } } } });
    expect(move.paths.sort()).toEqual(['/p/.env', '/p/c.ts']);
  });

  it('Gemini CLI: the command is the title, no rawInput', () => {
    expect(describeRequest('gemini')({ kind: 'execute', title: 'ls -la' })).toEqual({ command: 'ls -la', paths: [] });
  });

  it('OpenCode: the command in rawInput, its working folder in locations; a file in filepath', () => {
    const read = describeRequest('opencode');
    expect(read({ kind: 'execute', title: 'bash', locations: [{ path: '/p' }], rawInput: { command: 'ls', cwd: '/p' } })).toEqual({ command: 'ls', paths: ['/p'] });
    expect(read({ kind: 'edit', title: 'a.ts', rawInput: { filepath: '/p/a.ts', diff: '…' } }).paths).toEqual(['/p/a.ts']);
  });

  it('an added command (or an id the catalog lacks) is read in every shape: its paths all kept', () => {
    const read = describeRequest('my-agent');
    expect(read({ kind: 'execute', title: 'Terminal', rawInput: { cmd: ['sh', '-c', 'make'] } }).command).toBe('make');
    expect(read({ kind: 'execute', title: 'make all' }).command).toBe('make all');
    expect(read({ kind: 'edit', rawInput: { file_path: '/a', filePath: '/b', notebook_path: '/c' } }).paths.sort()).toEqual(['/a', '/b', '/c']);
  });
});

describe("each vendor's allow-rules are left out of its private copy", () => {
  it("Claude Code: settings' allow and default mode, a project's allowed tools", () => {
    const dir = home({
      '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Bash(*)'], deny: ['Read(.env)'], defaultMode: 'bypassPermissions' }, model: 'opus' }),
      '.claude.json': JSON.stringify({ projects: { '/p': { allowedTools: ['Write'], history: [] } } }),
    });
    knownAgent('claude-code')!.withoutAllowRules(dir);
    expect(json(dir, '.claude/settings.json')).toEqual({ permissions: { deny: ['Read(.env)'] }, model: 'opus' });
    expect(json(dir, '.claude.json')).toEqual({ projects: { '/p': { history: [] } } });
  });

  it('Codex: its rules files, and its configuration replaced by the proxy provider in its most-asking setting', () => {
    const dir = home({ '.codex/rules/default.rules': 'prefix_rule(pattern=["rm"], decision="allow")\n', '.codex/config.toml': 'approval_policy = "never"\n' });
    const codex = knownAgent('codex')!;
    codex.withoutAllowRules(dir);
    codex.configureHome?.(dir, 'http://127.0.0.1:3129');
    expect(existsSync(join(dir, '.codex', 'rules'))).toBe(false);
    const config = readFileSync(join(dir, '.codex', 'config.toml'), 'utf8');
    expect(config).toContain('approval_policy = "untrusted"');
    expect(config).toContain('base_url = "http://127.0.0.1:3129/v1"');
    expect(config).not.toContain('never');
  });

  it("Gemini CLI: settings' allowed tools and approval modes, its policies' allow rules", () => {
    const dir = home({
      '.gemini/settings.json': JSON.stringify({ autoAccept: true, tools: { allowed: ['run_shell_command'], exclude: ['x'] }, general: { defaultApprovalMode: 'yolo', vimMode: true } }),
      '.gemini/policies/auto-saved.toml': '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 100\n\n[[rule]]\ntoolName = "web_fetch"\ndecision = "deny"\n',
    });
    knownAgent('gemini')!.withoutAllowRules(dir);
    expect(json(dir, '.gemini/settings.json')).toEqual({ tools: { exclude: ['x'] }, general: { vimMode: true } });
    expect(readFileSync(join(dir, '.gemini/policies/auto-saved.toml'), 'utf8')).toBe('[[rule]]\ntoolName = "web_fetch"\ndecision = "deny"\n');
  });

  it('OpenCode: its permission settings, its agents’ too', () => {
    const dir = home({ '.config/opencode/opencode.json': JSON.stringify({ permission: { bash: 'allow' }, agent: { build: { permission: { edit: 'allow' }, model: 'x' } }, theme: 'dark' }) });
    knownAgent('opencode')!.withoutAllowRules(dir);
    expect(json(dir, '.config/opencode/opencode.json')).toEqual({ agent: { build: { model: 'x' } }, theme: 'dark' });
  });

  it("an added command gets every vendor's: their allow-rules left out, their variables dropped, no login copied", () => {
    const added = vendorOf({ added: { name: 'mine', command: 'claude-code-acp', args: [], env: {} } });
    const dir = home({ '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Write'] } }), '.codex/rules/x.rules': 'prefix_rule(pattern=["ls"])\n' });
    added.withoutAllowRules(dir);
    expect(json(dir, '.claude/settings.json')).toEqual({ permissions: {} });
    expect(existsSync(join(dir, '.codex', 'rules'))).toBe(false);
    expect(added.droppedEnv).toContain('IS_SANDBOX');
    expect(added.loginEntries).toEqual([]);
  });

  it('a file that is not JSON is left as it is', () => {
    const dir = home({ '.claude/settings.json': '{ // a comment\n}' });
    knownAgent('claude-code')!.withoutAllowRules(dir);
    expect(readFileSync(join(dir, '.claude/settings.json'), 'utf8')).toBe('{ // a comment\n}');
  });
});
