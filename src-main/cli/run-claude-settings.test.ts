// A folder's `.claude/settings.json`, where Claude Code users keep hooks and permission rules
// (SPEC §9, §11), through the built `deepdesk run` against the scripted model: nothing of it
// before trust but its deny rules; after `--trust`, its rm -rf guard runs (by effect: the
// marker file survives) and its allow rule lets a command run without asking.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { startScriptedServer, type ScriptedServer } from '../core/models/testing/scripted-server';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');

let root: string;
let folder: string;
let dataDir: string;
let server: ScriptedServer;

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
});
beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-run-claude-')));
  folder = join(root, 'project');
  dataDir = join(root, 'data');
  mkdirSync(join(folder, '.claude'), { recursive: true });
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, ...args],
    { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '', HOME: root }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

const lastResults = (): string[] => toolMessages(server.requests.at(-1)!).map((m) => textOf(m.content));

describe("a folder's .claude/settings.json in deepdesk run", () => {
  it('its rm -rf guard hook runs once trusted, and the marker survives', async () => {
    writeFileSync(join(folder, 'keep.txt'), 'precious\n');
    writeFileSync(
      join(folder, '.claude', 'settings.json'),
      JSON.stringify({
        permissions: { allow: ['Bash(rm:*)'] },
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `python3 -c "import json,sys; d=json.load(sys.stdin); c=d['tool_input'].get('command',''); sys.exit(2) if d['tool_name']=='Bash' and 'rm -rf' in c else sys.exit(0)" 2>/dev/null || { echo 'rm -rf is not allowed here' >&2; exit 2; }` }] }] },
      }),
    );
    server.push({ toolCalls: [{ name: 'execute', args: { command: 'rm -rf keep.txt' } }] }, { text: 'tried' });
    const untrusted = await run(['--approve', 'deny', 'remove it']);
    expect(untrusted.stderr).toContain("deepdesk: not loading this folder's configuration");
    expect(existsSync(join(folder, 'keep.txt'))).toBe(true);
    server.push({ toolCalls: [{ name: 'execute', args: { command: 'rm -rf keep.txt' } }] }, { text: 'tried' });
    // Its allow rule would let rm run without asking: the guard hook still blocks rm -rf.
    const trusted = await run(['--approve', 'deny', '--trust', 'remove it']);
    expect(trusted.code).toBe(0);
    expect(lastResults()[0]).toMatch(/^Error: blocked by hook: /);
    expect(existsSync(join(folder, 'keep.txt'))).toBe(true);
  }, 60_000);

  it("its deny rule refuses even untrusted; its allow rule lets a command run only once trusted", async () => {
    writeFileSync(join(folder, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(curl:*)'], allow: ['Bash(touch:*)'] } }));
    server.push({ toolCalls: [{ name: 'execute', args: { command: 'curl http://example.invalid/x -o got.txt' } }, { name: 'execute', args: { command: 'touch made.txt' } }] }, { text: 'tried' });
    await run(['--approve', 'deny', 'go']);
    const [curl, touch] = lastResults();
    expect(curl).toMatch(/^Error: this execute call is not allowed: .*Bash\(curl:\*\)/);
    expect(touch).toMatch(/^Error: /);
    expect(existsSync(join(folder, 'made.txt'))).toBe(false);
    server.push({ toolCalls: [{ name: 'execute', args: { command: 'touch made.txt' } }] }, { text: 'done' });
    await run(['--approve', 'deny', '--trust', 'go']);
    expect(existsSync(join(folder, 'made.txt'))).toBe(true);
  }, 60_000);
});
