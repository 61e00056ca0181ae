import { describe, expect, it } from 'vitest';
import { agentAnnouncement, agentElapsedMs, anyGoing, needYouCount } from './agents';

describe('agentElapsedMs', () => {
  const start = '2025-01-01T10:00:00.000Z';
  const t0 = Date.parse(start);
  it('runs to now while the run goes, and from start to end once it ended', () => {
    expect(agentElapsedMs({ startedAt: start }, t0 + 65_000)).toBe(65_000);
    expect(agentElapsedMs({ startedAt: start, endedAt: '2025-01-01T10:02:00.000Z' }, t0 + 999_999)).toBe(120_000);
    // A clock behind the host's: never negative.
    expect(agentElapsedMs({ startedAt: start }, t0 - 5_000)).toBe(0);
    expect(agentElapsedMs({ startedAt: 'not a date' }, t0)).toBeNull();
  });
  it('ticks while one still goes', () => {
    expect(anyGoing([{ endedAt: 'x' }, {}])).toBe(true);
    expect(anyGoing([{ endedAt: 'x' }])).toBe(false);
  });
});

describe('needYouCount', () => {
  it('counts each thread that needs the person once, across the folders and what the open folder knows', () => {
    const agents = [
      { threadId: 'a', state: 'needs-you' as const },
      { threadId: 'b', state: 'working' as const },
      { threadId: 'c', state: 'needs-you' as const },
    ];
    expect(needYouCount({ agents })).toBe(2);
    expect(needYouCount({ agents, threads: [{ id: 'a', pendingApprovals: 1 }, { id: 'b', pendingApprovals: 2 }, { id: 'd', pendingApprovals: 0 }] })).toBe(3);
    expect(needYouCount({ agents: null, threads: [], currentThreadId: 'e', currentWaiting: true })).toBe(1);
    expect(needYouCount({ agents: null, currentThreadId: 'e', currentWaiting: false })).toBe(0);
  });
});

describe('agentAnnouncement', () => {
  it('reads out the notices, not about the thread open in the window', () => {
    const notices = [
      { threadId: 'a', title: '“Fix tests” needs you', body: '' },
      { threadId: 'b', title: '“Docs” is done', body: '' },
    ];
    expect(agentAnnouncement(notices, null)).toBe('“Fix tests” needs you. “Docs” is done');
    expect(agentAnnouncement(notices, 'a')).toBe('“Docs” is done');
    expect(agentAnnouncement([], null)).toBe('');
  });
});
