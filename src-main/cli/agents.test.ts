// The agent host through the built CLI (SPEC §16): runs that outlive the command that started
// them, clients that attach later and see what they missed, an approval answered in one
// terminal withdrawn from the other (shown as the window shows it: a diff, a command),
// `stop` and the Stopped state, threads named by a beginning of their id, and a host that dies.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
  it('run --detach prints the thread id and returns; agents lists it by a short id Working, then Done; attach of the finished thread shows what it did and says it is not running', async () => {
    // The run works until the test has seen it Working (not for a time the listing must fit in).
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    t.server.push(async () => (await finished, { text: 'all done' }));
    const started = await t.deepdesk(['run', '--detach', ...model(), 'take your time']);
    expect(started.code).toBe(0);
    const id = started.stdout.trim();
    expect(id).toMatch(UUID);
    expect(await agents()).toMatch(new RegExp(`^${id.slice(0, 8)}\\s+Working\\s+${t.folder}\\s+take your time$`, 'm'));
    finish();
    await waitFor(async () => (await agents()).includes('Done'), 20_000, 'the run to finish');
    const listed = JSON.parse((await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir])).stdout) as Array<{ threadId: string }>;
    expect(listed.map((a) => a.threadId)).toEqual([id]);
    const attached = await t.deepdesk(['attach', id, '--data-dir', t.dataDir]);
    expect(attached).toMatchObject({ code: 0, stdout: '> take your time\nall done\n', stderr: `deepdesk: thread ${id} is not running (Done)\n` });
  });

  it('two terminals attached to a run both see its approval; answered in one, it is withdrawn from the other', async () => {
    t.server.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/asked.txt', content: 'yes\n' } }] }, { text: 'written after asking' });
    const id = (await t.deepdesk(['run', '--detach', ...model(), 'write it'])).stdout.trim();
    await waitFor(async () => (await agents()).includes('Needs you'), 20_000, 'the run to wait for the person');
    const one = onTerminal(['attach', id, '--data-dir', t.dataDir]);
    const other = onTerminal(['attach', id, '--data-dir', t.dataDir]);
    await waitFor(() => one.screen().includes('Approve?') && other.screen().includes('Approve?'), 20_000, 'both terminals to ask');
    expect(one.screen()).toContain('write_file needs approval');
    // The write as the window shows it, a diff: not its arguments as escaped JSON.
    expect(one.screen()).toMatch(/^\+\+\+ \/asked\.txt\r?$/m);
    expect(one.screen()).toMatch(/^\+yes\r?$/m);
    expect(one.screen().split('needs approval')[1]).not.toContain('\\n');
    one.write('y\r');
    await waitFor(() => other.screen().includes('answered elsewhere'), 20_000, 'the question to leave the other terminal');
    expect(await one.exited).toBe(0);
    expect(await other.exited).toBe(0);
    // The terminal that answered was not told another client did.
    expect(one.screen()).not.toContain('answered elsewhere');
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

  it('Ctrl-C detaches attach and the run goes on; stop ends it, and the thread is Stopped everywhere and keeps saying so', async () => {
    t.server.push({ hang: true, text: 'thinking it over' });
    const id = (await t.deepdesk(['run', '--detach', ...model(), 'think'])).stdout.trim();
    const short = id.slice(0, 8);
    const watching = onTerminal(['attach', short, '--data-dir', t.dataDir]);
    await waitFor(() => watching.screen().includes('thinking it over'), 20_000, 'the streamed words');
    expect(watching.screen()).toContain('> think');
    watching.write('\x03');
    expect(await watching.exited).toBe(0);
    expect(watching.screen()).toContain('detached; the run goes on');
    expect(await agents()).toMatch(new RegExp(`^${short}\\s+Working\\s`, 'm'));
    const stopped = await t.deepdesk(['stop', short, '--data-dir', t.dataDir]);
    expect(stopped).toMatchObject({ code: 0, stdout: `Stopped ${id}.\n` });
    expect(await agents()).toMatch(new RegExp(`^${short}\\s+Stopped\\s`, 'm'));
    const listed = JSON.parse((await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir])).stdout) as Array<{ threadId: string; state: string }>;
    expect(listed.find((a) => a.threadId === id)?.state).toBe('stopped');
    // The thread keeps the stop: a later attach shows it (and says the thread is not running), as an export does.
    const later = await t.deepdesk(['attach', short, '--data-dir', t.dataDir]);
    expect(later).toMatchObject({ code: 0, stdout: '> think\nthinking it over\n— Stopped.\n', stderr: `deepdesk: thread ${short} is not running (Stopped)\n` });
    expect((await t.deepdesk(['threads', 'export', short, '--format', 'md', '--data-dir', t.dataDir])).stdout).toContain('Stopped.');
    const again = await t.deepdesk(['stop', id, '--data-dir', t.dataDir]);
    expect(again).toMatchObject({ code: 1, stderr: `deepdesk stop: thread ${id} is not running (Stopped)\n` });
    expect((await t.deepdesk(['stop', 'no-such-thread', '--data-dir', t.dataDir])).code).toBe(1);
  });

  it('attach shows an edit’s approval as a diff and a command as the command; Ctrl-C at the question detaches and the question waits', async () => {
    writeFileSync(join(t.folder, 'greet.txt'), 'hello\nworld\n');
    t.server.push(
      { toolCalls: [{ name: 'read_file', args: { file_path: '/greet.txt' } }] },
      { toolCalls: [{ name: 'edit_file', args: { file_path: '/greet.txt', old_string: 'hello', new_string: 'goodbye "friend"' } }] },
      { toolCalls: [{ name: 'execute', args: { command: 'echo "it ran"' } }] },
      { text: 'edited and ran' },
    );
    const id = (await t.deepdesk(['run', '--detach', ...model(), 'edit and run'])).stdout.trim();
    await waitFor(async () => (await agents()).includes('Needs you'), 20_000, 'the edit to wait for the person');
    const first = onTerminal(['attach', id, '--data-dir', t.dataDir]);
    await waitFor(() => first.screen().includes('Approve?'), 20_000, 'the question');
    const edit = first.screen().split('edit_file needs approval')[1] ?? '';
    expect(edit).toMatch(/^--- \/greet\.txt\r?$/m);
    expect(edit).toMatch(/^-hello\r?$/m);
    expect(edit).toMatch(/^\+goodbye "friend"\r?$/m);
    expect(edit).toMatch(/^ world\r?$/m);
    expect(edit).not.toContain('\\"');
    // Ctrl-C at the question detaches; the run still waits for an answer.
    first.write('\x03');
    expect(await first.exited).toBe(0);
    expect(first.screen()).toContain('detached; the run goes on');
    expect(await agents()).toMatch(/\sNeeds you\s/);

    const second = onTerminal(['attach', id, '--data-dir', t.dataDir]);
    await waitFor(() => second.screen().includes('Approve?'), 20_000, 'the question again');
    second.write('y\r');
    await waitFor(() => (second.screen().match(/Approve\?/g) ?? []).length >= 2, 20_000, 'the command’s question');
    const command = second.screen().split('execute needs approval')[1] ?? '';
    expect(command).toMatch(/^Command: echo "it ran"\r?$/m);
    expect(command).not.toContain('"command"');
    second.write('y\r');
    expect(await second.exited).toBe(0);
    expect(second.screen()).toContain('edited and ran');
    expect(readFileSync(join(t.folder, 'greet.txt'), 'utf8')).toBe('goodbye "friend"\nworld\n');
  });

  it('a thread is named by its id or a beginning of it no other thread shares: attach, stop, threads export and worktrees take one; a shared one is refused, naming them', async () => {
    const first = 'abcd1234-0000-4000-8000-000000000001';
    const second = 'abcd5678-0000-4000-8000-000000000002';
    t.server.push({ text: 'first answer' }, { text: 'second answer' });
    expect((await t.deepdesk(['run', ...model(), '--thread', first, 'one'])).code).toBe(0);
    expect((await t.deepdesk(['run', ...model(), '--thread', second, 'two'])).code).toBe(0);
    expect(await agents()).toMatch(/^abcd1234\s+Done\s/m);
    for (const command of [['attach', 'abcd'], ['stop', 'abcd'], ['threads', 'export', 'abcd'], ['worktrees', 'rm', 'abcd']]) {
      const refused = await t.deepdesk([...command, '--data-dir', t.dataDir]);
      expect(refused.code, command.join(' ')).toBe(2);
      expect(refused.stderr).toContain(first);
      expect(refused.stderr).toContain(second);
    }
    expect(await t.deepdesk(['attach', 'abcd1', '--data-dir', t.dataDir])).toMatchObject({ code: 0, stdout: '> one\nfirst answer\n' });
    const exported = await t.deepdesk(['threads', 'export', 'abcd5', '--format', 'md', '--data-dir', t.dataDir]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('second answer');
    expect(await t.deepdesk(['stop', 'abcd5', '--data-dir', t.dataDir])).toMatchObject({ code: 1, stderr: `deepdesk stop: thread ${second} is not running (Done)\n` });
    const apply = await t.deepdesk(['worktrees', 'apply', 'abcd1', '--data-dir', t.dataDir]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(`thread ${first} does not work in a worktree`);
    expect(await t.deepdesk(['attach', 'ffff', '--data-dir', t.dataDir])).toMatchObject({ code: 1, stderr: "deepdesk attach: no thread 'ffff' (deepdesk agents lists the runs)\n" });
  });

  it('agents keeps each row within the terminal’s width, cutting the start of a folder and the end of a title', async () => {
    t.server.push({ text: 'ok' });
    const title = 'a rather long request that goes on and on, well past the width of any narrow terminal window';
    expect((await t.deepdesk(['run', ...model(), title])).code).toBe(0);
    const narrow = onTerminal(['agents', '--data-dir', t.dataDir], { DEEPDESK_HOME: t.dataDir }, 60);
    expect(await narrow.exited).toBe(0);
    const lines = narrow.screen().split(/\r?\n/).filter((line) => line !== '');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines[1]).toMatch(/^[0-9a-f]{8} {2}Done {3}…\S+ {2}a rather long\S* .*…$/);
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
    expect(await agents()).toMatch(new RegExp(`^${id.slice(0, 8)}\\s+Failed\\s`, 'm'));
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
