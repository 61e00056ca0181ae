// Slash commands through the app's contract (SPEC §11), with real SQLite and the scripted
// model: what each built-in does, that an unknown command never reaches the model, and that
// a command's shell lines go through PreSkillShellCommand hooks, invoked by the person.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../core/agent/types';
import { useAppTestEnv } from '../window/app-harness.test-support';

const t = useAppTestEnv('deepdesk-slash-app');

describe('slash commands in the window', () => {
  it('an unknown command is refused in one line and the model is not called', async () => {
    const { call } = await t.open();
    const thread = await call('threads.create', {});
    await expect(call('threads.send', { threadId: thread.id, text: '/frobnicate now' })).rejects.toThrow('unknown command /frobnicate: type / to see the commands');
    // A path is a message, not a command.
    t.server.push({ text: 'a path' });
    await call('threads.send', { threadId: thread.id, text: '/etc/hosts looks odd' });
    await expect.poll(() => t.server.requests.length).toBe(1);
  });

  it('/mode and /model change the folder’s mode and the model; /clear starts a thread', async () => {
    const { call } = await t.open({ settings: { model: 'openai-compatible:first', baseUrl: 'http://127.0.0.1:9/v1' } });
    const thread = await call('threads.create', {});
    expect(await call('threads.send', { threadId: thread.id, text: '/mode plan' })).toMatchObject({ note: 'Mode: plan' });
    expect((await call('mode.get', {})).mode).toBe('plan');
    expect(await call('threads.send', { threadId: thread.id, text: '/model anthropic:claude-sonnet-4-5' })).toMatchObject({ note: 'Model: anthropic:claude-sonnet-4-5' });
    expect((await call('settings.get', {})).model).toBe('anthropic:claude-sonnet-4-5');
    await expect(call('threads.send', { threadId: thread.id, text: '/model nonsense' })).rejects.toThrow(/PROVIDER:MODEL/);
    const cleared = await call('threads.send', { threadId: thread.id, text: '/clear' });
    expect(cleared.threadId).toBeDefined();
    expect(cleared.threadId).not.toBe(thread.id);
    expect((await call('threads.list', {})).map((s) => s.id)).toContain(cleared.threadId);
  });

  it('/compact summarizes the thread now, without an answer after it', async () => {
    const { call } = await t.open();
    const thread = await call('threads.create', {});
    const long = 'x'.repeat(12_000);
    t.server.push({ text: `first answer ${long}` }, { text: `second answer ${long}` }, { text: 'the summary of it all' });
    await call('threads.send', { threadId: thread.id, text: `first question ${long}` });
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    await call('threads.send', { threadId: thread.id, text: 'second question' });
    await expect.poll(() => t.server.requests.length).toBe(2);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);

    expect(await call('threads.send', { threadId: thread.id, text: '/compact' })).toMatchObject({ note: 'Compacting the conversation…' });
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).items.some((item) => item.kind === 'summary')).toBe(true);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    // One request more: the summarizer's; no answer was asked for.
    expect(t.server.requests).toHaveLength(3);
  });

  it("a command's shell lines go through PreSkillShellCommand with invoked_by user: a block keeps the line from running, the others run, and the block is recorded", async () => {
    mkdirSync(join(t.dataDir, 'commands'), { recursive: true });
    writeFileSync(join(t.dataDir, 'commands', 'mk.md'), '---\ndescription: Make the files\nallowed-tools: Bash(touch:*)\n---\nLook at:\n!`touch blocked.txt`\n!`touch allowed.txt`\n');
    // A hook set written for Claude Code: exit 2 with a reason on stderr blocks.
    const log = join(t.dataDir, 'skill-shell.jsonl');
    const hook = `input=$(cat); printf '%s\\n' "$input" >> '${log}'; case "$input" in *blocked.txt*) echo 'not that one' >&2; exit 2;; esac`;
    writeFileSync(join(t.dataDir, 'hooks.json'), JSON.stringify({ hooks: { PreSkillShellCommand: [{ matcher: 'mk', hooks: [{ type: 'command', command: hook }] }] } }));
    const { call, events } = await t.open();
    const thread = await call('threads.create', {});
    t.server.push({ toolCalls: [{ id: 'b', name: 'execute', args: { command: 'touch blocked.txt' } }, { id: 'a', name: 'execute', args: { command: 'touch allowed.txt' } }] }, { text: 'done' });
    await call('threads.send', { threadId: thread.id, text: '/mk' });
    await expect.poll(() => t.server.requests.length, { timeout: 60_000 }).toBe(2);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running, { timeout: 60_000 }).toBe(false);
    expect(JSON.stringify(t.server.requests[0]!.messages)).toContain('First run these commands with the execute tool');

    expect(existsSync(join(t.folder, 'blocked.txt'))).toBe(false);
    expect(existsSync(join(t.folder, 'allowed.txt'))).toBe(true);
    // The two calls may run at once: their hooks' lines come in either order.
    const inputs = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(inputs.sort((x, y) => String(x.command).localeCompare(String(y.command)))).toEqual([
      expect.objectContaining({ hook_event_name: 'PreSkillShellCommand', command_name: 'mk', command: 'touch allowed.txt', invoked_by: 'user', session_id: thread.id }),
      expect.objectContaining({ hook_event_name: 'PreSkillShellCommand', command_name: 'mk', command: 'touch blocked.txt', invoked_by: 'user', session_id: thread.id }),
    ]);
    const agentEvents = events.filter((e) => e.event === 'thread.event').map((e) => (e.payload as { event: AgentEvent }).event);
    expect(agentEvents.find((e) => e.type === 'approval' && e.id === 'b')).toMatchObject({ status: 'denied', reason: 'blocked by hook: not that one' });
    expect(agentEvents.find((e) => e.type === 'hook' && e.toolCallId === 'b')).toMatchObject({ event: 'PreSkillShellCommand', outcome: 'blocked' });
  }, 60_000);
});
