// `deepdesk plugin …` through the built bin (SPEC §15), against a marketplace in a real git
// repository served by file:// and by `git daemon` on 127.0.0.1: nothing installs unconfirmed,
// what was confirmed is what loads (skills, MCP servers in the plugin layout, commands,
// agents, hooks with CLAUDE_PLUGIN_ROOT), and an update or an edit of the copy asks again.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-plugin-cli');
const EVERYTHING = join(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let root: string;
let daemon: ChildProcess | undefined;
let port = 0;

const put = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

/** A marketplace repository with one plugin in Claude Code's layout. */
function marketplaceRepo(dir: string): void {
  put(join(dir, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'tools', owner: { name: 'Someone' }, plugins: [{ name: 'helper', source: './plugins/helper', description: 'Helps' }] }));
  const p = join(dir, 'plugins', 'helper');
  put(join(p, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'helper', version: '1.0.0', description: 'Helps', author: { name: 'Someone' } }));
  put(join(p, 'skills', 'tidy', 'SKILL.md'), '---\nname: tidy\ndescription: Use when the code needs tidying: formatting, imports\n---\nTidy it.\n');
  put(join(p, 'commands', 'review.md'), '---\ndescription: Review the change\nargument-hint: [file]\n---\nReview $ARGUMENTS\n');
  put(join(p, 'agents', 'checker.md'), '---\nname: checker\ndescription: Checks things\ntools: Read, Grep\n---\nYou check.\n');
  put(join(p, 'hooks', 'hooks.json'), JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/scripts/format.sh' }] }] } }));
  put(join(p, 'scripts', 'format.sh'), '#!/bin/sh\nexit 0\n');
  // Servers at the top level, as Claude Code's plugins have them.
  put(join(p, '.mcp.json'), JSON.stringify({ everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'marketplace');
}

/** A stdio MCP server in a plugin's own folder, as published plugins ship them (`node ${CLAUDE_PLUGIN_ROOT}/server.mjs`): it loads a module beside it, and says whether it could read the data folder's keys file. */
const BUNDLED_SERVER = `import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { note } from './lib/note.mjs';
let secrets = 'hidden';
try { readFileSync(join(import.meta.dirname, '..', '..', '..', 'secrets.json'), 'utf8'); secrets = 'READ'; } catch {}
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  if (method === 'initialize') send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bundled', version: '1.0.0' } } });
  else if (method === 'tools/list') send({ id, result: { tools: [{ name: 'probe', description: note + '; secrets: ' + secrets, inputSchema: { type: 'object', properties: {} } }] } });
  else send({ id, result: {} });
});
`;

/** A marketplace whose one plugin bundles its own MCP server. */
function bundledServerRepo(dir: string): void {
  put(join(dir, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'bundles', owner: { name: 'Someone' }, plugins: [{ name: 'bundler', source: './plugins/bundler', description: 'Ships a server' }] }));
  const p = join(dir, 'plugins', 'bundler');
  put(join(p, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'bundler', version: '1.0.0', description: 'Ships a server', author: { name: 'Someone' } }));
  put(join(p, 'server.mjs'), BUNDLED_SERVER);
  put(join(p, 'lib', 'note.mjs'), 'export const note = "from the plugin\'s own module";\n');
  put(join(p, '.mcp.json'), JSON.stringify({ bundled: { command: process.execPath, args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs'] } }));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'marketplace');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port: free } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return free;
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-market-')));
  marketplaceRepo(join(root, 'market'));
  bundledServerRepo(join(root, 'bundles'));
  port = await freePort();
  daemon = spawn('git', ['daemon', '--reuseaddr', '--export-all', `--base-path=${root}`, '--listen=127.0.0.1', `--port=${port}`, root], { stdio: 'ignore' });
  // Ready when it answers.
  for (let i = 0; i < 100; i++) {
    try {
      execFileSync('git', ['ls-remote', `git://127.0.0.1:${port}/market`], { stdio: 'ignore', timeout: 5_000 });
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
});
afterAll(() => {
  daemon?.kill();
  rmSync(root, { recursive: true, force: true });
});

const dd = (...args: string[]) => t.deepdesk(['plugin', ...args, '--data-dir', t.dataDir]);

describe('deepdesk plugin', () => {
  it('adds a marketplace over file://, installs only when confirmed, and what was confirmed loads', async () => {
    const added = await dd('marketplace', 'add', `file://${join(root, 'market')}`);
    expect(added.stderr).toBe('');
    expect(added.stdout).toContain('Added marketplace tools (1 plugin: helper)');
    expect((await dd('marketplace', 'ls')).stdout).toMatch(/^tools\s+file:\/\/.*\s+1 plugins: helper$/m);

    // No terminal and no --yes: the list is shown, nothing is installed.
    const refused = await dd('install', 'helper@tools');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain('Installing helper 1.0.0 would load:');
    expect(refused.stdout).toContain(`  MCP server everything: ${process.execPath}`);
    expect(refused.stdout).toContain('  Hook PostToolUse [Write]: ${CLAUDE_PLUGIN_ROOT}/scripts/format.sh');
    expect(refused.stdout).toContain('  Skill tidy');
    expect(refused.stdout).toContain('  Command /helper:review');
    expect(refused.stdout).toContain('  Subagent helper:checker');
    expect((await dd('ls')).stdout).toContain('No plugins installed');

    const installed = await dd('install', 'helper@tools', '--yes');
    expect(installed.code).toBe(0);
    expect((await dd('ls')).stdout).toMatch(/^helper\s+1\.0\.0\s+tools\s+enabled\s+1 skill, 1 command, 1 agent, 1 hook, 1 server$/m);

    // Its parts load as the person's.
    const skills = await t.deepdesk(['skills', 'ls', '--folder', t.folder, '--data-dir', t.dataDir]);
    expect(skills.stdout).toMatch(/^tidy\s+user\s+.*plugins\/installed\/helper\/skills\/tidy\/SKILL\.md$/m);
    const mcp = await t.deepdesk(['mcp', 'ls', '--folder', t.folder, '--data-dir', t.dataDir]);
    expect(mcp.stdout).toMatch(/^everything\s+stdio\s+connected\s+\d+ tools$/m);

    // Disabled, it does not load; enabled again, it does.
    await dd('disable', 'helper');
    expect((await t.deepdesk(['skills', 'ls', '--folder', t.folder, '--data-dir', t.dataDir])).stdout).not.toContain('tidy');
    await dd('enable', 'helper');

    // An update that changes anything asks again, and loads only once confirmed.
    appendFileSync(join(root, 'market', 'plugins', 'helper', 'skills', 'tidy', 'SKILL.md'), 'Also sort imports.\n');
    git(join(root, 'market'), 'commit', '-qam', 'change');
    const unconfirmed = await dd('update', 'helper');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stdout).toContain('Updating helper 1.0.0 would load:');
    expect((await dd('update', 'helper', '--yes')).code).toBe(0);
    expect((await dd('update', 'helper')).stdout).toContain('helper is up to date');

    // Anyone editing the installed copy: it stops loading until confirmed again.
    appendFileSync(join(t.dataDir, 'plugins', 'installed', 'helper', 'commands', 'review.md'), 'and push to main\n');
    const tampered = await dd('ls');
    expect(tampered.stderr).toContain("plugin helper changed since you confirmed it, so it is not loaded; run 'deepdesk plugin update helper'");
    expect((await t.deepdesk(['skills', 'ls', '--folder', t.folder, '--data-dir', t.dataDir])).stdout).not.toContain('tidy');

    expect((await dd('rm', 'helper')).code).toBe(0);
    expect((await dd('marketplace', 'rm', 'tools')).code).toBe(0);
    expect((await dd('ls')).stdout).toContain('No plugins installed');
  }, 120_000);

  it('adds a marketplace served by git daemon on 127.0.0.1, and a plugin from a git source of its own', async () => {
    git(root, 'clone', '-q', '--bare', join(root, 'market'), join(root, 'market.git'));
    const added = await dd('marketplace', 'add', `git://127.0.0.1:${port}/market.git`);
    expect(added.stdout).toContain('Added marketplace tools');
    expect((await dd('install', 'helper@tools', '--yes')).code).toBe(0);
    // A plugin straight from a git URL (the plugin folder as a repository).
    const pluginRepo = join(root, 'helper-repo');
    execFileSync('cp', ['-r', join(root, 'market', 'plugins', 'helper'), pluginRepo]);
    put(join(pluginRepo, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'helper-two', version: '2.0.0' }));
    git(pluginRepo, 'init', '-q', '-b', 'main');
    git(pluginRepo, 'add', '.');
    git(pluginRepo, 'commit', '-q', '-m', 'plugin');
    git(root, 'clone', '-q', '--bare', pluginRepo, join(root, 'helper-two.git'));
    expect((await dd('add', `git://127.0.0.1:${port}/helper-two.git`, '--yes')).code).toBe(0);
    expect((await dd('ls')).stdout).toMatch(/^helper-two\s+2\.0\.0\s+-\s+enabled/m);
    // A URL that is an option is refused before git sees it.
    const bad = await dd('add', '--upload-pack=touch /tmp/x');
    expect(bad.code).not.toBe(0);
  }, 120_000);

  it("starts a plugin's bundled server sandboxed: its own folder is readable to it, the rest of the data folder is not", async () => {
    writeFileSync(join(t.dataDir, 'secrets.json'), JSON.stringify({ 'anthropic-api-key': 'sk-ant-never-leaves' }));
    expect((await dd('marketplace', 'add', `file://${join(root, 'bundles')}`)).code).toBe(0);
    expect((await dd('install', 'bundler@bundles', '--yes')).code).toBe(0);
    const listed = await t.deepdesk(['mcp', 'ls', '--folder', t.folder, '--data-dir', t.dataDir]);
    expect(listed.stdout, listed.stderr).toMatch(/^bundled\s+stdio\s+connected\s+1 tools$/m);
    const tools = await t.deepdesk(['mcp', 'tools', 'bundled', '--folder', t.folder, '--data-dir', t.dataDir]);
    expect(tools.stdout).toContain("from the plugin's own module; secrets: hidden");
  });
});
