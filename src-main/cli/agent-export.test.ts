// `threads export` of another agent's thread (issue 79 M11, SPEC §17, §22): the audit record
// says what ran — each command by its line (an adapter that tells the command after the call
// began, as Claude Code does, included), each of its reads and writes, what it changed in its
// own process — and names the agent. After a host restart, an agent that cannot resume its
// session says so once, on `run`'s output and in the export, the history kept.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../core/sandbox';
import { repo, useCliTestEnv } from './cli-harness.test-support';
import { alive, hostPid } from './host-harness.test-support';

const t = useCliTestEnv('deepdesk-agent-export');
const SCRIPT = join(repo, 'src-main/core/acp-client/testing/scripted-acp-agent.mjs');

describe("another agent's thread, exported", async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available)('records each command by its line, each of its reads and writes, what it changed in its own process, and names the agent', { timeout: 120_000 }, async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ agents: { added: [{ name: 'scripted', label: 'Scripted Agent', command: process.execPath, args: [SCRIPT, `--marker=${randomUUID()}`], env: {} }] } }));
    const thread = randomUUID();
    writeFileSync(join(t.folder, 'notes.txt'), 'the notes');
    const ran = await t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--thread', thread, '--agent', 'scripted', '--approve', 'auto', `bash echo checked ;; fs-read ${join(t.folder, 'notes.txt')} ;; fs-write ${join(t.folder, 'out.txt')} written ;; own-write ${join(t.folder, 'own.txt')} mine ;; own-run rm notes.txt`], {}, '');
    expect(ran.code).toBe(0);
    const lines = (await t.deepdesk(['threads', 'export', thread, '--data-dir', t.dataDir])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: 'thread', agent: 'Scripted Agent' });
    const calls = lines.filter((l) => l.type === 'tool_call');
    // Its reads and writes too: one it made through Deepdesk without telling a call is recorded as one.
    expect(calls.slice(0, 3)).toEqual([
      expect.objectContaining({ name: 'execute', args: { command: 'echo checked', title: '`echo checked`' } }),
      expect.objectContaining({ name: 'read_file', args: { file_path: '/notes.txt', title: 'Read /notes.txt' } }),
      expect.objectContaining({ name: 'edit_file', args: { file_path: '/out.txt', title: 'Write /out.txt' } }),
    ]);
    // What it changed in its own process, from the turn's checkpoint; what it wrote through Deepdesk only once.
    expect(calls.slice(3)).toHaveLength(2);
    expect(calls.slice(3)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'delete_file', args: { file_path: '/notes.txt', title: 'deleted in its own process' } }),
        expect.objectContaining({ name: 'write_file', args: { file_path: '/own.txt', title: 'added in its own process' } }),
      ]),
    );
    expect(lines.filter((l) => l.type === 'tool_result' && l.name === 'write_file')).toEqual([expect.objectContaining({ content: 'Added by Scripted Agent in its own process' })]);
    expect(lines.find((l) => l.type === 'tool_result')).toMatchObject({ name: 'execute', content: 'exit 0; output checked' });
    const md = (await t.deepdesk(['threads', 'export', thread, '--format', 'md', '--data-dir', t.dataDir])).stdout;
    expect(md).toContain('- Agent: Scripted Agent');
  });

  it.skipIf(!available)('after a host restart, one that cannot resume its session says so once, on run’s output and in the export', { timeout: 180_000 }, async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ agents: { added: [{ name: 'scripted', label: 'Scripted Agent', command: process.execPath, args: [SCRIPT, `--marker=${randomUUID()}`], env: {} }] } }));
    const thread = randomUUID();
    const base = ['run', '--folder', t.folder, '--data-dir', t.dataDir, '--thread', thread, '--agent', 'scripted'];
    expect(await t.deepdesk([...base, 'say before'], {}, '')).toMatchObject({ code: 0, stdout: 'before\n', stderr: '' });
    const pid = hostPid(t.dataDir)!;
    process.kill(pid, 'SIGTERM');
    await expect.poll(() => alive(pid), { timeout: 60_000 }).toBe(false);
    const notice = 'Scripted Agent cannot resume its earlier session (it offers neither session/load nor session/resume): it starts afresh; this thread keeps its history.';
    expect(await t.deepdesk([...base, 'say after'], {}, '')).toMatchObject({ code: 0, stdout: 'after\n', stderr: `deepdesk: ${notice}\n` });
    const md = (await t.deepdesk(['threads', 'export', thread, '--format', 'md', '--data-dir', t.dataDir])).stdout;
    expect(md.split(notice)).toHaveLength(2);
    expect(md.indexOf('before')).toBeLessThan(md.indexOf(notice));
    expect(md.indexOf(notice)).toBeLessThan(md.lastIndexOf('after'));
  });
});
