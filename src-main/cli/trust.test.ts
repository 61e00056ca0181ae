// `deepdesk trust [--folder DIR] [--revoke]` through the built bin, on a real folder and data
// folder: it lists what would load, records trust in that content, says when nothing needs
// trust, and --revoke forgets. The plugins the folder's settings turn on are offered: on a
// terminal each step on its own `y` (the plugin's list shown first), otherwise how to by hand.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';
import { onTerminal, waitFor } from './host-harness.test-support';

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

  describe("a folder's enabledPlugins", () => {
    const put = (path: string, text: string): void => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    };
    /** A marketplace in a folder beside the project, and the project's settings asking for its plugin. */
    const askForHelper = (): string => {
      const market = join(t.dataDir, 'market-source');
      put(join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'tools', plugins: [{ name: 'helper', source: './helper' }] }));
      put(join(market, 'helper', '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'helper', version: '1.0.0' }));
      put(join(market, 'helper', 'commands', 'review.md'), '---\nallowed-tools: Bash(git diff:*)\n---\nReview the change\n');
      put(join(t.folder, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'helper@tools': true }, extraKnownMarketplaces: { tools: { source: { source: 'directory', path: market } } } }));
      return market;
    };

    it('without a terminal: offered with how to install it by hand, nothing installed', async () => {
      const market = askForHelper();
      const result = await t.deepdesk(['trust', '--folder', t.folder]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain("The folder's .claude/settings.json turns on the plugin helper@tools, which is not installed.");
      expect(result.stdout).toContain(`Not installed. To install it: deepdesk plugin marketplace add ${market}, then deepdesk plugin install helper@tools`);
      expect((await t.deepdesk(['plugin', 'ls'])).stdout).toContain('No plugins installed');
      expect((await t.deepdesk(['plugin', 'marketplace', 'ls'])).stdout).toContain('No marketplaces');
    });

    it('on a terminal: its marketplace added on a yes, then its list shown and installed on a yes', async () => {
      askForHelper();
      const term = onTerminal(['trust', '--folder', t.folder], { DEEPDESK_HOME: t.dataDir });
      await waitFor(() => term.screen().includes('Add marketplace tools? [y/N]'), 20_000, 'the marketplace question');
      term.write('y\r');
      await waitFor(() => term.screen().includes('Installing helper? [y/N]'), 20_000, 'the install question');
      expect(term.screen()).toContain('Installing helper 1.0.0 would load:');
      expect(term.screen()).toContain('Command /helper:review (allowed-tools: Bash(git diff:*))');
      term.write('y\r');
      expect(await term.exited).toBe(0);
      expect(term.screen()).toContain('Installed helper');
      expect((await t.deepdesk(['plugin', 'ls'])).stdout).toMatch(/^helper\s+1\.0\.0\s+tools\s+enabled\s+0 skills, 1 command, /m);
      // Installed: no longer offered.
      expect((await t.deepdesk(['trust', '--folder', t.folder])).stdout).not.toContain('turns on the plugin');
    });

    it('on a terminal, a no installs nothing', async () => {
      askForHelper();
      const term = onTerminal(['trust', '--folder', t.folder], { DEEPDESK_HOME: t.dataDir });
      await waitFor(() => term.screen().includes('Add marketplace tools? [y/N]'), 20_000, 'the marketplace question');
      term.write('n\r');
      expect(await term.exited).toBe(0);
      expect((await t.deepdesk(['plugin', 'marketplace', 'ls'])).stdout).toContain('No marketplaces');
    });
  });
});
