// `deepdesk trust [--folder DIR] [--revoke]` through the built bin, on a real folder and data
// folder: it lists what would load, records trust in that content, says when nothing needs
// trust, and --revoke forgets.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-trust-cli');

const trustedKeys = (): string[] => {
  const saved = JSON.parse(readFileSync(join(t.dataDir, 'trust.json'), 'utf8')) as Record<string, { entries: Record<string, string> }>;
  return Object.keys(saved[t.folder]?.entries ?? {});
};

describe('deepdesk trust', () => {
  it('says when nothing needs trust', async () => {
    const result = await t.deepdesk(['trust', '--folder', t.folder]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`Nothing in ${t.folder} needs trust: it has no configuration of its own that runs\n`);
  });

  it('prints one line per entry, records trust, asks again for a changed entry, and --revoke forgets', async () => {
    writeFileSync(
      join(t.folder, '.mcp.json'),
      JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', 'server-fs', '.'] }, docs: { url: 'https://docs.example.com/mcp' }, bad: { command: 3 } } }),
    );
    const first = await t.deepdesk(['trust', '--folder', t.folder]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      [
        'MCP server fs: npx -y server-fs . (sandboxed, network: registry.npmjs.org (package runner))',
        'MCP server docs: https://docs.example.com/mcp',
        `Trusted 2 entries in ${t.folder}; a changed entry needs trust again`,
        '',
      ].join('\n'),
    );
    expect(first.stderr).toMatch(/^deepdesk trust: .*\.mcp\.json: mcpServers\.bad\.command: .*\n$/);
    expect(trustedKeys().sort()).toEqual(['mcp:docs', 'mcp:fs']);

    const again = await t.deepdesk(['trust', '--folder', t.folder]);
    expect(again.stdout.split('\n').at(-2)).toBe(`All of this is trusted already (${t.folder})`);

    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', 'server-fs', '/'] }, docs: { url: 'https://docs.example.com/mcp' } } }));
    const changed = await t.deepdesk(['trust', '--folder', t.folder]);
    expect(changed.stdout).toContain(`Trusted 1 entry in ${t.folder}`);

    const revoked = await t.deepdesk(['trust', '--revoke', '--folder', t.folder]);
    expect(revoked).toMatchObject({ code: 0, stdout: `Trust revoked: ${t.folder}'s configuration no longer loads until it is trusted again\n` });
    expect(trustedKeys()).toEqual([]);
    const twice = await t.deepdesk(['trust', '--revoke', '--folder', t.folder]);
    expect(twice.stdout).toBe(`${t.folder} was not trusted; nothing to revoke\n`);
  });

  it("shows a remote server's headers and the person's variables each entry expands, and records exactly what it printed", async () => {
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { api: { url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${OPENAI_API_KEY}' } } } }));
    const result = await t.deepdesk(['trust', '--folder', t.folder]);
    expect(result.code).toBe(0);
    const line = result.stdout.split('\n')[0]!;
    expect(line).toContain("Authorization: 'Bearer ${OPENAI_API_KEY}'");
    expect(line).toMatch(/your environment variables: OPENAI_API_KEY$/);
    expect(trustedKeys()).toEqual(['mcp:api']);
  });

  it('is bad usage with arguments or a folder that does not exist', async () => {
    expect((await t.deepdesk(['trust', 'extra', '--folder', t.folder])).code).toBe(2);
    const missing = await t.deepdesk(['trust', '--folder', join(t.folder, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('folder not found');
  });
});
