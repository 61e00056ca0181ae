// Installing a known agent on confirmation (SPEC §22): its pinned version from the npm registry
// into the data folder, and run from there — inside the data folder the sandbox hides, its
// installation shown read-only to it alone — on a scripted model.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../../core/backends/filesystem/local-shell';
import { detectSandbox } from '../../core/sandbox';
import { DEFAULT_RULES } from '../../core/agent/permissions/rules';
import { anthropicMessageStream, startScriptedAnthropicServer } from '../../core/models/testing/scripted-anthropic-server';
import { installDir, knownAgent } from './vendors/catalog';
import { installAgent } from './agent-install';
import { installedAgent } from './vendors/catalog';
import { startAgentThread } from './agent-thread';

describe('installing an agent into the data folder', async () => {
  const available = (await detectSandbox()).available;
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'agent-install-')));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.skipIf(!available)('installs Claude Code’s pinned adapter and runs it from there', async () => {
    const dataDir = join(root, 'data');
    const folder = join(root, 'project');
    mkdirSync(dataDir);
    mkdirSync(folder);
    const agent = knownAgent('claude-code')!;
    expect(installedAgent(dataDir, agent)).toBeUndefined();
    const installed = await installAgent(dataDir, agent);
    expect(installed.dir).toBe(installDir(dataDir, agent));
    expect(JSON.parse(readFileSync(join(installed.dir, 'node_modules', '@zed-industries', 'claude-code-acp', 'package.json'), 'utf8')).version).toBe('0.16.2');
    // Nothing in the project.
    expect(existsSync(join(folder, 'node_modules'))).toBe(false);
    const model = await startScriptedAnthropicServer(Array.from({ length: 10 }, () => anthropicMessageStream([{ text: 'Hello from the installed one.' }], 'end_turn')));
    const backend = new LocalShellBackend({ rootDir: folder });
    const thread = await startAgentThread({
      agent: { known: agent, installRoot: installed.dir },
      threadId: 't',
      folder,
      dataDir,
      backend,
      execute: (c, o) => backend.execute(c, o),
      rules: () => DEFAULT_RULES,
      ask: async () => false,
      personKey: 'sk-ant-the-persons-key',
      upstream: model.url.replace(/\/v1$/, ''),
    });
    try {
      const turn = await thread.prompt('hi');
      expect(turn.updates.some((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text.includes('installed one'))).toBe(true);
    } finally {
      await thread.stop();
      await model.close();
    }
  }, 600_000);
});
