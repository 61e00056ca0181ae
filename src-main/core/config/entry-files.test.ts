// What a trusted entry runs is part of what is trusted (SPEC §9), with real folders, a real
// trust.json and the real sandbox: a hook's script and an unsandboxed server's script are in
// the entry's digest (a change stops it loading), a sandboxed process cannot rewrite them,
// the list shows a remote server's headers and every variable of the person's an entry
// expands, and an entry expands no variable the list does not name.

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadHooks } from '../extensions/hooks/config';
import { startProcess } from '../sandbox/supervisor';
import { detectSandbox } from '../sandbox/index';
import { entryFilesReason, folderSandboxPolicy } from '../sandbox/protected-entry-files';
import { loadProjectConfiguration } from '../extensions/mcp/project-configuration';
import { trustReport } from '../trust/report';
import { TrustStore } from '../trust/store';

let root: string;
let folder: string;
let dataDir: string;
let store: TrustStore;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-entry-files-')));
  folder = join(root, 'project');
  dataDir = join(root, 'data');
  mkdirSync(join(folder, '.deepdesk'), { recursive: true });
  mkdirSync(join(folder, 'tools'));
  mkdirSync(dataDir);
  store = new TrustStore(dataDir);
});
afterEach(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

const hooks = (...commands: string[]): void =>
  writeFileSync(join(folder, '.deepdesk', 'hooks.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: commands.map((command) => ({ type: 'command', command })) }] } }));
const projectConfig = (servers: Record<string, unknown>): void => writeFileSync(join(folder, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
const trustAll = async (): Promise<void> => store.trust(folder, (await trustReport(folder, store, {})).untrusted);
const loadedHookCommands = (): string[] => loadHooks({ dataDir, folder, isTrusted: (e) => store.isTrusted(folder, e) }).hooks.map((h) => h.command);

describe("a hook's script is part of the hook", () => {
  it('a change to a script the command names (relative, ${CLAUDE_PROJECT_DIR}/…, quoted) stops the hook until trusted again', async () => {
    writeFileSync(join(folder, 'tools', 'a.sh'), 'echo a\n');
    writeFileSync(join(folder, 'tools', 'b.sh'), 'echo b\n');
    writeFileSync(join(folder, 'tools', 'c.py'), 'print(1)\n');
    hooks('sh tools/a.sh', 'bash "${CLAUDE_PROJECT_DIR}/tools/b.sh" --flag', 'python3 $CLAUDE_PROJECT_DIR/tools/c.py');
    await trustAll();
    expect(loadedHookCommands()).toHaveLength(3);

    writeFileSync(join(folder, 'tools', 'a.sh'), 'touch /tmp/pwned\n');
    writeFileSync(join(folder, 'tools', 'b.sh'), 'touch /tmp/pwned\n');
    writeFileSync(join(folder, 'tools', 'c.py'), 'import os\n');
    expect(loadedHookCommands()).toEqual([]);
    expect((await trustReport(folder, store, {})).untrusted.map((e) => e.kind)).toEqual(['hook', 'hook', 'hook']);
  });

  it('a script that was missing when the hook was trusted and appears later does not run', async () => {
    hooks('sh tools/later.sh');
    await trustAll();
    expect(loadedHookCommands()).toEqual(['sh tools/later.sh']);
    writeFileSync(join(folder, 'tools', 'later.sh'), 'touch /tmp/pwned\n');
    expect(loadedHookCommands()).toEqual([]);
  });

  it('a hook without files of the folder keeps the digest of its entry as written', async () => {
    hooks('echo hello');
    await trustAll();
    writeFileSync(join(folder, 'unrelated.txt'), 'x');
    expect(loadedHookCommands()).toEqual(['echo hello']);
  });

  it("the agent's writes to a hook's script ask (the backend's always-ask reason)", () => {
    writeFileSync(join(folder, 'tools', 'a.sh'), 'echo a\n');
    hooks('sh ./tools/a.sh');
    expect(entryFilesReason(folder, join(folder, 'tools', 'a.sh'))).toMatch(/runs it/);
    expect(entryFilesReason(folder, join(folder, 'tools', 'other.sh'))).toBeNull();
  });
});

describe("an unsandboxed server's script is part of the server", () => {
  it('a change to it stops the server from loading until trusted again; a sandboxed server is not affected', async () => {
    writeFileSync(join(folder, 'tools', 'server.cjs'), 'console.log(1)\n');
    projectConfig({ free: { command: 'node', args: ['tools/server.cjs'], sandbox: false }, boxed: { command: 'node', args: ['tools/server.cjs'] } });
    await trustAll();
    const before = await loadProjectConfiguration({ folder, dataDir, env: {}, store });
    expect(before.servers.map((s) => s.name)).toEqual(['free', 'boxed']);
    writeFileSync(join(folder, 'tools', 'server.cjs'), 'require("child_process").execSync("touch /tmp/pwned")\n');
    const after = await loadProjectConfiguration({ folder, dataDir, env: {}, store });
    expect(after.servers.map((s) => s.name)).toEqual(['boxed']);
    expect(after.report.untrusted.map((e) => e.key)).toEqual(['mcp:free']);
  });
});

describe('the sandbox cannot write what a trusted entry runs', () => {
  it("a sandboxed process of the folder cannot rewrite a hook's script or an unsandboxed server's script", async () => {
    if (!(await detectSandbox()).available) throw new Error('this test needs the sandbox (bubblewrap)');
    writeFileSync(join(folder, 'tools', 'a.sh'), 'echo a\n');
    writeFileSync(join(folder, 'tools', 'server.cjs'), 'console.log(1)\n');
    chmodSync(join(folder, 'tools', 'a.sh'), 0o755);
    hooks('${CLAUDE_PROJECT_DIR}/tools/a.sh');
    projectConfig({ free: { command: 'node', args: ['./tools/server.cjs'], sandbox: false } });
    const child = await startProcess({
      command: 'sh',
      args: ['-c', 'echo "touch /tmp/pwned" > tools/a.sh; echo pwned > tools/server.cjs; rm -f tools/a.sh; echo ok > tools/other.txt'],
      cwd: folder,
      env: {},
      sandbox: folderSandboxPolicy({ projectDir: folder, dataDir }),
    });
    await child.exited;
    expect(readFileSync(join(folder, 'tools', 'a.sh'), 'utf8')).toBe('echo a\n');
    expect(readFileSync(join(folder, 'tools', 'server.cjs'), 'utf8')).toBe('console.log(1)\n');
    // The rest of the folder is the command's to write.
    expect(readFileSync(join(folder, 'tools', 'other.txt'), 'utf8')).toBe('ok\n');
  });
});

describe("what a server sends is shown, and only the person's variables it names are expanded", () => {
  it("the list shows a remote server's headers and the names of the person's variables each entry expands", async () => {
    projectConfig({
      remote: { url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${OPENAI_API_KEY}' } },
      local: { command: 'srv', args: ['--token', '${GH_TOKEN:-none}'], env: { HOME_DIR: '${HOME}' } },
    });
    const labels = (await trustReport(folder, store, {})).entries.map((e) => e.label);
    expect(labels[0]).toContain("Authorization: 'Bearer ${OPENAI_API_KEY}'");
    expect(labels[0]).toContain('OPENAI_API_KEY');
    expect(labels[0]).toMatch(/your environment variables: OPENAI_API_KEY$/);
    expect(labels[1]).toMatch(/your environment variables: GH_TOKEN, HOME$/);
  });

  it('a trusted entry sends exactly the variables its list named; a new variable in it is a changed entry', async () => {
    projectConfig({ remote: { url: 'https://api.example.com/mcp', headers: { 'X-Team': '${TEAM}' } } });
    const env = { TEAM: 'blue', OPENAI_API_KEY: 'sk-secret' };
    const shown = await trustReport(folder, store, env);
    store.trust(folder, shown.untrusted);
    const loaded = await loadProjectConfiguration({ folder, dataDir, env, store });
    expect(loaded.servers).toMatchObject([{ name: 'remote', headers: { 'X-Team': 'blue' } }]);

    projectConfig({ remote: { url: 'https://api.example.com/mcp', headers: { 'X-Team': '${TEAM}', Authorization: 'Bearer ${OPENAI_API_KEY}' } } });
    const changed = await loadProjectConfiguration({ folder, dataDir, env, store });
    expect(JSON.stringify(changed.servers)).not.toContain('sk-secret');
    expect(changed.report.untrusted.map((e) => e.key)).toEqual(['mcp:remote']);
  });
});
