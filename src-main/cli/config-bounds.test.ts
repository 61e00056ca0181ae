// A folder's configuration JSON is data (SPEC §9, issue 37): a cloned repository's
// `.mcp.json` or `.deepdesk/hooks.json` nested 100,000 levels deep (well under the 1 MB size
// limit) is one problem naming the file, and `deepdesk trust` and `deepdesk mcp ls` go on.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-config-bounds');
const deep = '['.repeat(100_000) + ']'.repeat(100_000);

describe('configuration nested too deep', () => {
  it('deepdesk trust and deepdesk mcp ls name each file once and go on', async () => {
    writeFileSync(join(t.folder, '.mcp.json'), `{"mcpServers": {"a": {"command": "echo", "x": ${deep}}}}`);
    mkdirSync(join(t.folder, '.deepdesk'));
    writeFileSync(join(t.folder, '.deepdesk', 'hooks.json'), `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "x": ${deep}}]}]}}`);
    const trust = await t.deepdesk(['trust', '--folder', t.folder]);
    expect(trust.code).toBe(0);
    expect(trust.stderr).toContain(`${join(t.folder, '.mcp.json')}: is nested deeper than 64 levels`);
    expect(trust.stderr).toContain(`${join(t.folder, '.deepdesk', 'hooks.json')}: is nested deeper than 64 levels`);
    expect(trust.stderr).not.toContain('call stack');
    const ls = await t.deepdesk(['mcp', 'ls', '--folder', t.folder]);
    expect(ls.code).toBe(0);
    expect(ls.stderr).not.toContain('call stack');
  }, 60_000);
});

describe('tool arguments nested too deep', () => {
  it('deepdesk run --json: a tool call nested 100,000 deep is refused as the model’s error, and the run answers', async () => {
    t.server.push({ toolCalls: [{ name: 'read_file', args: `{"file_path": ${deep}}` }] }, { text: 'Sorry.' });
    const r = await t.deepdesk(['run', '--json', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', 'go']);
    expect(r.stderr).not.toContain('call stack');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Sorry.');
    expect(JSON.stringify(t.server.requests[1])).toContain('nested deeper than 64 levels');
  }, 60_000);
});
