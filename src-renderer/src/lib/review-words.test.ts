import { describe, expect, it } from 'vitest';
import type { RawAgentEvent } from './agent-event';
import { approvalReasonText } from './approval-reason';
import { allowedOnceRun, decidedText, reviewedCalls } from './review-words';
import { emptyThreadState, threadReducer, type ThreadAction, type ToolItem } from './thread-reducer';
import { toolStatus } from './tool-status';

const ev = (type: string, fields: Record<string, unknown>): ThreadAction => ({ type: 'event', event: { type, threadId: 't', ...fields } as RawAgentEvent });
const call = (id: string, command: string): ThreadAction[] => [ev('tool_call', { id, name: 'execute', args: { command } })];
const approval = (id: string, fields: Record<string, unknown>): ThreadAction => ev('approval', { id, name: 'execute', args: {}, reason: '', ...fields });
const fold = (actions: ThreadAction[]) => actions.reduce(threadReducer, emptyThreadState('t'));
const tool = (state: ReturnType<typeof fold>, id: string): ToolItem => state.items.find((i): i is ToolItem => i.kind === 'tool' && i.id === id)!;

const ALLOW = { decision: 'allow', risk: 'low', authorization: 'high', category: 'other', rationale: 'The person asked for the build.' };
const DENY = { decision: 'deny', risk: 'high', authorization: 'none', category: 'destructive_action', rationale: 'rm -rf of the whole folder was not asked for.' };

