// Installing another vendor's agent from the command line (issue 79 H2, SPEC §22): `deepdesk
// agents install NAME [--yes]`, and `run --agent NAME` offering the same confirmation on a
// terminal for an agent not installed yet (refusing clearly without one), against a local
// registry stand-in that holds the package back as long as the test needs.
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSlowRegistry, type SlowRegistry } from '../app/agents/slow-registry.test-support';
import { installDir, knownAgent } from '../app/agents/vendors/catalog';
import { useCliTestEnv } from './cli-harness.test-support';
import { onTerminal, waitFor } from './host-harness.test-support';

const t = useCliTestEnv('deepdesk-agents-install');
const agent = knownAgent('claude-code')!;
let registry: SlowRegistry;
beforeEach(async () => {
  registry = await startSlowRegistry(agent);
});
afterEach(async () => {
  await registry.close();
});
const installed = (): boolean => existsSync(installDir(t.dataDir, agent));

describe('deepdesk agents install', () => {
  it('asks on a terminal, shows npm’s progress while it goes on (never failed meanwhile), and ends saying it is installed', { timeout: 120_000 }, async () => {
    const term = onTerminal(['agents', 'install', 'claude-code', '--data-dir', t.dataDir], registry.env);
    await waitFor(() => term.screen().includes('[y/N]'), 30_000, 'the question');
    expect(term.screen()).toContain(`Install Claude Code (${agent.packageName}@${agent.version}) from the npm registry into Deepdesk's data folder? No install scripts run.`);
    term.write('y\r');
    await waitFor(() => registry.tarballAsked && term.screen().includes('npm http '), 60_000, 'npm to ask for the package');
    expect(term.screen()).toContain(`Installing ${agent.packageName}@${agent.version}`);
    expect(term.screen()).not.toMatch(/could not|failed/);
    registry.release();
    expect(await term.exited).toBe(0);
    expect(term.screen()).toContain(`Claude Code ${agent.version} is installed.`);
    expect(installed()).toBe(true);
  });

  it('without a terminal installs only with --yes; a name outside the catalog is refused', { timeout: 120_000 }, async () => {
    const refused = await t.deepdesk(['agents', 'install', 'claude-code', '--data-dir', t.dataDir], registry.env);
    expect(refused).toMatchObject({ code: 2, stderr: 'deepdesk agents install: not installed: confirm with --yes (there is no terminal to ask on)\n' });
    expect(installed()).toBe(false);
    const unknown = await t.deepdesk(['agents', 'install', 'my-agent', '--data-dir', t.dataDir], registry.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('my-agent is not an agent of the catalog (claude-code, codex, gemini, opencode)');
    registry.release();
    const yes = await t.deepdesk(['agents', 'install', 'claude-code', '--yes', '--data-dir', t.dataDir], registry.env);
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain(`Claude Code ${agent.version} is installed.`);
    expect(installed()).toBe(true);
  });
});

describe('run --agent NAME for an agent not installed yet', () => {
  it('refuses clearly without a terminal (no run starts); on a terminal offers the install, and No leaves it uninstalled', { timeout: 120_000 }, async () => {
    const args = ['run', '--agent', 'claude-code', '--folder', t.folder, '--data-dir', t.dataDir, 'hello'];
    const refused = await t.deepdesk(args, registry.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'deepdesk run: Claude Code is not installed, and there is no terminal to ask on: confirm its install with --yes, or install it first (deepdesk agents install claude-code)\n',
    );
    expect(refused.stderr).not.toContain('EPIPE');
    expect(installed()).toBe(false);
    const term = onTerminal(args, registry.env);
    await waitFor(() => term.screen().includes('[y/N]'), 30_000, 'the question');
    expect(term.screen()).toContain(`Install Claude Code (${agent.packageName}@${agent.version})`);
    term.write('n\r');
    expect(await term.exited).toBe(1);
    expect(term.screen()).toContain('Not installed.');
    expect(installed()).toBe(false);
  });
});
