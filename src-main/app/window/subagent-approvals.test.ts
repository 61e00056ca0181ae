// A subagent's call that needs approval reaches the person exactly as the agent's own: it
// is listed by threads.get and the thread list under the thread the person sees, answered
// by the id its event carries (approve, reject, edit), several at once from parallel
// subagents, and kept across a restart — with the real app, SQLite and the scripted model.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../../core/agent/agent-harness.test-support';
import type { RecordedRequest, ScriptStep } from '../../core/models/testing/scripted-server';
import { until, useAppTestEnv } from './app-harness.test-support';
import type { EventFrame, PendingApproval } from '../contract';

const t = useAppTestEnv('deepdesk-subappr');

const isSubagent = (req: RecordedRequest): boolean => textOf(req.messages[0]!.content).includes('You are a subagent');
const taskOf = (req: RecordedRequest): string => textOf(req.messages.find((m) => m.role === 'user')!.content);
const toolResults = (req: RecordedRequest): string[] => req.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content));

/** The parent starts one subagent per file; each subagent writes its file, then reports what its write returned. */
function responder(files: string[]): ScriptStep {
  return (req) => {
    if (!isSubagent(req)) {
      if (req.messages.some((m) => m.role === 'tool')) return { text: `parent saw: ${toolResults(req).join(' | ')}` };
      return { toolCalls: files.map((f) => ({ name: 'task', args: { description: `write ${f} containing ${f}`, subagent_type: 'general-purpose' } })) };
    }
    const file = files.find((f) => taskOf(req).includes(f))!;
    if (req.messages.some((m) => m.role === 'tool')) return { text: `sub ${file}: ${toolResults(req).join(' | ')}` };
    return { toolCalls: [{ name: 'write_file', args: { file_path: file, content: `${file}\n` } }] };
  };
}

function doneOf(events: EventFrame[], threadId: string): boolean {
  return events.some((e) => e.event === 'thread.event' && (e.payload as { threadId: string; event: { type: string; parentToolCallId?: string } }).threadId === threadId && (e.payload as { event: { type: string; parentToolCallId?: string } }).event.type === 'done' && !(e.payload as { event: { parentToolCallId?: string } }).event.parentToolCallId);
}

/** The approval events of the thread, as a window receives them. */
function approvalEvents(events: EventFrame[], threadId: string): Array<{ id: string; parentToolCallId?: string; status: string }> {
  return events
    .filter((e) => e.event === 'thread.event' && (e.payload as { threadId: string }).threadId === threadId)
    .map((e) => (e.payload as { event: { type: string; id: string; parentToolCallId?: string; status: string } }).event)
    .filter((ev) => ev.type === 'approval');
}