describe('the reviewer on the cards (SPEC §23)', () => {
  it('while it reviews, the card says so and asks nothing; then it says who decided and why', () => {
    let state = fold([...call('a', 'make'), approval('a', { status: 'reviewing' })]);
    expect(toolStatus(tool(state, 'a'), true, false)).toMatchObject({ status: 'reviewing', label: 'Reviewing' });
    state = [approval('a', { status: 'approved', decidedBy: 'reviewer', review: ALLOW })].reduce(threadReducer, state);
    expect(tool(state, 'a')).toMatchObject({ approval: 'approved', decidedBy: 'reviewer', review: ALLOW });
    expect(toolStatus(tool(state, 'a'), true, false).status).toBe('running');
    expect(decidedText(tool(state, 'a'))).toBe('Allowed by the reviewer — low risk: The person asked for the build.');
  });

  it('a denied call reads as the reviewer’s, with its risk and category, and is listed with the allowed ones', () => {
    const state = fold([
      ...call('a', 'make'),
      approval('a', { status: 'approved', decidedBy: 'reviewer', review: ALLOW }),
      ...call('b', 'rm -rf .'),
      approval('b', { status: 'reviewing' }),
      approval('b', { status: 'denied', decidedBy: 'reviewer', review: DENY }),
      ev('tool_result', { id: 'b', name: 'execute', output: 'Error: denied by the reviewer: rm -rf of the whole folder was not asked for.', isError: true }),
      ...call('c', 'ls'),
    ]);
    expect(toolStatus(tool(state, 'b'), false, false)).toEqual({ status: 'rejected', label: 'Rejected', detail: 'Denied by the reviewer' });
    // However the run says the reviewer's no (a rejection or a denial), it is the reviewer's.
    const rejected = [approval('b', { status: 'rejected', decidedBy: 'reviewer', review: DENY })].reduce(threadReducer, state);
    expect(toolStatus(tool(rejected, 'b'), false, false).detail).toBe('Denied by the reviewer');
    expect(decidedText(tool(state, 'b'))).toBe('Denied by the reviewer (high, destructive_action): rm -rf of the whole folder was not asked for.');
    expect(reviewedCalls(state.items).map((c) => [c.id, c.review.decision])).toEqual([
      ['a', 'allow'],
      ['b', 'deny'],
    ]);
  });

  it('a malformed verdict or decider is not shown', () => {
    const state = fold([...call('a', 'make'), approval('a', { status: 'approved', decidedBy: 'model', review: { ...ALLOW, risk: 'none' } })]);
    expect(tool(state, 'a').decidedBy).toBeUndefined();
    expect(tool(state, 'a').review).toBeUndefined();
  });

  it('when the reviewer could not answer, the person’s card keeps why; their answer then says they decided', () => {
    let state = fold([...call('a', 'make'), approval('a', { status: 'reviewing' }), approval('a', { status: 'pending', reviewFailed: 'the reviewer timed out twice' })]);
    expect(tool(state, 'a')).toMatchObject({ approval: 'pending', reviewFailed: 'the reviewer timed out twice' });
    state = [approval('a', { status: 'approved', decidedBy: 'person' })].reduce(threadReducer, state);
    expect(decidedText(tool(state, 'a'))).toBe('Approved by you');
    expect(tool(state, 'a').reviewFailed).toBe('the reviewer timed out twice');
  });

  it('every decider is said on the card (issue 97); a refusal by a rule, hook or mode by its reason, an answer elsewhere by its badge, never twice', () => {
    expect(decidedText({ decidedBy: 'rule' })).toBe('Allowed by a rule');
    expect(decidedText({ decidedBy: 'mode', approval: 'approved' })).toBe('Allowed by the approval mode');
    expect(decidedText({ decidedBy: 'sandbox' })).toBe('Allowed: it runs inside the sandbox');
    expect(decidedText({ decidedBy: 'hook' })).toBe('Allowed by a hook');
    expect(decidedText({ decidedBy: 'person', approval: 'edited' })).toBe('Approved by you, with your edits');
    expect(decidedText({ decidedBy: 'hook', approval: 'denied' })).toBeNull();
    expect(decidedText({ decidedBy: 'rule', rejected: { by: 'rule' } })).toBeNull();
    expect(decidedText({ decidedBy: 'mode', rejected: { by: 'mode' } })).toBeNull();
    expect(decidedText({ decidedBy: 'person', approval: 'approved', answeredInTerminal: true })).toBeNull();
    expect(decidedText({ decidedBy: 'person', approval: 'responded' })).toBeNull();
    expect(decidedText({})).toBeNull();
  });

  it('the person’s rejection and a call they allowed once read as theirs, live and loaded; Reviewed calls finds the run of a denied call allowed once', () => {
    let state = fold([...call('r', 'rm x'), approval('r', { status: 'pending' }), approval('r', { status: 'rejected', decidedBy: 'person' })]);
    state = [ev('tool_result', { id: 'r', name: 'execute', output: 'Error: the person rejected this execute call; it was not run.', isError: true, rejected: { by: 'person' }, decided: { by: 'person' } })].reduce(threadReducer, state);
    expect(toolStatus(tool(state, 'r'), false, false).label).toBe('Rejected');
    expect(decidedText(tool(state, 'r'))).toBe('Rejected by you');
    state = fold([
      ...call('b', 'rm -rf .'),
      approval('b', { status: 'rejected', decidedBy: 'reviewer', review: DENY }),
      ev('tool_result', { id: 'b', name: 'execute', output: `Error: denied by the reviewer: ${DENY.rationale}`, isError: true, rejected: { by: 'reviewer', message: DENY.rationale }, decided: { by: 'reviewer', review: DENY } }),
    ]);
    expect(allowedOnceRun(state.items, 'b')).toBeUndefined();
    state = [
      ...call('b2', 'rm -rf .'),
      approval('b2', { status: 'approved', decidedBy: 'person' }),
      ev('tool_result', { id: 'b2', name: 'execute', output: '', isError: false, exitCode: 0, decided: { by: 'person', once: 'b' } }),
    ].reduce(threadReducer, state);
    expect(decidedText(tool(state, 'b2'))).toBe('Allowed once by you, after the reviewer denied it');
    expect(allowedOnceRun(state.items, 'b')?.id).toBe('b2');
  });

  it('who decided survives a reload: the stored result’s facts say it as the events did', () => {
    const state = fold([
      { type: 'load', view: { thread: { id: 't', title: 'x', createdAt: '', updatedAt: '', messageCount: 1, running: false, pendingApprovals: 0 }, items: [
        { kind: 'tool', id: 'b', name: 'execute', args: { command: 'rm -rf .' }, index: 1, output: `Error: denied by the reviewer: ${DENY.rationale}`, isError: true, rejected: { by: 'reviewer', message: DENY.rationale }, decided: { by: 'reviewer', review: DENY } },
      ], page: { cursor: 0, turnsBefore: 0 }, todos: [], usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, contextTokens: 0, contextWindow: 0, approvals: [], eventSeq: 0, streamingText: '', queued: [] } } as ThreadAction,
    ]);
    expect(toolStatus(tool(state, 'b'), false, false).detail).toBe('Denied by the reviewer');
    expect(decidedText(tool(state, 'b'))).toBe('Denied by the reviewer (high, destructive_action): rm -rf of the whole folder was not asked for.');
    expect(reviewedCalls(state.items).map((c) => c.id)).toEqual(['b']);
  });

  it('the breaker’s notice is the reviewer’s, not a restore’s', () => {
    const state = fold([ev('note', { id: 'n', kind: 'reviewer', text: 'The reviewer denied 3 calls in a row: you answer again.' })]);
    expect(state.items[0]).toMatchObject({ kind: 'notice', reviewer: true, text: 'The reviewer denied 3 calls in a row: you answer again.' });
    expect(state.items[0]).not.toHaveProperty('restore');
  });

  it('a sensitive write says what the file is, not that the reviewer is asked (the person is)', () => {
    const why = { kind: 'sensitive-write', path: '/.github/workflows/ci.yml', what: 'a CI definition (.github)' } as const;
    expect(approvalReasonText('write_file', { file_path: '/.github/workflows/ci.yml' }, 'x', why)).toBe('This is a CI definition (.github): it later runs or steers a program outside the sandbox.');
    expect(approvalReasonText('execute', { command: 'make ci' }, 'x', why)).toBe('/.github/workflows/ci.yml is a CI definition (.github): it later runs or steers a program outside the sandbox.');
  });
});
