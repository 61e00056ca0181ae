// The trust question and the loaders must agree item by item: for every kind, trusting exactly
// the keys and digests the report lists loads every item of the folder, and every key and
// digest a loader asks about is one the report lists. A loader that computed its own key or
// digest for an item would load nothing here, or ask about something never shown.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadClaudeRules } from '../config/claude-permissions';
import { discoverAgents } from '../extensions/definitions/agents';
import { discoverCommands } from '../extensions/definitions/commands';
import { loadHooks } from '../extensions/hooks/config';
import { discoverSkills } from '../extensions/skills/discover';
import { folderTrust } from './folder-trust';
import { loadProjectConfiguration } from '../extensions/mcp/project-configuration';
import { trustReport } from './report';
import type { TrustGate } from './types';
import type { TrustEntry } from '../config/trust-entry';

let root: string;
let folder: string;
let dataDir: string;
let home: string;

const put = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-loaders-agree-')));
  folder = join(root, 'project');
  dataDir = join(root, 'data');
  home = join(root, 'home');
  for (const dir of [folder, dataDir, home]) mkdirSync(dir);
  // One of each kind, with files the entries run (part of their digests).
  put(join(folder, 'tools', 'srv.js'), 'process.stdin.resume();\n');
  put(join(folder, 'tools', 'stop.sh'), 'exit 0\n');
  put(join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { local: { command: 'node', args: ['tools/srv.js'], sandbox: false }, boxed: { command: 'npx', args: ['-y', 'x'] } } }));
  put(join(folder, '.deepdesk', 'hooks.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'sh tools/stop.sh' }] }] } }));
  put(
    join(folder, '.claude', 'settings.json'),
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre' }] }] },
      permissions: { allow: ['Bash(make:*)'], ask: ['Bash(npm test:*)'], deny: ['Bash(rm:*)'] },
    }),
  );
  put(join(folder, '.claude', 'settings.local.json'), JSON.stringify({ permissions: { allow: ['Read(src/**)'] } }));
  put(join(folder, '.claude', 'skills', 'pdf', 'SKILL.md'), '---\nname: pdf\ndescription: PDFs\n---\nbody\n');
  put(join(folder, '.agents', 'skills', 'csv', 'SKILL.md'), '---\nname: csv\ndescription: CSVs\n---\nbody\n');
  put(join(folder, '.claude', 'commands', 'review.md'), 'Review it\n');
  put(join(folder, '.deepdesk', 'commands', 'sub', 'deploy.md'), '---\ndescription: Deploy\n---\nDeploy it\n');
  put(join(folder, '.claude', 'agents', 'tester.md'), '---\nname: tester\ndescription: Runs tests\ntools: Bash\n---\nRun the tests.\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const pair = (entry: Pick<TrustEntry, 'key' | 'digest'>): string => `${entry.key}=${entry.digest}`;

/** A gate that trusts exactly these entries and records every question asked. */
function gateOf(trusted: readonly Pick<TrustEntry, 'key' | 'digest'>[]): TrustGate & { asked: Set<string> } {
  const allowed = new Set(trusted.map(pair));
  const asked = new Set<string>();
  return {
    asked,
    isTrusted: (_folder, entry) => {
      asked.add(pair(entry));
      return allowed.has(pair(entry));
    },
    version: () => '0',
  };
}

/** How many of the folder's items each loader loads through the gate. */
async function loadedByKind(gate: TrustGate): Promise<Record<TrustEntry['kind'], number>> {
  const { isTrusted } = folderTrust(gate, folder);
  const places = { dataDir, home, folder, isTrusted };
  const rules = loadClaudeRules({ home, folder, isTrusted }).listed.filter((r) => r.decision !== 'deny' && !r.origin.startsWith('~'));
  const mcp = await loadProjectConfiguration({ folder, dataDir, env: {}, store: gate });
  return {
    mcp: mcp.servers.filter((s) => s.source.kind === 'project').length,
    hook: loadHooks(places).hooks.filter((h) => h.source === 'project').length,
    skill: discoverSkills(places).skills.filter((s) => s.source === 'project').length,
    command: discoverCommands(places).commands.filter((c) => c.source === 'project').length,
    agent: discoverAgents(places).agents.filter((a) => a.source === 'project').length,
    rule: rules.length,
    plugin: 0,
  };
}

describe('the trust report and the loaders', () => {
  it('trusting exactly what the report lists loads every item, and the loaders ask about nothing else', async () => {
    const report = await trustReport(folder, gateOf([]), {});
    const listed: Record<string, number> = {};
    for (const entry of report.entries) listed[entry.kind] = (listed[entry.kind] ?? 0) + 1;
    expect(listed).toEqual({ mcp: 2, hook: 2, skill: 2, command: 2, agent: 1, rule: 3 });

    const gate = gateOf(report.entries);
    expect(await loadedByKind(gate)).toEqual({ ...listed, plugin: 0 });
    const shown = new Set(report.entries.map(pair));
    expect([...gate.asked].filter((asked) => !shown.has(asked))).toEqual([]);
  });

  it('the same keys with any other digest load nothing of the folder', async () => {
    const report = await trustReport(folder, gateOf([]), {});
    const gate = gateOf(report.entries.map((e) => ({ key: e.key, digest: `${e.digest}x` })));
    expect(await loadedByKind(gate)).toEqual({ mcp: 0, hook: 0, skill: 0, command: 0, agent: 0, rule: 0, plugin: 0 });
  });

  it('a changed script a hook or server runs changes the digest both the report and the loader see', async () => {
    const before = await trustReport(folder, gateOf([]), {});
    writeFileSync(join(folder, 'tools', 'stop.sh'), 'touch owned\n');
    writeFileSync(join(folder, 'tools', 'srv.js'), 'require("fs").writeFileSync("owned", "")\n');
    const after = await trustReport(folder, gateOf([]), {});
    const changed = after.entries.filter((e) => !before.entries.some((b) => pair(b) === pair(e))).map((e) => e.key);
    const stopHook = before.entries.find((e) => e.key.startsWith('hook:Stop:'))!.key;
    expect(changed.sort()).toEqual([stopHook, 'mcp:local'].sort());
    const loaded = await loadedByKind(gateOf(before.entries));
    expect(loaded.hook).toBe(1);
    expect(loaded.mcp).toBe(1);
  });
});
