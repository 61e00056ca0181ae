// Threads at the same time (SPEC §16, issue 40), with the real app, SQLite and the scripted
// model: two threads of one folder run at once (their model calls overlap), are marked as
// sharing the folder, each change is its own thread's in the checkpoints, a limit of runs
// queues the rest (a run waiting for the person gives its slot up), and the Agents view's
// list follows every state.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../../core/models/testing/scripted-server';
import { lastUserText } from '../../core/models/testing/scripted-server';
import { until, useAppTestEnv } from './app-harness.test-support';
import { createWindowFolders } from '../folders/window-folders';
import type { App } from './folder-app';
import type { AgentDto } from '../contract';

const env = useAppTestEnv('deepdesk-parallel');

/** One step for any thread: its first request writes `<word>.txt`, the one after answers. */
function writeThenAnswer(gate?: (request: RecordedRequest) => Promise<void>): ScriptStep {
  return async (request) => {
    const word = lastUserText(request).trim();
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') return { text: `wrote ${word}` };
    await gate?.(request);
    return { toolCalls: [{ name: 'write_file', args: { file_path: `/${word}.txt`, content: `${word}\n` } }] };
  };
}

async function agentsOf(app: App): Promise<AgentDto[]> {
  const host = await createWindowFolders({ dataDir: env.dataDir, transport: 'web', folder: null, openApp: async () => app, openRemoteApp: async () => app });
  try {
    return (await host.handle('agentsView.list', {})) as AgentDto[];
  } finally {
    await host.close();
  }
}

describe('threads at the same time', () => {
  it('two threads of one folder run at once, are marked as sharing it, and each change is its own thread’s', async () => {
    const { call, app } = await env.open();
    await call('mode.set', { mode: 'edit' });
    // Each first model call waits until the other thread's has arrived: a hidden global lock would never let it.
    let arrived = 0;
    let bothArrived!: () => void;
    const together = new Promise<void>((resolve) => (bothArrived = resolve));
    const gate = async (): Promise<void> => {
      arrived += 1;
      if (arrived === 2) bothArrived();
      await Promise.race([together, new Promise((r) => setTimeout(r, 10_000))]);
    };
    env.server.push(writeThenAnswer(gate), writeThenAnswer(gate), writeThenAnswer(), writeThenAnswer());
    const a = await call('threads.create', {});
    const b = await call('threads.create', {});
    await call('threads.send', { threadId: a.id, text: 'alpha' });
    await call('threads.send', { threadId: b.id, text: 'beta' });

    const shared = await until(async () => {
      const listed = await call('threads.list', {});
      return listed.filter((t) => t.sharesFolder === true).length === 2 && listed;
    }, 'both threads marked as sharing the folder');
    expect(shared.every((t) => t.running)).toBe(true);
    await until(async () => (await call('threads.list', {})).every((t) => !t.running), 'both runs to end');
    expect(arrived).toBe(2);
    // The model calls overlapped: each thread's first request came before either had an answer.
    expect(env.server.requests.slice(0, 2).map((r) => lastUserText(r)).sort()).toEqual(['alpha', 'beta']);
    expect(readFileSync(join(env.folder, 'alpha.txt'), 'utf8')).toBe('alpha\n');
    expect(readFileSync(join(env.folder, 'beta.txt'), 'utf8')).toBe('beta\n');

    const changesOf = async (threadId: string) => (await call('checkpoints.changes', { threadId })).files.map((f) => f.path);
    expect(await changesOf(a.id)).toEqual(['/alpha.txt']);
    expect(await changesOf(b.id)).toEqual(['/beta.txt']);
    // Finished, not marked as sharing any more.
    expect((await call('threads.list', {})).some((t) => t.sharesFolder)).toBe(false);

    // The Agents view lists both as done until each is opened.
    const listed = await agentsOf(app);
    expect(listed.map((x) => [x.threadId, x.state]).sort()).toEqual([[a.id, 'done'], [b.id, 'done']].sort());
    expect(listed[0]!.folderName).toBe(env.folder.split('/').pop());
    await call('threads.get', { threadId: a.id });
    expect((await agentsOf(app)).map((x) => x.threadId)).toEqual([b.id]);
    // A re-read of the open thread (its approvals, its costs) is not an opening: it stays listed.
    await call('threads.get', { threadId: b.id, refresh: true });
    expect((await agentsOf(app)).map((x) => x.threadId)).toEqual([b.id]);
    await call('threads.get', { threadId: b.id });
    expect(await agentsOf(app)).toEqual([]);
  });

  it('runs beyond the limit wait Queued and start when a slot frees; a run waiting for the person gives its slot up; Stop ends a wait', async () => {
    const { call, app } = await env.open();
    await call('settings.update', { maxConcurrentRuns: 1 });
    await call('mode.set', { mode: 'ask' });
    let letFirstGo!: () => void;
    const firstHeld = new Promise<void>((resolve) => (letFirstGo = resolve));
    env.server.push(writeThenAnswer(() => firstHeld), writeThenAnswer(), writeThenAnswer(), writeThenAnswer());
    const a = await call('threads.create', {});
    const b = await call('threads.create', {});
    const c = await call('threads.create', {});
    await call('threads.send', { threadId: a.id, text: 'first' });
    // The first is working (its model call held): it has the one slot.
    await until(() => env.server.requests.length === 1, 'the first run’s model call');
    await call('threads.send', { threadId: b.id, text: 'second' });
    await call('threads.send', { threadId: c.id, text: 'third' });
    const queued = await until(async () => {
      const listed = await call('threads.list', {});
      return listed.filter((t) => t.queued === true).length === 2 && listed;
    }, 'two runs queued');
    expect(queued.find((t) => t.id === a.id)?.queued).toBeUndefined();
    expect(Object.fromEntries((await agentsOf(app)).map((x) => [x.threadId, x.state]))).toEqual({ [a.id]: 'working', [b.id]: 'queued', [c.id]: 'queued' });

    // Stop ends a queued run's wait: nothing of it ran.
    await call('threads.stop', { threadId: c.id });
    expect((await call('threads.list', {})).find((t) => t.id === c.id)?.running).toBe(false);

    // The first asks the person: its slot goes to the second, which asks in its turn.
    letFirstGo();
    await until(async () => (await call('threads.get', { threadId: b.id })).approvals.length === 1, 'the second run to start while the first waits for the person');
    expect((await call('threads.get', { threadId: a.id })).approvals).toHaveLength(1);
    expect(Object.fromEntries((await agentsOf(app)).map((x) => [x.threadId, x.state]))).toMatchObject({ [a.id]: 'needs-you', [b.id]: 'needs-you' });
    expect(env.server.requests.map((r) => lastUserText(r))).not.toContain('third');

    for (const thread of [a, b]) {
      const pending = (await call('threads.get', { threadId: thread.id })).approvals[0]!;
      await call('approvals.decide', { threadId: thread.id, toolCallId: pending.toolCallId, decision: { type: 'approve' } });
    }
    await until(async () => (await call('threads.list', {})).every((t) => !t.running), 'the runs to end');
    expect(readFileSync(join(env.folder, 'first.txt'), 'utf8')).toBe('first\n');
    expect(readFileSync(join(env.folder, 'second.txt'), 'utf8')).toBe('second\n');
    await call('settings.update', { maxConcurrentRuns: null });
  });
});
