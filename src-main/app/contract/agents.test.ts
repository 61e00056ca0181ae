// agentNotices: what the Agents view tells the person between two listings (SPEC §16): a thread
// that newly needs them or newly finished, never one that stays as it was.

import { describe, expect, it } from 'vitest';
import { agentNotices, agentPlace, agentSchema, type AgentDto } from './agents';

const agent = (threadId: string, state: AgentDto['state'], extra: Partial<AgentDto> = {}): AgentDto =>
  agentSchema.parse({
    threadId,
    title: `Thread ${threadId}`,
    folder: '/home/p/calc',
    folderName: 'calc',
    state,
    startedAt: '2025-01-01T10:00:00.000Z',
    sharesFolder: false,
    ...extra,
  });

describe('agentNotices', () => {
  it('tells a thread that starts needing the person, and one that finishes or fails', () => {
    const before = [agent('a', 'working'), agent('b', 'working'), agent('c', 'working'), agent('d', 'queued')];
    const after = [agent('a', 'needs-you'), agent('b', 'done'), agent('c', 'failed', { message: 'the model is unreachable' }), agent('d', 'working')];
    expect(agentNotices(before, after)).toEqual([
      { threadId: 'a', title: '“Thread a” needs you', body: 'It waits for your answer in calc.' },
      { threadId: 'b', title: '“Thread b” is done', body: 'It finished in calc.' },
      { threadId: 'c', title: '“Thread c” failed', body: 'the model is unreachable (calc)' },
    ]);
  });

  it('says nothing of a thread that stays as it was, starts working, or leaves the list', () => {
    const list = [agent('a', 'needs-you'), agent('b', 'done'), agent('c', 'failed'), agent('d', 'working')];
    expect(agentNotices(list, list)).toEqual([]);
    expect(agentNotices([agent('a', 'needs-you')], [agent('a', 'working'), agent('n', 'working'), agent('q', 'queued')])).toEqual([]);
    expect(agentNotices(list, [])).toEqual([]);
  });

  it('tells a thread first listed in a state to tell, and a new run that ended between two listings', () => {
    expect(agentNotices([], [agent('n', 'needs-you')]).map((n) => n.title)).toEqual(['“Thread n” needs you']);
    const again = agentNotices([agent('b', 'done')], [agent('b', 'done', { startedAt: '2025-01-01T11:00:00.000Z' })]);
    expect(again.map((n) => n.title)).toEqual(['“Thread b” is done']);
    // Needing the person again after working on: told again.
    expect(agentNotices([agent('a', 'working')], [agent('a', 'needs-you')])).toHaveLength(1);
  });

  it('names the worktree and its branch, an untitled thread as such, and a failure without a message', () => {
    const worktree = { name: 'fix-tests', branch: 'deepdesk/fix-tests', originFolder: '/home/p/calc' };
    const [notice] = agentNotices([], [agent('w', 'failed', { title: '  ', worktree, folderName: 'fix-tests' })]);
    expect(notice).toEqual({ threadId: 'w', title: '“Untitled thread” failed', body: 'It stopped with an error in fix-tests (deepdesk/fix-tests).' });
    expect(agentPlace({ folderName: 'calc' })).toBe('calc');
  });
});
