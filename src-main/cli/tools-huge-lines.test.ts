// Single huge lines (issue 37) through the built bin: every tool's answer is bounded and
// the `deepdesk tools` session survives to answer the next request. read_file cuts a line
// into 5,000-character rows and stops at 80,000 characters; grep's content mode shows a
// window of a long line around the match; edit_file's hints stay linear in the file's size.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';

const t = useCliTestEnv('deepdesk-tools-huge');

async function tools(calls: unknown[]): Promise<{ code: number | null; outputs: string[]; stderr: string }> {
  const r = await t.deepdesk(['tools', '--folder', t.folder], {}, calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
  const outputs = r.stdout.trim() === '' ? [] : r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { output: string }).output);
  return { code: r.code, stderr: r.stderr, outputs };
}

const MB = 1024 * 1024;

describe('deepdesk tools on a file with one 11 MB line', () => {
  it('read_file shows the first 80,000 characters of it in rows, says so, and the next request is answered', async () => {
    writeFileSync(join(t.folder, 'big.txt'), 'a'.repeat(11 * MB) + '\nsecond line\n');
    const r = await tools([
      { tool: 'read_file', args: { file_path: '/big.txt' } },
      { tool: 'read_file', args: { file_path: '/big.txt', offset: 1 } },
      { tool: 'ls', args: {} },
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.outputs).toHaveLength(3);
    const first = r.outputs[0]!;
    expect(first.length).toBeLessThanOrEqual(81_000);
    expect(first.startsWith(`     1\t${'a'.repeat(5_000)}\n   1.1\t`)).toBe(true);
    expect(first).toMatch(/\n\[Line 1 is longer than one read shows: only its first [\d,]+ characters are shown\. Use grep to find text in it\.\]\n\n/);
    expect(first.endsWith('[Showing lines 1-1 of 2. Continue with offset=1.]')).toBe(true);
    expect(r.outputs[1]).toBe('     2\tsecond line');
    expect(r.outputs[2]).toContain('/big.txt (');
  }, 60_000);

  it('grep in content mode shows a bounded window of a 9 MB line around the match', async () => {
    writeFileSync(join(t.folder, 'long.txt'), 'b'.repeat(5 * MB) + 'NEEDLE' + 'c'.repeat(4 * MB) + '\n');
    const r = await tools([{ tool: 'grep', args: { pattern: 'NEEDLE', output_mode: 'content' } }, { tool: 'ls', args: {} }]);
    expect(r.code).toBe(0);
    const out = r.outputs[0]!;
    expect(out.length).toBeLessThan(6_000);
    expect(out.startsWith('/long.txt:\n  1: …bbb')).toBe(true);
    expect(out).toContain('bbbNEEDLEccc');
    expect(out).toMatch(/ccc… \[line of 9,437,190 characters, cut around the match\]$/);
    expect(r.outputs[1]).toContain('/long.txt (');
  }, 60_000);

  it("edit_file's not-found hints on a line of 3,000,000 spaces answer", async () => {
    // Linear work on 3 MB; the quadratic trim it replaced took 23 s on 100,000 spaces, so it
    // would take hours here: the test's own bound tells them apart on any machine, however loaded.
    writeFileSync(join(t.folder, 'spaces.txt'), ' '.repeat(3_000_000) + 'x\n');
    const r = await tools([
      { tool: 'read_file', args: { file_path: '/spaces.txt', limit: 1 } },
      { tool: 'edit_file', args: { file_path: '/spaces.txt', old_string: 'y', new_string: 'z' } },
    ]);
    expect(r.outputs[1]).toBe("Error: String not found in file: 'y'");
  }, 150_000);
});

describe('deepdesk run on a file with one 11 MB line', () => {
  it('read_file and grep answer within their caps, --json prints every event, and the run answers', async () => {
    writeFileSync(join(t.folder, 'big.txt'), 'a'.repeat(11 * MB) + '\nsecond line\n');
    writeFileSync(join(t.folder, 'long.txt'), 'b'.repeat(5 * MB) + 'NEEDLE' + 'c'.repeat(4 * MB) + '\n');
    t.server.push(
      { toolCalls: [{ name: 'read_file', args: { file_path: '/big.txt' } }, { name: 'grep', args: { pattern: 'NEEDLE', output_mode: 'content' } }] },
      { text: 'Read it.' },
    );
    const r = await t.deepdesk(['run', '--json', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', 'read it']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Read it.');
    const [read, grep] = toolMessages(t.server.requests[1]!).map((m) => textOf(m.content));
    expect(read!.length).toBeLessThanOrEqual(81_000);
    expect(read).toContain('[Showing lines 1-1 of 2. Continue with offset=1.]');
    expect(grep!.length).toBeLessThan(6_000);
  }, 60_000);
});
