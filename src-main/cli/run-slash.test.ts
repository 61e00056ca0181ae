// Slash commands in `deepdesk run` (SPEC §11), through the built bin: an unknown or
// window-only command is one line and exit 2 with nothing sent; `/compact` summarizes the
// thread given with --thread; a plugin's command answers to its own name (SPEC §15) and its
// `allowed-tools` run without asking in its turn, never past a deny rule.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-slash');
const put = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const run = (...args: string[]) => t.deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...args]);

describe('slash commands in deepdesk run', () => {
  it('an unknown command is one line, exit 2, and the model is never called', async () => {
    expect(await run('/frobnicate the thing')).toMatchObject({ code: 2, stdout: '', stderr: 'deepdesk run: unknown command /frobnicate: type / to see the commands\n' });
    expect(await run('/mode yolo')).toMatchObject({ code: 2, stderr: 'deepdesk run: /mode needs one of ask, edit, auto, plan\n' });
    expect(await run('/mode plan')).toMatchObject({ code: 2, stderr: "deepdesk run: /mode changes the window's mode; for deepdesk run pass --mode plan\n" });
    expect(t.server.requests).toHaveLength(0);
  });

  it('/compact summarizes the thread now and prints what it did', async () => {
    const long = 'y'.repeat(12_000);
    t.server.push({ text: `one ${long}` }, { text: `two ${long}` }, { text: 'summary text' });
    expect((await run('--thread', 'th-1', `first ${long}`)).code).toBe(0);
    expect((await run('--thread', 'th-1', 'second')).code).toBe(0);
    const compacted = await run('--thread', 'th-1', '/compact');
    expect(compacted).toMatchObject({ code: 0, stdout: 'The conversation was compacted.\n' });
    expect(t.server.requests).toHaveLength(3);
  });

  it("a plugin's command answers to its own name; its allowed-tools run unasked in its turn, within the deny rules; two plugins' name is refused", async () => {
    const plugins = mkdtempSync(join(tmpdir(), 'deepdesk-slash-plugins-'));
    try {
      const plugin = (name: string, command: string): string => {
        const dir = join(plugins, name);
        put(join(dir, '.claude-plugin', 'plugin.json'), JSON.stringify({ name, version: '1.0.0' }));
        put(join(dir, 'commands', 'changelog.md'), command);
        return dir;
      };
      // Claude Code's own documented front matter, unquoted brackets and all.
      const kit = plugin('release-kit', '---\ndescription: Write the changelog\nargument-hint: [version] [focus]\nallowed-tools: Bash(touch:*)\n---\nWrite the changelog for $1, focusing on $2.\n');
      const added = await t.deepdesk(['plugin', 'add', kit, '--yes']);
      expect(added.stdout).toContain('  Command /release-kit:changelog (allowed-tools: Bash(touch:*))');
      put(join(t.folder, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(touch denied.txt)'] } }));

      t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'touch made.txt' } }, { name: 'execute', args: { command: 'touch denied.txt' } }, { name: 'execute', args: { command: 'mkdir other' } }] }, { text: 'done' });
      const ran = await run('--approve', 'deny', '/changelog v2 security');
      expect(ran.stderr).not.toContain('unknown command');
      expect(ran.code).toBe(0);
      expect(JSON.stringify(t.server.requests[0]!.messages)).toContain('Write the changelog for v2, focusing on security.');
      const [made, denied, other] = toolMessages(t.server.requests[1]!).map((m) => textOf(m.content));
      expect(made).not.toMatch(/^Error/);
      expect(denied).toMatch(/^Error: this execute call is not allowed: .*Bash\(touch denied\.txt\)/);
      expect(other).toMatch(/^Error: /);
      expect(existsSync(join(t.folder, 'made.txt'))).toBe(true);
      expect(existsSync(join(t.folder, 'denied.txt'))).toBe(false);
      expect(existsSync(join(t.folder, 'other'))).toBe(false);

      // A message that is not the command: the same command asks (and --approve deny refuses it).
      t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'touch later.txt' } }] }, { text: 'done' });
      expect((await run('--approve', 'deny', 'make later.txt')).code).toBe(0);
      expect(existsSync(join(t.folder, 'later.txt'))).toBe(false);

      // Two plugins' `changelog`: the short name names both; the full names work.
      expect((await t.deepdesk(['plugin', 'add', plugin('docs', 'Docs changelog $ARGUMENTS\n'), '--yes'])).code).toBe(0);
      const ambiguous = await run('/changelog v3');
      expect(ambiguous).toMatchObject({ code: 2, stdout: '' });
      expect(ambiguous.stderr).toMatch(/^deepdesk run: \/changelog is a command of more than one plugin: use \/(release-kit|docs):changelog or \/(release-kit|docs):changelog\n$/);
      t.server.push({ text: 'ok' });
      expect((await run('/docs:changelog v3')).code).toBe(0);
      expect(JSON.stringify(t.server.requests.at(-1)!.messages)).toContain('Docs changelog v3');
    } finally {
      rmSync(plugins, { recursive: true, force: true });
    }
  }, 60_000);
});
