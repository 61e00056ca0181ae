import { describe, expect, it } from 'vitest';
import type { ThreadSummaryDto } from '../../../src-main/app/contract';
import { filterThreads, groupThreads, searchThreads } from './thread-groups';

function thread(id: string, title: string, updatedAt: string): ThreadSummaryDto {
  return { id, title, createdAt: updatedAt, updatedAt, messageCount: 1, running: false, pendingApprovals: 0 };
}

describe('thread list', () => {
  const now = new Date(2026, 10, 22, 15, 0).getTime();
  const at = (daysAgo: number, hour = 10) => new Date(2026, 10, 22 - daysAgo, hour).toISOString();
  const threads = [
    thread('a', 'Fix the VAT rounding', at(0)),
    thread('b', 'Write release notes', at(1)),
    thread('c', 'Refactor the parser', at(3)),
    thread('d', 'Old idea', at(20)),
    thread('e', 'Ancient', at(90)),
    thread('f', 'Later today', at(0, 14)),
  ];

  it('groups by date, newest first', () => {
    expect(groupThreads(threads, now).map((g) => [g.label, g.threads.map((t) => t.id)])).toEqual([
      ['Today', ['f', 'a']],
      ['Yesterday', ['b']],
      ['Previous 7 days', ['c']],
      ['Previous 30 days', ['d']],
      ['August 2026', ['e']],
    ]);
  });

  it('searches titles by every word, ignoring case', () => {
    expect(filterThreads(threads, 'vat').map((t) => t.id)).toEqual(['a']);
    expect(filterThreads(threads, 'THE  r').map((t) => t.id)).toEqual(['a', 'c']);
    expect(filterThreads(threads, '')).toHaveLength(6);
    expect(filterThreads([thread('u', '', at(0))], 'untitled').map((t) => t.id)).toEqual(['u']);
  });

  it('adds the threads whose messages match (the server\'s answer for this query), with what matched', () => {
    const answer = { query: 'rounding', snippets: new Map([['c', '…where the rounding happens…'], ['gone', 'a deleted thread']]) };
    const found = searchThreads(threads, 'rounding', answer);
    expect(found.threads.map((t) => t.id)).toEqual(['a', 'c']);
    expect([...found.snippets]).toEqual([['c', '…where the rounding happens…']]);
    // An answer for an older query is not used; the titles still are.
    expect(searchThreads(threads, 'vat', answer).threads.map((t) => t.id)).toEqual(['a']);
    expect(searchThreads(threads, '', answer).threads).toHaveLength(6);
    expect(searchThreads(threads, 'rounding ', answer).threads.map((t) => t.id)).toEqual(['a', 'c']);
  });
});
