// The reviewer of SPEC §23 as the window drives it, by effect: a denied call allowed once by the
// person, the setting per folder, and review turned back on in Settings after its breaker
// tripped. One scripted server plays the agent and the reviewer in turn (the reviewer's
// requests are the ones offering review_decision).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../../core/models/testing/scripted-server';
import type { EventFrame } from '../contract';
import { until, useAppTestEnv, type OpenedApp } from './app-harness.test-support';

const t = useAppTestEnv('deepdesk-review-app');

const verdict = (decision: 'allow' | 'deny'): ScriptStep => ({
  toolCalls: [{ name: 'review_decision', args: { decision, risk: 'low', authorization: 'high', category: 'other', rationale: decision === 'allow' ? 'asked for' : 'not asked for' } }],
});
const write = (name: string): ScriptStep => ({ toolCalls: [{ name: 'write_file', args: { file_path: `/${name}`, content: name } }] });
const reviews = (requests: RecordedRequest[]): number => requests.filter((r) => r.tools?.some((tool) => tool.function.name === 'review_decision')).length;

type Approval = { type: 'approval'; id: string; status: string; decidedBy?: string; args: { file_path?: string } };
const threadEvents = (events: EventFrame[], threadId: string): Array<{ type: string }> =>
  events.flatMap((e) => (e.event === 'thread.event' && (e.payload as { threadId: string }).threadId === threadId ? [(e.payload as { event: { type: string } }).event] : []));

/** Sends a message and waits until that run is done; its approval events. */
async function send(opened: OpenedApp, threadId: string, text: string): Promise<Approval[]> {
  const before = threadEvents(opened.events, threadId).length;
  await opened.call('threads.send', { threadId, text });
  await until(() => threadEvents(opened.events, threadId).slice(before).some((e) => e.type === 'done'), 'the run to end');
  return threadEvents(opened.events, threadId).slice(before).filter((e): e is Approval => e.type === 'approval' && (e as Approval).status !== 'reviewing');
}

describe('auto-review in the window', () => {
  it('a denied call allowed once runs once, as the person decided; the agent is told; nothing else is allowed', async () => {
    const opened = await t.open();
    await opened.call('settings.update', { reviewer: { model: '' } });
    const thread = await opened.call('threads.create', {});
    t.server.push(write('a'), verdict('deny'), { text: 'denied' });
    const [denied] = await send(opened, thread.id, 'write a');
    expect(denied).toMatchObject({ status: 'rejected', decidedBy: 'reviewer' });
    expect(existsSync(join(t.folder, 'a'))).toBe(false);

    await expect(opened.call('threads.allowOnce', { threadId: thread.id, callId: 'not-a-call' })).rejects.toThrow(/only a call the reviewer denied/);
    await opened.call('threads.allowOnce', { threadId: thread.id, callId: denied!.id });
    const told = threadEvents(opened.events, thread.id).find((e) => e.type === 'note' && (e as { kind?: string }).kind === 'reviewer');
    expect(told).toMatchObject({ text: 'You allowed the denied write_file call once.' });

    t.server.push(write('a'), write('b'), verdict('deny'), write('a'), verdict('deny'), { text: 'done' });
    const again = await send(opened, thread.id, 'try again');
    expect(again.map((e) => [e.args.file_path, e.status, e.decidedBy])).toEqual([
      ['/a', 'approved', 'person'],
      ['/b', 'rejected', 'reviewer'],
      ['/a', 'rejected', 'reviewer'],
    ]);
    expect(existsSync(join(t.folder, 'a'))).toBe(true);
    expect(existsSync(join(t.folder, 'b'))).toBe(false);
    // The agent read the note before its next step.
    const request = t.server.requests.find((r) => JSON.stringify(r.messages).includes('allowed your write_file call'));
    expect(request).toBeDefined();
  });

  it("a folder's own entry wins over the global one: `off` there, the person is asked and no reviewer", async () => {
    const opened = await t.open();
    await opened.call('settings.update', { reviewer: { model: '', folders: { [t.folder]: { model: 'off' } } } });
    const thread = await opened.call('threads.create', {});
    t.server.push(write('a'));
    await opened.call('threads.send', { threadId: thread.id, text: 'write a' });
    await until(async () => (await opened.call('threads.get', { threadId: thread.id })).approvals.length === 1, 'the person to be asked');
    expect(reviews(t.server.requests)).toBe(0);
  });

  it('turning review back on in Settings resets a tripped breaker: the next question goes to the reviewer again', async () => {
    const opened = await t.open();
    await opened.call('settings.update', { reviewer: { model: '' } });
    const thread = await opened.call('threads.create', {});
    t.server.push(write('1'), verdict('deny'), write('2'), verdict('deny'), write('3'), verdict('deny'), { text: 'tripped' });
    await send(opened, thread.id, 'write three');
    expect(threadEvents(opened.events, thread.id).filter((e) => e.type === 'note' && (e as { kind?: string }).kind === 'reviewer')).toHaveLength(1);

    // Saved on again unchanged, as Save settings sends it from the breaker notice's Review settings (issue 97).
    await opened.call('settings.update', { reviewer: { model: '' } });
    t.server.push(write('4'), verdict('allow'), { text: 'done' });
    const approvals = await send(opened, thread.id, 'write four');
    expect(approvals.map((e) => [e.status, e.decidedBy])).toEqual([['approved', 'reviewer']]);
    expect(reviews(t.server.requests)).toBe(4);
    expect(existsSync(join(t.folder, '4'))).toBe(true);
  });
});
