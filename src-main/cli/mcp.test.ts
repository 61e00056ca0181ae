// `deepdesk mcp …` through the built bin, on a real folder and data folder, with the
// reference `everything` server from npm (SPEC §10).

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-mcp-cli');
const EVERYTHING = join(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const readJson = (file: string): { mcpServers: Record<string, Record<string, unknown>> } => JSON.parse(readFileSync(file, 'utf8'));

describe("a folder's .mcp.json in the plugin layout", () => {
  it('is one line naming the file in `mcp ls` and `trust`, never silence', async () => {
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ notes: { command: 'node', args: ['server.js'] } }));
    const ls = await t.deepdesk(['mcp', 'ls', '--folder', t.folder, '--data-dir', t.dataDir]);
    expect(ls.code).toBe(0);
    expect(ls.stderr).toContain(`.mcp.json: mcpServers: is missing: the servers notes stand at the top level; put them under "mcpServers"`);
    const trust = await t.deepdesk(['trust', '--folder', t.folder, '--data-dir', t.dataDir]);
    expect(trust.stderr).toContain(`.mcp.json: mcpServers: is missing: the servers notes stand at the top level`);
  }, 60_000);
});

describe('deepdesk mcp add / rm', () => {
  it('rm on a .mcp.json that is a FIFO exits, naming the file and why (as ls refuses it)', async () => {
    const file = join(t.folder, '.mcp.json');
    execFileSync('mkfifo', [file]);
    // A reader of the FIFO would wait for a writer forever (none comes): the test's own bound is the hang bound.
    const rm = await t.deepdesk(['mcp', 'rm', 'x', '--project', '--folder', t.folder, '--data-dir', t.dataDir]);
    expect(rm.code).toBe(1);
    expect(rm.stderr).toBe(`deepdesk: cannot remove x: ${file}: is not a regular file\n`);
    const add = await t.deepdesk(['mcp', 'add', 'x', '--project', '--folder', t.folder, '--data-dir', t.dataDir, '--', 'node', 'server.js']);
    expect(add.code).not.toBe(0);
    expect(add.stderr).toContain('is not a regular file');
  }, 120_000);

  it('adds a command server to the person’s mcp.json, private to them, and removes it', async () => {
    const added = await t.deepdesk(['mcp', 'add', 'everything', '--data-dir', t.dataDir, '-e', 'TOKEN=${GH_TOKEN:-none}', '--', process.execPath, EVERYTHING, 'stdio']);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const file = join(t.dataDir, 'mcp.json');
    expect(added.stdout).toBe(`Added MCP server everything in ${file}\n`);
    expect(readJson(file).mcpServers.everything).toEqual({ command: process.execPath, args: [EVERYTHING, 'stdio'], env: { TOKEN: '${GH_TOKEN:-none}' } });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const removed = await t.deepdesk(['mcp', 'rm', 'everything', '--data-dir', t.dataDir]);
    expect(removed).toMatchObject({ code: 0, stdout: `Removed MCP server everything from ${file}\n` });
    expect(readJson(file).mcpServers).toEqual({});
    const again = await t.deepdesk(['mcp', 'rm', 'everything', '--data-dir', t.dataDir]);
    expect(again).toMatchObject({ code: 1, stderr: 'deepdesk: there is no MCP server named everything\n' });
  });

  it('adds a remote server with headers; --project writes the folder’s .mcp.json and trusts that entry as written', async () => {
    const added = await t.deepdesk(['mcp', 'add', 'docs', '--project', '--folder', t.folder, '--data-dir', t.dataDir, '--url', 'https://docs.example.com/mcp', '--header', 'Authorization: Bearer ${DOCS_TOKEN}', '--credential', 'DOCS_TOKEN']);
    expect(added.code).toBe(0);
    const file = join(t.folder, '.mcp.json');
    // --credential names a variable the entry takes as one of Deepdesk's credentials (in its headers only).
    expect(readJson(file).mcpServers.docs).toEqual({ type: 'http', url: 'https://docs.example.com/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' }, credentials: ['DOCS_TOKEN'] });
    const trust = JSON.parse(readFileSync(join(t.dataDir, 'trust.json'), 'utf8')) as Record<string, { entries: Record<string, string> }>;
    expect(Object.keys(trust[t.folder]!.entries)).toEqual(['mcp:docs']);
    // The person's own file is not touched.
    expect(existsSync(join(t.dataDir, 'mcp.json'))).toBe(false);
  });

  it('refuses bad usage with exit 2 and writes nothing', async () => {
    const cases = [
      ['mcp', 'add', 'x'],
      ['mcp', 'add', 'x', '--url', 'ftp://host/mcp'],
      ['mcp', 'add', 'bad name', '--', 'node'],
      ['mcp', 'add', 'x', '--url', 'https://a/mcp', '--', 'node'],
      ['mcp', 'add', 'x', '--header', 'nocolon', '--url', 'https://a/mcp'],
      ['mcp', 'frobnicate'],
      ['mcp'],
    ];
    for (const argv of cases) {
      const result = await t.deepdesk([...argv, '--data-dir', t.dataDir]);
      expect({ argv, code: result.code }).toEqual({ argv, code: 2 });
      expect(result.stderr).toMatch(/^deepdesk mcp: /);
    }
    expect(existsSync(join(t.dataDir, 'mcp.json'))).toBe(false);
  });
});

describe('deepdesk mcp ls / tools', () => {
  it('lists each server with its type, status and tool count, and a server’s tools', async () => {
    writeFileSync(
      join(t.dataDir, 'mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] }, broken: { command: join(t.folder, 'no-such-server') }, off: { command: 'x', disabled: true } } }),
    );
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { theirs: { command: 'node', args: ['evil.js'] } } }));
    const ls = await t.deepdesk(['mcp', 'ls', '--folder', t.folder, '--data-dir', t.dataDir]);
    expect(ls.code).toBe(0);
    const rows = Object.fromEntries(ls.stdout.trim().split('\n').map((line) => [line.split(/\s+/)[0], line.split(/\s{2,}/)]));
    expect(rows.everything).toEqual(['everything', 'stdio', 'connected', expect.stringMatching(/^\d+ tools$/)]);
    expect(Number(rows.everything![3]!.split(' ')[0])).toBeGreaterThan(5);
    expect(rows.broken).toEqual(['broken', 'stdio', 'failed', '0 tools']);
    expect(rows.off).toEqual(['off', 'stdio', 'disabled', '0 tools']);
    expect(rows.theirs).toEqual(['theirs', 'stdio', 'not-trusted', '0 tools']);
    expect(ls.stderr).toContain("deepdesk: not loading this folder's configuration");
    expect(ls.stderr).toMatch(/deepdesk: MCP server broken failed: /);

    const tools = await t.deepdesk(['mcp', 'tools', 'everything', '--folder', t.folder, '--data-dir', t.dataDir]);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain('mcp__everything__echo  Echoes back the input string\n');
  }, 60_000);
});