describe("a subagent's approval reaches the person", () => {
  it('is listed under the thread, counted in the list, and approving by the event id runs it', async () => {
    t.server.push(...Array.from({ length: 4 }, () => responder(['/sub.txt'])));
    const { call, events } = await t.open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'delegate' });
    const pending = await until(async () => (await call('threads.get', { threadId: thread.id })).approvals[0], 'the approval is listed');
    expect(pending).toMatchObject({ toolName: 'write_file', threadId: thread.id });
    expect(pending.parentToolCallId).toBeTruthy();
    expect((await call('threads.list', {})).find((t) => t.id === thread.id)?.pendingApprovals).toBe(1);
    const event = await until(() => approvalEvents(events, thread.id).find((e) => e.status === 'pending'), 'the pending event');
    expect(event.id).toBe(pending.toolCallId);
    await call('approvals.decide', { threadId: thread.id, toolCallId: event.id, decision: { type: 'approve' } });
    await until(() => doneOf(events, thread.id), 'the run ends');
    expect(readFileSync(join(t.folder, 'sub.txt'), 'utf8')).toBe('/sub.txt\n');
    expect((await call('threads.get', { threadId: thread.id })).approvals).toEqual([]);
  });

  it('rejects and edits reach the subagent', async () => {
    t.server.push(...Array.from({ length: 6 }, () => responder(['/a.txt', '/b.txt'])));
    const { call, events } = await t.open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'delegate twice' });
    // Parallel subagents ask at once: both are listed before either is answered.
    const both = await until(async () => {
      const list = (await call('threads.get', { threadId: thread.id })).approvals;
      return list.length === 2 ? list : undefined;
    }, 'both approvals are listed');
    const byFile = (file: string): PendingApproval => both.find((a) => a.args.file_path === file)!;
    await call('approvals.decide', { threadId: thread.id, toolCallId: byFile('/a.txt').toolCallId, parentToolCallId: byFile('/a.txt').parentToolCallId, decision: { type: 'reject', message: 'not a' } });
    await call('approvals.decide', {
      threadId: thread.id,
      toolCallId: byFile('/b.txt').toolCallId,
      parentToolCallId: byFile('/b.txt').parentToolCallId,
      decision: { type: 'edit', args: { file_path: '/b.txt', content: 'edited\n' } },
    });
    await until(() => doneOf(events, thread.id), 'the run ends');
    expect(existsSync(join(t.folder, 'a.txt'))).toBe(false);
    expect(readFileSync(join(t.folder, 'b.txt'), 'utf8')).toBe('edited\n');
    const final = t.server.requests.at(-1)!;
    expect(toolResults(final).join('\n')).toMatch(/rejected[\s\S]*not a/);
  });

  it('a waiting subagent approval survives a restart and the run finishes after it', async () => {
    t.server.push(...Array.from({ length: 3 }, () => responder(['/later.txt'])));
    const first = await t.open();
    const thread = await first.call('threads.create', {});
    await first.call('threads.send', { threadId: thread.id, text: 'delegate' });
    const pending = await until(async () => (await first.call('threads.get', { threadId: thread.id })).approvals[0], 'the approval is listed');
    await first.close();

    const second = await t.open();
    const view = await until(async () => {
      const v = await second.call('threads.get', { threadId: thread.id });
      return v.approvals.length === 1 ? v : undefined;
    }, 'the approval is listed again');
    expect(view.approvals[0]).toMatchObject({ toolCallId: pending.toolCallId, parentToolCallId: pending.parentToolCallId, toolName: 'write_file' });
    await second.call('approvals.decide', { threadId: thread.id, toolCallId: pending.toolCallId, decision: { type: 'approve' } });
    await until(() => doneOf(second.events, thread.id), 'the run ends');
    expect(readFileSync(join(t.folder, 'later.txt'), 'utf8')).toBe('/later.txt\n');
  });

  it('a subagent call whose id and path read like its parent’s own call is kept apart: each answer reaches the call it names', async () => {
    // Joined with `/`, the parent's call `a/b` and the subagent's `b` under task call `a` read alike.
    t.server.push(
      {
        toolCalls: [
          { id: 'a/b', name: 'write_file', args: { file_path: '/shown.txt', content: 'shown\n' } },
          { id: 'a', name: 'task', args: { description: 'write the marker', subagent_type: 'general-purpose' } },
        ],
      },
      { toolCalls: [{ id: 'b', name: 'write_file', args: { file_path: '/marker.txt', content: 'must not be written\n' } }] },
      { text: 'sub done' },
      { text: 'all done' },
    );
    const { call, events } = await t.open();
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'write both' });
    const both = await until(async () => {
      const list = (await call('threads.get', { threadId: thread.id })).approvals;
      return list.length === 2 ? list : undefined;
    }, 'both approvals are listed');
    const shown = both.find((a) => a.args.file_path === '/shown.txt')!;
    await call('approvals.decide', { threadId: thread.id, toolCallId: shown.toolCallId, decision: { type: 'approve' } });
    await until(() => existsSync(join(t.folder, 'shown.txt')), 'the shown write runs');
    expect(existsSync(join(t.folder, 'marker.txt'))).toBe(false);
    const marker = (await call('threads.get', { threadId: thread.id })).approvals;
    expect(marker.map((a) => a.args.file_path)).toEqual(['/marker.txt']);
    await call('approvals.decide', { threadId: thread.id, toolCallId: marker[0]!.toolCallId, parentToolCallId: marker[0]!.parentToolCallId, decision: { type: 'reject' } });
    await until(() => doneOf(events, thread.id), 'the run ends');
    expect(existsSync(join(t.folder, 'marker.txt'))).toBe(false);
  });
});
