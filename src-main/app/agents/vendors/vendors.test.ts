// One module per vendor (issue 77 item 5), chosen by id: each request shape as measured from the
// real adapters (../shared/acp-agents-offline.md), each vendor's allow-rules left out of its
// private home, the person's added command under every vendor's quirks, and (issue 79 item 13)
// a price for every model the catalog's agents call by default.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolvePrice } from '../../../core/models/model-info';
import { AGENT_CONFIG } from '../../../core/agent/permissions/agent-config.test-support';
import { sensitiveWrite } from '../../../core/agent/permissions/sensitive-writes';
import { AGENT_CONFIG_PATHS, KNOWN_AGENTS, knownAgent, vendorOf, type AgentVendor } from './catalog';
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

  it("names every agent's configuration in a project folder, each from its vendor: a write there is sensitive (as core's tests take it)", () => {
    expect([...AGENT_CONFIG_PATHS].sort()).toEqual([...AGENT_CONFIG].sort());
    for (const path of ['/.codex/config.toml', '/.gemini/settings.json', '/opencode.json', '/.cursor/mcp.json']) expect(sensitiveWrite(path, undefined, AGENT_CONFIG_PATHS)?.kind, path).toBe('agent-instructions');
    expect(sensitiveWrite('/.codex/config.toml')).toBeNull();
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

  it("Gemini CLI: settings' allowed tools, approval modes, policy paths and allowed or trusted MCP servers; its policy files whole", () => {
    const dir = home({
      '.gemini/settings.json': JSON.stringify({
        autoAccept: true,
        policyPaths: ['/elsewhere'],
        tools: { allowed: ['run_shell_command'], exclude: ['x'] },
        general: { defaultApprovalMode: 'auto_edit', vimMode: true },
        mcp: { allowed: ['*'], autoAllowInHeadless: true, serverCommand: 'x' },
        mcpServers: { ev: { command: 'ev', trust: true } },
      }),
      // An allow rule as an inline table, which no line of its own names.
      '.gemini/policies/auto-saved.toml': 'rule = [{ toolName = "run_shell_command", decision = """allow""", priority = 999 }]\n',
    });
    knownAgent('gemini')!.withoutAllowRules(dir);
    expect(json(dir, '.gemini/settings.json')).toEqual({ tools: { exclude: ['x'] }, general: { vimMode: true }, mcp: { serverCommand: 'x' }, mcpServers: { ev: { command: 'ev' } } });
    expect(existsSync(join(dir, '.gemini/policies'))).toBe(false);
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

  it('a settings file that is not a JSON object (comments, which Gemini CLI reads) is removed, not carried over', () => {
    const dir = home({ '.claude/settings.json': '{ // a comment\n"permissions": {"allow": ["Bash(*)"]}}', '.gemini/settings.json': '// x\n{"tools": {"allowed": ["run_shell_command"]}}' });
    knownAgent('claude-code')!.withoutAllowRules(dir);
    knownAgent('gemini')!.withoutAllowRules(dir);
    expect(existsSync(join(dir, '.claude/settings.json'))).toBe(false);
    expect(existsSync(join(dir, '.gemini/settings.json'))).toBe(false);
  });

  it('links the agent planted in its private home are never followed: the person’s files they lead to stay as they are', () => {
    const person = home({
      '.codex/config.toml': 'model = "mine"\n',
      '.codex/rules/mine.rules': 'prefix_rule(pattern=["ls"])\n',
      '.gemini/settings.json': JSON.stringify({ tools: { allowed: ['mine'] } }),
      '.gemini/policies/mine.toml': '[[rule]]\ntoolName = "x"\ndecision = "allow"\n',
      '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Mine'] } }),
      'notes.json': JSON.stringify({ projects: { '/p': { allowedTools: ['Write'] } } }),
    });
    const before = snapshot(person);
    const dir = home({});
    for (const entry of ['.codex', '.gemini']) symlinkSync(join(person, entry), join(dir, entry));
    mkdirSync(join(dir, '.claude'));
    symlinkSync(join(person, '.claude', 'settings.json'), join(dir, '.claude', 'settings.json'));
    symlinkSync(join(person, 'notes.json'), join(dir, '.claude.json'));
    for (const id of ['codex', 'gemini', 'claude-code']) {
      knownAgent(id)!.withoutAllowRules(dir);
      knownAgent(id)!.configureHome?.(dir, 'http://127.0.0.1:3129');
    }
    expect(snapshot(person)).toEqual(before);
    // The agent's own entries are its own again: Deepdesk's configuration there, no link.
    expect(lstatSync(join(dir, '.codex')).isDirectory()).toBe(true);
    expect(readFileSync(join(dir, '.codex', 'config.toml'), 'utf8')).toContain('approval_policy = "untrusted"');
    for (const rel of ['.gemini', '.claude/settings.json', '.claude.json']) expect(existsSync(join(dir, rel)), rel).toBe(false);
  });
});

/** Every file under `dir` (relative path → content). */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const rel of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (lstatSync(join(dir, rel)).isFile()) files[rel] = readFileSync(join(dir, rel), 'utf8');
  }
  return files;
}
