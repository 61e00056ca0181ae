import { describe, it, expect, vi } from 'vitest';
import type { DisplayItem, PendingApproval, ThreadView } from '../../../src-main/app/contract';
import type { RawAgentEvent } from './agent-event';
import { emptyThreadState, groupItems, threadReducer, type ThreadAction, type ThreadDisplayState, type ToolItem } from './thread-reducer';

const T = 't1';

function ev(type: string, fields: Record<string, unknown> = {}): ThreadAction {
  return { type: 'event', event: { type, threadId: T, ...fields } as RawAgentEvent };
}

function run(actions: ThreadAction[], start: ThreadDisplayState = emptyThreadState(T)): ThreadDisplayState {
  return actions.reduce(threadReducer, start);
}

function view(partial: Partial<ThreadView> = {}): ThreadView {
  return {
    thread: { id: T, title: 'x', createdAt: '', updatedAt: '', messageCount: 0, running: false, pendingApprovals: 0 },
    items: [],
    page: { cursor: 0, turnsBefore: 0 },
    todos: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    contextTokens: 0,
    contextWindow: 0,
    approvals: [],
    eventSeq: 0,
    streamingText: '',
    queued: [],
    ...partial,
  };
}

describe('threadReducer', () => {
  it('keeps the attachments of a sent message: loaded ones know their message, a delivered queued one is read from its lines', () => {
    const loaded = run([
      { type: 'load', view: view({ items: [{ kind: 'user', text: 'look', index: 3, attachments: [{ name: 'a.png', mimeType: 'image/png', size: '1.0 KB' }] }] }) },
      ev('user_message', { text: 'later\n[Attached /attachments/b.wav (audio/wav, 2.0 KB): read it with read_file]', queuedId: 'q1' }),
    ]);
    expect(loaded.items.map((i) => (i.kind === 'user' ? { text: i.text, attachments: i.attachments } : null))).toEqual([
      { text: 'look', attachments: [{ name: 'a.png', mimeType: 'image/png', size: '1.0 KB', index: 3 }] },
      { text: 'later', attachments: [{ name: 'b.wav', mimeType: 'audio/wav', size: '2.0 KB', path: '/attachments/b.wav' }] },
    ]);
  });

  it('says a stalled goal’s stop again when the thread loads (the history keeps no error), once, as the run said it', () => {
    const goal = { objective: 'make sum add', state: 'stalled' as const, reason: 'the same failing command ran 3 times: node check.js', criteria: [], verify: [], evidence: null, contradictedClaims: [], rounds: 0, maxRounds: 3, evaluations: [], startedAt: '' };
    const loaded = run([{ type: 'load', view: view({ goal, items: [{ kind: 'assistant', text: 'Trying again.', index: 1 }] }) }]);
    expect(loaded.items.map((i) => (i.kind === 'error' ? i.message : i.kind))).toEqual(['assistant', 'The goal stopped: the same failing command ran 3 times: node check.js']);
    expect(run([{ type: 'load', view: view({ goal: { ...goal, state: 'unmet' } }) }]).items).toEqual([]);
  });

  it('a thread loaded while its run waits (the host’s check asks) shows the answer once when the run ends', () => {
    const loaded = run([
      { type: 'load', view: view({ thread: { ...view().thread, running: true }, items: [{ kind: 'user', text: 'fix it', index: 0 }, { kind: 'assistant', text: 'Fixed the sum.', index: 1 }] }) },
      ev('tool_call', { id: 'goal-verify-1of1-x', name: 'execute', args: { command: 'node check.js' } }),
      ev('tool_result', { id: 'goal-verify-1of1-x', name: 'execute', output: 'ok' }),
      ev('done', { text: 'Fixed the sum.', reason: 'completed' }),
    ]);
    expect(loaded.items.filter((i) => i.kind === 'assistant').map((i) => (i.kind === 'assistant' ? i.text : ''))).toEqual(['Fixed the sum.']);
    // The same words answering a later message are a new answer.
    const again = run([{ type: 'local_user', text: 'and again?' }, ev('done', { text: 'Fixed the sum.', reason: 'completed' })], loaded);
    expect(again.items.filter((i) => i.kind === 'assistant')).toHaveLength(2);
  });

  it('appends streamed text deltas to one assistant item and finishes it on done', () => {
    const s = run([{ type: 'local_user', text: 'hi' }, ev('text', { text: 'Hel' }), ev('text', { text: 'lo' }), ev('done', { text: 'Hello', reason: 'completed' })]);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'assistant']);
    expect(s.items[1]).toMatchObject({ kind: 'assistant', text: 'Hello', streaming: false });
    expect(s.running).toBe(false);
  });

  it('marks the thread running on send and gives every item a unique key', () => {
    const s = run([{ type: 'local_user', text: 'a' }, ev('text', { text: 'b' }), ev('tool_call', { id: 'c1', name: 'ls', args: {} }), ev('text', { text: 'c' })]);
    expect(s.running).toBe(true);
    expect(new Set(s.items.map((i) => i.key)).size).toBe(s.items.length);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('adds the done text when nothing was streamed', () => {
    const s = run([{ type: 'local_user', text: 'q' }, ev('done', { text: 'Answer', reason: 'completed' })]);
    expect(s.items[1]).toMatchObject({ kind: 'assistant', text: 'Answer' });
  });

  it('does not repeat the done text after it was streamed', () => {
    const s = run([{ type: 'local_user', text: 'q' }, ev('text', { text: 'Answer' }), ev('done', { text: 'Answer', reason: 'completed' })]);
    expect(s.items.filter((i) => i.kind === 'assistant')).toHaveLength(1);
  });

  it('pairs tool results with their calls', () => {
    const s = run([
      ev('tool_call', { id: 'a', name: 'read_file', args: { path: '/x' } }),
      ev('tool_call', { id: 'b', name: 'ls', args: { path: '/' } }),
      ev('tool_result', { id: 'b', name: 'ls', output: 'x', isError: false }),
      ev('tool_result', { id: 'a', name: 'read_file', output: 'Error: nope', isError: true, evictedTo: '/large_tool_results/a' }),
    ]);
    const tools = s.items as ToolItem[];
    expect(tools).toHaveLength(2);
    expect(tools[0]).toMatchObject({ id: 'a', output: 'Error: nope', isError: true, evictedTo: '/large_tool_results/a' });
    expect(tools[1]).toMatchObject({ id: 'b', output: 'x', isError: false });
  });

  it("keeps a read's, grep's, glob's or ls's counted facts (its gist), live and malformed", () => {
    const s = run([
      ev('tool_call', { id: 'g', name: 'grep', args: { pattern: 'x' } }),
      ev('tool_result', { id: 'g', name: 'grep', output: 'words', isError: false, gist: { kind: 'grep', matches: 4, files: 2, truncated: false } }),
      ev('tool_call', { id: 'r', name: 'read_file', args: { file_path: '/a' } }),
      ev('tool_result', { id: 'r', name: 'read_file', output: 'words', isError: false, gist: { kind: 'read', from: 1 } }),
    ]);
    const [g, r] = s.items as ToolItem[];
    expect(g!.gist).toEqual({ kind: 'grep', matches: 4, files: 2, truncated: false });
    expect(r!.gist).toBeUndefined();
  });

  it('keeps the facts of a result, from the live result and from the saved thread, never from its text', () => {
    const live = run([
      ev('tool_call', { id: 'a', name: 'execute', args: { command: 'exit 3' } }),
      ev('tool_result', { id: 'a', name: 'execute', output: 'x\n[Command failed with exit code 3]', isError: false, exitCode: 3 }),
      ev('tool_call', { id: 'b', name: 'execute', args: { command: 'rm x' } }),
      ev('tool_result', { id: 'b', name: 'execute', output: 'Error: the person rejected this execute call; it was not run.', isError: true, rejected: { by: 'person', message: 'no' } }),
      ev('tool_call', { id: 'c', name: 'execute', args: { command: 'true' } }),
      ev('tool_result', { id: 'c', name: 'execute', output: '[Command failed with exit code 3]', isError: false, exitCode: 0, rejected: { by: 'nobody' } }),
    ]);
    const [a, b, c] = live.items as ToolItem[];
    expect(a).toMatchObject({ exitCode: 3 });
    expect(b).toMatchObject({ rejected: { by: 'person', message: 'no' } });
    expect(b!.exitCode).toBeUndefined();
    // Malformed facts are none at all.
    expect(c!.exitCode).toBeUndefined();
    expect(c!.rejected).toBeUndefined();
    const saved = run([
      {
        type: 'load',
        view: view({ items: [{ kind: 'tool', id: 'd', name: 'execute', args: {}, index: 1, output: 'big', evictedTo: '/large_tool_results/d', exitCode: null, timedOut: true }] }),
      },
    ]);
    expect(saved.items[0]).toMatchObject({ evictedTo: '/large_tool_results/d', exitCode: null, timedOut: true });
  });

  it('keeps what a write did to its file, from the live result and from the saved thread; a malformed one is ignored', () => {
    const change = { path: '/a.py', created: false, hunks: [{ oldStart: 40, oldLines: 7, newStart: 40, newLines: 7, lines: [' a', '-b', '+c', ' d'] }], added: 1, removed: 1 };
    const live = run([ev('tool_call', { id: 'w', name: 'edit_file', args: {} }), ev('tool_result', { id: 'w', name: 'edit_file', output: 'ok', isError: false, change })]);
    expect((live.items[0] as ToolItem).change).toEqual(change);
    const bad = run([ev('tool_call', { id: 'w', name: 'edit_file', args: {} }), ev('tool_result', { id: 'w', name: 'edit_file', output: 'ok', isError: false, change: { path: 3 } })]);
    expect((bad.items[0] as ToolItem).change).toBeUndefined();
    const loaded = threadReducer(emptyThreadState(), {
      type: 'load',
      view: view({ items: [{ kind: 'tool', id: 'w', name: 'write_file', args: {}, output: 'Updated file /a.py', index: 1, change: { ...change, created: true } }] }),
    });
    expect((loaded.items[0] as ToolItem).change).toMatchObject({ created: true, hunks: change.hunks });
  });

  it('keeps repeated tool ids apart by filling the open call', () => {
    const s = run([
      ev('tool_call', { id: 'call_0', name: 'ls', args: {} }),
      ev('tool_result', { id: 'call_0', name: 'ls', output: 'one', isError: false }),
      ev('tool_call', { id: 'call_0', name: 'glob', args: {} }),
      ev('tool_result', { id: 'call_0', name: 'glob', output: 'two', isError: false }),
    ]);
    expect((s.items as ToolItem[]).map((t) => [t.name, t.output])).toEqual([['ls', 'one'], ['glob', 'two']]);
  });

  it('nests subagent events under their task call', () => {
    const s = run([
      ev('tool_call', { id: 'task1', name: 'task', args: { description: 'look' } }),
      ev('text', { text: 'sub ', parentToolCallId: 'task1' }),
      ev('tool_call', { id: 's1', name: 'ls', args: {}, parentToolCallId: 'task1' }),
      ev('tool_result', { id: 's1', name: 'ls', output: 'a', isError: false, parentToolCallId: 'task1' }),
      ev('text', { text: 'done', parentToolCallId: 'task1' }),
      ev('todos', { todos: [{ content: 'sub todo', status: 'pending' }], parentToolCallId: 'task1' }),
      ev('done', { text: 'done', reason: 'completed', parentToolCallId: 'task1' }),
      ev('tool_result', { id: 'task1', name: 'task', output: 'final', isError: false }),
    ]);
    const { top, children } = groupItems(s.items);
    expect(top.map((i) => i.kind)).toEqual(['tool']);
    expect(children.get('task1')?.map((i) => i.kind)).toEqual(['assistant', 'tool', 'assistant']);
    expect(s.subTodos.task1).toEqual([{ content: 'sub todo', status: 'pending' }]);
    expect(s.todos).toEqual([]);
    expect(s.running).toBe(false); // a subagent's done does not end the run... nor start it
    expect(top[0]).toMatchObject({ output: 'final' });
  });

  it('keeps a subagent done from ending the top-level run', () => {
    const s = run([{ type: 'local_user', text: 'go' }, ev('done', { text: '', reason: 'completed', parentToolCallId: 'task1' })]);
    expect(s.running).toBe(true);
  });

  it('streams parallel subagents into separate items', () => {
    const s = run([
      ev('text', { text: 'A1', parentToolCallId: 'a' }),
      ev('text', { text: 'B1', parentToolCallId: 'b' }),
      ev('text', { text: 'A2', parentToolCallId: 'a' }),
    ]);
    const { children } = groupItems(s.items);
    expect(children.get('a')?.map((i) => (i.kind === 'assistant' ? i.text : ''))).toEqual(['A1A2']);
    expect(children.get('b')?.map((i) => (i.kind === 'assistant' ? i.text : ''))).toEqual(['B1']);
  });

  it('tracks approvals on the tool card', () => {
    let s = run([
      ev('tool_call', { id: 'w', name: 'write_file', args: { path: '/a' } }),
      ev('approval', { id: 'w', name: 'write_file', args: {}, status: 'pending', reason: 'writes need approval' }),
    ]);
    expect(s.items[0]).toMatchObject({ approval: 'pending', approvalReason: 'writes need approval' });
    s = run([ev('approval', { id: 'w', name: 'write_file', args: {}, status: 'rejected', reason: '' })], s);
    expect(s.items[0]).toMatchObject({ approval: 'rejected', approvalReason: 'writes need approval' });
    expect((s.items[0] as ToolItem).answeredInTerminal).toBeUndefined();
    // Answered in a terminal (deepdesk attach): the card is told where.
    s = run([ev('approval', { id: 'w', name: 'write_file', args: {}, status: 'approved', reason: '', answeredIn: 'terminal' })], s);
    expect(s.items[0]).toMatchObject({ approval: 'approved', answeredInTerminal: true });
    // Answered by an Agent Protocol client: the card names it.
    s = run([ev('approval', { id: 'w', name: 'write_file', args: {}, status: 'approved', reason: '', answeredIn: 'protocol', answeredBy: 'a page at http://localhost:3000' })], s);
    expect(s.items[0]).toMatchObject({ approval: 'approved', answeredOverProtocol: 'a page at http://localhost:3000' });
  });

  it('shows a local decision on the card at once', () => {
    const s = run([
      ev('tool_call', { id: 'w', name: 'write_file', args: {}, parentToolCallId: 'task1' }),
      ev('approval', { id: 'w', name: 'write_file', args: {}, status: 'pending', reason: 'r', parentToolCallId: 'task1' }),
      { type: 'local_approval', toolCallId: 'w', parent: 'task1', status: 'approved' },
    ]);
    expect(s.items[0]).toMatchObject({ approval: 'approved' });
  });

  it('creates a card for an approval without a prior call', () => {
    const s = run([ev('approval', { id: 'x', name: 'execute', args: { command: 'ls' }, status: 'pending', reason: 'r' })]);
    expect(s.items[0]).toMatchObject({ kind: 'tool', id: 'x', name: 'execute', args: { command: 'ls' }, approval: 'pending' });
  });

  it('keeps the latest todos, usage and context numbers', () => {
    const s = run([
      ev('todos', { todos: [{ content: 'a', status: 'in_progress' }, { content: 'b', status: 'bogus' }, 'junk'] }),
      ev('usage', { usage: { inputTokens: 1 }, total: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.5 }, contextTokens: 1200, contextWindow: 8000 }),
      ev('usage', { usage: {}, total: { inputTokens: 999 }, contextTokens: 5, contextWindow: 6, parentToolCallId: 'sub' }),
    ]);
    expect(s.todos).toEqual([{ content: 'a', status: 'in_progress' }, { content: 'b', status: 'pending' }]);
    expect(s.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, costUsd: 0.5 });
    expect(s.contextTokens).toBe(1200);
    expect(s.contextWindow).toBe(8000);
  });

  it('shows summaries, errors and stop notices inline', () => {
    const s = run([
      { type: 'local_user', text: 'x' },
      ev('summarized', { archivePath: '/conversation_history/t1.md', summarizedMessages: 12, summary: 'S' }),
      ev('error', { message: 'rate limited' }),
      ev('done', { text: '', reason: 'aborted' }),
      ev('note', { id: 'n1', kind: 'stopped', text: 'Stopped.' }),
    ]);
    // The stop is said once: by the note the thread keeps, not by the run's end as well.
    expect(s.items.slice(1)).toMatchObject([
      { kind: 'summary', archivePath: '/conversation_history/t1.md', summarizedMessages: 12, text: 'S' },
      { kind: 'error', message: 'rate limited' },
      { kind: 'notice', text: 'Stopped.' },
    ]);
    expect(s.items).toHaveLength(4);
  });

  it('ignores events of other threads and unknown or malformed events', () => {
    const s0 = emptyThreadState(T);
    expect(threadReducer(s0, { type: 'event', event: { type: 'text', threadId: 'other', text: 'x' } })).toBe(s0);
    expect(threadReducer(s0, ev('mystery'))).toBe(s0);
    const s = run([ev('text', { text: 42 }), ev('tool_result', { id: 'q' }), ev('todos', { todos: 'nope' })]);
    expect(s.items).toMatchObject([{ kind: 'tool', id: 'q', output: '', isError: false }]);
    expect(s.todos).toEqual([]);
  });

  it('loads a saved thread with nested items and pending approvals', () => {
    const s = threadReducer(emptyThreadState(), {
      type: 'load',
      view: view({
        thread: { id: T, title: 'x', createdAt: '', updatedAt: '', messageCount: 3, running: true, pendingApprovals: 1 },
        items: [
          { kind: 'user', text: 'hi', index: 0 },
          { kind: 'summary', archivePath: '/conversation_history/t1.md', summarizedMessages: 4, text: 'sum', index: 1 },
          { kind: 'tool', id: 'task1', name: 'task', args: {}, index: 2 },
          { kind: 'assistant', text: 'sub', index: 0, parentToolCallId: 'task1' },
          { kind: 'tool', id: 'w1', name: 'write_file', args: { path: '/a' }, index: 0, parentToolCallId: 'task1' },
        ],
        todos: [{ content: 't', status: 'completed' }],
        contextTokens: 10,
        contextWindow: 100,
        approvals: [{ threadId: T, toolCallId: 'w1', toolName: 'write_file', args: {}, reason: 'why', parentToolCallId: 'task1', createdAt: '' }],
      }),
    });
    expect(s.threadId).toBe(T);
    expect(s.running).toBe(true);
    expect(s.todos).toHaveLength(1);
    const { top, children } = groupItems(s.items);
    expect(top.map((i) => i.kind)).toEqual(['user', 'summary', 'tool']);
    expect(children.get('task1')?.[1]).toMatchObject({ kind: 'tool', id: 'w1', approval: 'pending', approvalReason: 'why' });
    // live events continue the loaded state
    const s2 = run([ev('tool_result', { id: 'w1', name: 'write_file', output: 'ok', isError: false, parentToolCallId: 'task1' })], s);
    expect(groupItems(s2.items).children.get('task1')?.[1]).toMatchObject({ output: 'ok' });
    expect((groupItems(s2.items).children.get('task1')?.[1] as ToolItem).approval).toBeUndefined();
  });

  it('does not duplicate a call that the loaded view already has', () => {
    const loaded = threadReducer(emptyThreadState(), { type: 'load', view: view({ items: [{ kind: 'tool', id: 'c', name: 'ls', args: {}, index: 0 }] }) });
    const s = run([ev('tool_call', { id: 'c', name: 'ls', args: { path: '/' } })], loaded);
    expect(s.items).toHaveLength(1);
    expect(s.items[0]).toMatchObject({ args: { path: '/' } });
  });

  it('marks the errors whose fix is in Settings: a send refused for want of a key, a key the provider refused', () => {
    const s = run([
      { type: 'local_error', message: 'Could not send: No API key for Anthropic: add one in Settings.', settings: true },
      ev('error', { message: 'HTTP 401: invalid x-api-key', status: 401 }),
      ev('error', { message: 'HTTP 403: not allowed', status: 403 }),
      ev('error', { message: 'HTTP 500: overloaded', status: 500 }),
      ev('error', { message: 'Network error' }),
    ]);
    expect(s.items.map((i) => (i.kind === 'error' ? i.settings === true : null))).toEqual([true, true, true, false, false]);
  });

  it('a server not reached: the app’s plain words, the way to Settings, the technical text kept as detail', () => {
    const s = run([ev('error', { message: "Can't reach the model server at 127.0.0.1:9. Is it running? Check the address in Settings.", settings: true, detail: 'connect ECONNREFUSED 127.0.0.1:9' })]);
    expect(s.items[0]).toMatchObject({ kind: 'error', settings: true, retryable: true, detail: 'connect ECONNREFUSED 127.0.0.1:9' });
  });

  it('a budget stop: its one line, with the way to Settings, said once (SPEC §17)', () => {
    const line = 'Stopped before the next model call: it would take this thread past its budget of $0.0100 (spent $0.0090; the call would cost about $0.0020).';
    const s = run([{ type: 'local_user', text: 'go on' }, ev('error', { message: line, budget: true }), ev('done', { text: '', reason: 'budget' })]);
    expect(s.items.filter((i) => i.kind !== 'user')).toEqual([{ kind: 'error', key: 'i1', message: line, retryable: true, settings: true, budget: true }]);
    expect(s.running).toBe(false);
    // Without its line (an app that sends only the reason), the stop is still said, once.
    const bare = run([{ type: 'local_user', text: 'go on' }, ev('done', { text: '', reason: 'budget' })]);
    expect(bare.items.filter((i) => i.kind === 'error')).toMatchObject([{ message: 'Stopped: the budget was reached.', settings: true, budget: true }]);
  });

  it('keeps what the latest run used: from the thread view, then from each run’s done (SPEC §17)', () => {
    const before = { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.5 };
    const loaded = run([{ type: 'load', view: view({ lastRun: before }) }]);
    expect(loaded.lastRun).toEqual(before);
    const runUsage = { inputTokens: 300, outputTokens: 20, cacheReadTokens: 100, cacheWriteTokens: 0, costUsd: 0.0123 };
    const after = run([{ type: 'local_user', text: 'go' }, ev('done', { text: 'ok', reason: 'completed', usage: runUsage })], loaded);
    expect(after.lastRun).toEqual(runUsage);
    // A subagent's done is its own, not the run's.
    const sub = run([ev('done', { text: 'ok', reason: 'completed', parentToolCallId: 'task-1', usage: { ...runUsage, costUsd: 9 } })], after);
    expect(sub.lastRun).toEqual(runUsage);
  });

  it('records local errors and resets', () => {
    const s = run([{ type: 'local_error', message: 'send failed' }]);
    expect(s.items[0]).toMatchObject({ kind: 'error', message: 'send failed' });
    expect(threadReducer(s, { type: 'reset', threadId: 'z' })).toEqual(emptyThreadState('z'));
  });

  it("a message sent takes away the window's own errors about earlier sends, never the run's", () => {
    const s = run([ev('error', { message: 'HTTP 500: overloaded', status: 500 }), { type: 'local_error', message: 'unknown command /frobnicate: type / to see the commands' }, { type: 'local_user', text: 'hello' }, { type: 'sent' }]);
    expect(s.items.map((i) => (i.kind === 'error' ? i.message : i.kind))).toEqual(['HTTP 500: overloaded', 'user']);
  });
});

