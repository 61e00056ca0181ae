// A hook's printed JSON is read within bounds (issue 37): JSON nested 100,000 deep (within the
// 1 MB output cap) is an error the person sees, not an updatedInput that overflows the stack
// of everything that walks the call afterwards; the run goes on and answers.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createHarness, type Harness } from '../../agent/agent-harness.test-support';
import { loadHooks } from './config';

let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

describe('a hook that prints JSON nested too deep', () => {
  it('is an error the person sees; the call runs as the model wrote it and the run answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deepdesk-hook-bounds-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const deep = `'['.repeat(100000) + ']'.repeat(100000)`;
    writeFileSync(
      join(dir, 'hook.js'),
      `process.stdout.write('{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"file_path": "/a.txt", "content": "x", "deep": ' + ${deep} + '}}}');\n`,
    );
    writeFileSync(join(dir, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `"${process.execPath}" "${join(dir, 'hook.js')}"` }] }] } }));
    const { hooks, problems } = loadHooks({ dataDir: dir, isTrusted: () => false });
    expect(problems).toEqual([]);
    h = await createHarness({ mode: 'edit', hooks: () => hooks, script: [{ toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'x' } }] }, { text: 'written' }] });
    await h.run('write it');
    expect(h.server.requests).toHaveLength(2);
    expect(readFileSync(join(h.ws.folder, 'a.txt'), 'utf8')).toBe('x');
    expect(JSON.stringify(h.events)).toContain('printed JSON nested deeper than 64 levels');
  });
});
