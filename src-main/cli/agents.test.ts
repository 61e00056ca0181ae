// The agent host through the built CLI (SPEC §16): runs that outlive the command that started
// them, clients that attach later and see what they missed, an approval answered in one
// terminal withdrawn from the other, `stop`, and a host that dies.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertToolPairing, textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { useCliTestEnv } from './cli-harness.test-support';
import { hostPid, onTerminal, waitFor } from './host-harness.test-support';

const t = useCliTestEnv('deepdesk-agents');
const model = () => ['--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url];
const agents = async () => (await t.deepdesk(['agents', '--data-dir', t.dataDir])).stdout;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the agent host', () => {
  it('run --detach prints the thread id and returns; agents lists it Working, then Done; attach shows its answer', async () => {
    t.server.push({ delayMs: 4000, then: { text: 'all done' } });
    const started = await t.deepdesk(['run', '--detach', ...model(), 'take your time']);
    expect(started.code).toBe(0);
    const id = started.stdout.trim();
    expect(id).toMatch(UUID);
    expect(await agents()).toMatch(new RegExp(`^${id}\\s+Working\\s+${t.folder}\\s+take your time$`, 'm'));
    await waitFor(async () => (await agents()).includes('Done'), 20_000, 'the run to finish');
    const attached = await t.deepdesk(['attach', id, '--data-dir', t.dataDir]);
    expect(attached.code).toBe(0);
    expect(attached.stdout).toBe('all done\n');
  });

  it('two terminals attached to a run both see its approval; answered in one, it is withdrawn from the other', async () => {
    t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/asked.txt', content: 'yes\n' } }] }, { text: 'written after asking' });
    const id = (await t.deepdesk(['run', '--detach', ...model(), 'write it'])).stdout.trim();
    await waitFor(async () => (await agents()).includes('Needs you'), 20_000, 'the run to wait for the person');
    const one = onTerminal(['attach', id, '--data-dir', t.dataDir]);
    const other = onTerminal(['attach', id, '--data-dir', t.dataDir]);
    await waitFor(() => one.screen().includes('Approve?') && other.screen().includes('Approve?'), 20_000, 'both terminals to ask');
    expect(one.screen()).toContain('write_file needs approval');
    one.write('y\r');
    await waitFor(() => other.screen().includes('answered elsewhere'), 20_000, 'the question to leave the other terminal');
    expect(await one.exited).toBe(0);
    expect(await other.exited).toBe(0);
    expect(one.screen()).toContain('written after asking');
    expect(other.screen()).toContain('written after asking');
    expect(readFileSync(join(t.folder, 'asked.txt'), 'utf8')).toBe('yes\n');
  });

  it('an answer reaches the call that was shown, whatever ids the model gives its calls and its subagent’s', async () => {
    // The parent's call `a/b` and, under its task call `a`, the subagent's call `b`: joined
    // with `/`, both read `a/b`. The person sees the parent's write and says yes to it.
    t.server.push(
      {
        toolCalls: [
          { id: 'a/b', name: 'write_file', args: { file_path: '/shown.txt', content: 'shown\n' } },
          { id: 'a', name: 'task', args: { description: 'write the marker', subagent_type: 'general-purpose' } },
        ],
      },
      { delayMs: 1500, then: { toolCalls: [{ id: 'b', name: 'write_file', args: { file_path: '/marker.txt', content: 'must not be written\n' } }] } },
      { text: 'sub done' },
      { text: 'all done' },
    );
    const id = (await t.deepdesk(['run', '--detach', ...model(), 'write both'])).stdout.trim();
    const watching = onTerminal(['attach', id, '--data-dir', t.dataDir]);
    await waitFor(() => watching.screen().includes('Approve?'), 20_000, 'the parent’s question');
    expect(watching.screen()).toContain('/shown.txt');
    expect(watching.screen()).not.toContain('/marker.txt');
    // The subagent's question arrives too before the person answers.
    await new Promise((r) => setTimeout(r, 3000));
    watching.write('y\r');
    await waitFor(() => existsSync(join(t.folder, 'shown.txt')), 20_000, 'the shown write to run');
    await waitFor(() => (watching.screen().match(/Approve\?/g) ?? []).length >= 2, 20_000, 'the subagent’s own question');
    expect(watching.screen().split('Approve?')[1]).toContain('/marker.txt');
    watching.write('n\r');
    expect(await watching.exited).toBe(0);
    expect(watching.screen()).toContain('all done');
    expect(existsSync(join(t.folder, 'marker.txt'))).toBe(false);
  });

  it('Ctrl-C detaches attach and the run goes on; stop ends it', async () => {
    t.server.push({ hang: true, text: 'thinking it over' });
    const id = (await t.deepdesk(['run', '--detach', ...model(), 'think'])).stdout.trim();
    const watching = onTerminal(['attach', id, '--data-dir', t.dataDir]);
    await waitFor(() => watching.screen().includes('thinking it over'), 20_000, 'the streamed words');
    watching.write('\x03');
    expect(await watching.exited).toBe(0);
    expect(watching.screen()).toContain('detached; the run goes on');
    expect(await agents()).toMatch(new RegExp(`^${id}\\s+Working\\s`, 'm'));
    const stopped = await t.deepdesk(['stop', id, '--data-dir', t.dataDir]);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`Stopped ${id}`);
    expect(await agents()).toMatch(new RegExp(`^${id}\\s+Done\\s`, 'm'));
    expect((await t.deepdesk(['stop', 'no-such-thread', '--data-dir', t.dataDir])).code).toBe(1);
  });

  it('a host that dies: the attached terminal says so in one line and reconnects, the run is marked interrupted, its command is gone, and the thread goes on', async () => {
    t.server.push({ toolCalls: [{ name: 'execute', args: { command: 'sleep 41.5' }, id: 'call_sleep' }] });
    const id = (await t.deepdesk(['run', '--detach', '--approve', 'auto', ...model(), 'sleep please'])).stdout.trim();
    await waitFor(() => sleeping('sleep 41.5'), 20_000, 'the command to run');
    const watching = onTerminal(['attach', id, '--data-dir', t.dataDir]);
    await waitFor(() => watching.screen().includes('execute'), 20_000, 'the attach to show the call');
    const pid = hostPid(t.dataDir)!;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    expect(await watching.exited).toBe(1);
    expect(watching.screen()).toMatch(/the agent host stopped .*reconnecting/);
    expect(watching.screen()).toContain('interrupted');
    await waitFor(() => !sleeping('sleep 41.5'), 20_000, 'the command to end with its host');
    expect(await agents()).toMatch(new RegExp(`^${id}\\s+Failed\\s`, 'm'));
    const listed = JSON.parse((await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir])).stdout) as Array<{ threadId: string; state: string }>;
    expect(listed.find((a) => a.threadId === id)?.state).toBe('interrupted');

    t.server.push({ text: 'recovered' });
    const again = await t.deepdesk(['run', ...model(), '--thread', id, 'what happened?']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('recovered\n');
    const request = t.server.requests.at(-1)!;
    assertToolPairing(request);
    expect(textOf(toolMessages(request)[0]!.content)).toMatch(/interrupted/);
  });
});

function sleeping(command: string): boolean {
  try {
    return execFileSync('pgrep', ['-f', command], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}