describe('batched events', () => {
  it('folds a batch exactly like the same events one by one, ignoring other threads', () => {
    const events: RawAgentEvent[] = [
      { type: 'text', threadId: 't', text: 'Hel' },
      { type: 'text', threadId: 't', text: 'lo' },
      { type: 'text', threadId: 'other', text: 'NOPE' },
      { type: 'tool_call', threadId: 't', id: 'c1', name: 'ls', args: {} },
      { type: 'tool_result', threadId: 't', id: 'c1', name: 'ls', output: 'No files found', isError: false },
      { type: 'done', threadId: 't', text: 'Hello', reason: 'completed' },
    ];
    const start = emptyThreadState('t');
    // One clock for both (a tool call records when it started): the two folds may straddle a millisecond.
    vi.useFakeTimers({ now: 1_795_000_000_000 });
    try {
      const oneByOne = events.reduce((s, event) => threadReducer(s, { type: 'event', event }), start);
      const batched = threadReducer(start, { type: 'events', events });
      expect(batched).toEqual(oneByOne);
      expect(JSON.stringify(batched.items)).not.toContain('NOPE');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('loading a thread that is streaming', () => {
  it('shows the text streamed so far and continues it with later events', () => {
    const loaded = run([{ type: 'load', view: view({ streamingText: 'Hello, wo', thread: { ...view().thread, running: true } }) }, { type: 'event', event: { type: 'text', threadId: T, text: 'rld' } }]);
    const assistant = loaded.items.filter((i) => i.kind === 'assistant');
    expect(assistant).toHaveLength(1);
    expect(assistant[0]).toMatchObject({ text: 'Hello, world', streaming: true });
  });

  it('shows a provider retry until the model answers, and marks a failed run retryable', () => {
    // A clock of the test's own: when the retry comes is said exactly, whatever the machine's speed.
    vi.useFakeTimers({ now: 1_795_000_000_000 });
    let waiting: ThreadDisplayState;
    try {
      waiting = run([{ type: 'local_user', text: 'hi' }, ev('retry', { attempt: 2, maxAttempts: 5, delayMs: 8000, message: 'HTTP 503' })]);
    } finally {
      vi.useRealTimers();
    }
    expect(waiting.retry).toMatchObject({ attempt: 2, maxAttempts: 5, message: 'HTTP 503', at: 1_795_000_008_000 });
    expect(run([ev('text', { text: 'back' })], waiting).retry).toBeNull();
    const failed = run([ev('error', { message: 'p:m failed after 5 attempts' }), ev('done', { text: '', reason: 'error' })], waiting);
    expect(failed.retry).toBeNull();
    expect(failed.items.at(-1)).toMatchObject({ kind: 'error', retryable: true });
    // A subagent's retry is not the thread's.
    expect(run([ev('retry', { attempt: 2, maxAttempts: 5, delayMs: 1, parentToolCallId: 'task1' })]).retry).toBeNull();
  });

  it('times a call from when it starts running and keeps the end of streamed output', () => {
    const before = Date.now();
    let s = run([ev('tool_call', { id: 'c1', name: 'execute', args: { command: 'make' } })]);
    expect((s.items[0] as ToolItem).startedAt).toBeGreaterThanOrEqual(before);
    s = run([ev('tool_output', { id: 'c1', chunk: 'a'.repeat(9000) }), ev('tool_output', { id: 'c1', chunk: 'END' })], s);
    const live = (s.items[0] as ToolItem).liveOutput!;
    expect(live.endsWith('END')).toBe(true);
    expect(live.length).toBeLessThanOrEqual(8000);
    s = run([ev('tool_result', { id: 'c1', name: 'execute', output: 'done', isError: false })], s);
    expect((s.items[0] as ToolItem).liveOutput).toBeUndefined();
  });

  it('shows the edited arguments once the person edited a call', () => {
    const s = run([
      ev('tool_call', { id: 'c1', name: 'execute', args: { command: 'rm -rf /tmp/x' } }),
      ev('approval', { id: 'c1', name: 'execute', args: { command: 'ls /tmp/x' }, status: 'edited', reason: '' }),
    ]);
    expect((s.items[0] as ToolItem).args).toEqual({ command: 'ls /tmp/x' });
  });
});

describe('honest cards and queued messages', () => {
  it('shows the edited call that ran, keeping what the agent proposed, live and after a reload', () => {
    const live = run([
      ev('tool_call', { id: 'c', name: 'execute', args: { command: 'rm -rf /' } }),
      ev('approval', { id: 'c', name: 'execute', args: { command: 'ls' }, status: 'edited', reason: 'asks' }),
    ]);
    expect(live.items[0]).toMatchObject({ kind: 'tool', args: { command: 'ls' }, edited: true, originalArgs: { command: 'rm -rf /' }, approval: 'edited' });
    const loaded = run([{ type: 'load', view: view({ items: [{ kind: 'tool', id: 'c', name: 'execute', args: { command: 'ls' }, index: 1, edited: true, originalArgs: { command: 'rm -rf /' } }] }) }]);
    expect(loaded.items[0]).toMatchObject({ args: { command: 'ls' }, edited: true, originalArgs: { command: 'rm -rf /' } });
  });

  it('keeps the queue from the snapshot and events, and moves a delivered message into the conversation', () => {
    const q = { id: 'q1', text: 'later', createdAt: '' };
    let s = run([{ type: 'load', view: view({ queued: [q], thread: { id: T, title: 'x', createdAt: '', updatedAt: '', messageCount: 0, running: true, pendingApprovals: 0 } }) }]);
    expect(s.queued).toEqual([q]);
    s = run([ev('text', { text: 'working' }), ev('user_message', { text: 'later', queuedId: 'q1' })], s);
    expect(s.queued).toEqual([]);
    expect(s.items.map((i) => i.kind)).toEqual(['assistant', 'user']);
    expect(s.items[0]).toMatchObject({ streaming: false });
    s = run([ev('queued', { queued: [{ id: 'q2', text: 'again', createdAt: 'now' }] })], s);
    expect(s.queued.map((x) => x.id)).toEqual(['q2']);
  });
});

describe('a thread loaded in pages', () => {
  const tool = (id: string, index: number): DisplayItem => ({ kind: 'tool', id, name: 'execute', args: { command: 'ls' }, output: 'x', index });
  const approval = (toolCallId: string): PendingApproval => ({ threadId: T, toolCallId, toolName: 'execute', args: {}, reason: 'asks', createdAt: '' });

  it('puts earlier items before the loaded ones once, with fresh keys, and marks approvals waiting on them', () => {
    const loaded = run([{ type: 'load', view: view({ items: [{ kind: 'user', text: 'later', index: 10 }], page: { cursor: 10, turnsBefore: 4 }, approvals: [approval('old')] }) }]);
    const earlier: ThreadAction = {
      type: 'earlier',
      threadId: T,
      cursor: 10,
      items: [{ kind: 'user', text: 'earlier', index: 8 }, tool('old', 9)],
      before: 8,
      approvals: [approval('old')],
    };
    const s = run([earlier], loaded);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'tool', 'user']);
    expect(s.page).toEqual({ cursor: 8, turnsBefore: 3 });
    expect(new Set(s.items.map((i) => i.key)).size).toBe(3);
    expect(s.items[1]).toMatchObject({ kind: 'tool', id: 'old', approval: 'pending' });
    // The same reply again (or one for a page the view has moved past) adds nothing.
    expect(run([earlier], s)).toBe(s);
  });

  it('drops earlier items for another thread or after the thread was loaded again', () => {
    const loaded = run([{ type: 'load', view: view({ items: [{ kind: 'user', text: 'later', index: 10 }], page: { cursor: 10, turnsBefore: 4 } }) }]);
    const reloaded = run([{ type: 'load', view: view({ items: [{ kind: 'user', text: 'later', index: 10 }], page: { cursor: 6, turnsBefore: 2 } }) }], loaded);
    const earlier = (threadId: string): ThreadAction => ({ type: 'earlier', threadId, cursor: 10, items: [{ kind: 'user', text: 'x', index: 8 }], before: 8, approvals: [] });
    expect(run([earlier('other')], loaded)).toBe(loaded);
    expect(run([earlier(T)], reloaded)).toBe(reloaded);
  });

  it('keeps what a page cut of a call, with its message index, for loading it in full', () => {
    const s = run([{ type: 'load', view: view({ items: [{ ...tool('c', 7), omitted: { outputChars: 5000, args: false } } as DisplayItem] }) }]);
    expect(s.items[0]).toMatchObject({ kind: 'tool', omitted: { index: 7, outputChars: 5000, args: false } });
  });
});


describe('what hooks did (SPEC §11)', () => {
  const hook = { command: 'guard.sh', file: '/data/hooks.json' };

  it('a call a hook blocked names the hook; one it rewrote is marked edited by hook', () => {
    const state = run([
      ev('tool_call', { id: 'a', name: 'write_file', args: { file_path: '/x' } }),
      ev('approval', { id: 'a', name: 'write_file', args: { file_path: '/x' }, status: 'denied', reason: 'blocked by hook: no', hook }),
      ev('tool_call', { id: 'b', name: 'write_file', args: { file_path: '/y', content: 'model' } }),
      ev('approval', { id: 'b', name: 'write_file', args: { file_path: '/y', content: 'hook' }, status: 'edited', reason: 'edited by hook', hook }),
    ]);
    const [a, b] = state.items as ToolItem[];
    expect(a).toMatchObject({ approval: 'denied', blockedByHook: 'guard.sh', approvalReason: 'blocked by hook: no' });
    expect(b).toMatchObject({ edited: true, editedByHook: true, args: { content: 'hook' }, originalArgs: { content: 'model' } });
  });

  it('a message a UserPromptSubmit hook refused leaves the conversation, and the error offers no retry', () => {
    const state = run([
      { type: 'local_user', text: 'deploy to prod' },
      ev('hook', { event: 'UserPromptSubmit', outcome: 'blocked', message: 'Your message was not sent: no', hook }),
      ev('error', { message: 'Your message was not sent: no', refused: true }),
    ]);
    expect(state.items.map((i) => i.kind)).toEqual(['error']);
    expect(state.items[0]).not.toHaveProperty('retryable');
  });

  it('a hook that failed is a notice; nothing else changes', () => {
    const state = run([ev('hook', { event: 'PostToolUse', outcome: 'error', message: 'PostToolUse hook exited with 1', hook })]);
    expect(state.items).toMatchObject([{ kind: 'notice', text: 'PostToolUse hook exited with 1' }]);
  });
});
