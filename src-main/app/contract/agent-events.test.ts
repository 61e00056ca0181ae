import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../core/agent/types';
import type { ApprovalWhy } from '../../core/agent/permissions/reason';
import type { ResultGist } from '../../core/tools/result-facts';
import { agentEventSchema, events, type AgentEventDto, type ApprovalWhyDto, type ResultGistDto } from './index';

// Compile-time: every kind of core's AgentEvent is a kind of the contract's, field for field (no
// field the contract does not know),
// and the contract has no kind core does not send.
type Assert<T extends true> = T;
type CoreKind = AgentEvent['type'];
type Maps<C, D> = [C] extends [D] ? ([Exclude<keyof C, keyof D>] extends [never] ? true : false) : false;
type PerKind = { [K in CoreKind]: Maps<Extract<AgentEvent, { type: K }>, Extract<AgentEventDto, { type: K }>> };
export type CoreEventsMapIn = Assert<PerKind[CoreKind]>;
// The reason and the result's gist as data: the contract's and core's are the same, both ways.
export type SameWhy = Assert<[ApprovalWhyDto] extends [ApprovalWhy] ? ([ApprovalWhy] extends [ApprovalWhyDto] ? true : false) : false>;
export type SameGist = Assert<[ResultGistDto] extends [ResultGist] ? ([ResultGist] extends [ResultGistDto] ? true : false) : false>;
export type SameKinds = Assert<[Exclude<AgentEventDto['type'], CoreKind>] extends [never] ? ([Exclude<CoreKind, AgentEventDto['type']>] extends [never] ? true : false) : false>;

const usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 };
const hook = { command: './check.sh', file: '.claude/settings.json' };
const t = { threadId: 't1' };

/** One event of each kind core sends, as core types it: a kind left out does not compile. */
const EVERY_KIND: { [K in CoreKind]: Extract<AgentEvent, { type: K }> } = {
  text: { ...t, type: 'text', text: 'hi' },
  paused: { ...t, type: 'paused', line: "paused: the thread's budget of $2.00 is spent ($1.97 + this call's $0.09)", scope: 'thread:t1', key: 'maxCostUsd', cap: 2 },
  tool_call: { ...t, type: 'tool_call', id: 'c1', name: 'execute', args: { command: 'exit 3' }, parentToolCallId: 'task1' },
  tool_result: {
    ...t,
    type: 'tool_result',
    id: 'c1',
    name: 'execute',
    output: 'x\n[Command failed with exit code 3]',
    isError: false,
    exitCode: 3,
    timedOut: true,
    rejected: { by: 'person', message: 'no', answered: false },
    evictedTo: '/large_tool_results/c1',
    gist: { kind: 'media', media: 'image', holds: { width: 8, height: 6 } },
    interrupted: true,
    image: { mimeType: 'image/png' },
    change: { path: '/a.txt', created: true, hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: ['+a'] }], added: 1, removed: 0 },
  },
  approval: { ...t, type: 'approval', id: 'c1', name: 'write_file', args: {}, status: 'denied', reason: 'blocked by hook: no', why: { kind: 'hook', outcome: 'blocked', message: 'no' }, hook },
  todos: { ...t, type: 'todos', todos: [{ content: 'a', status: 'in_progress' }] },
  summarized: { ...t, type: 'summarized', archivePath: '/conversation_history/t1.md', summarizedMessages: 4, summary: 's' },
  usage: { ...t, type: 'usage', usage: { ...usage, costUsd: 0.1 }, total: usage, contextTokens: 10, contextWindow: 1000 },
  checkpoint: { ...t, type: 'checkpoint', id: 'k1', files: [{ path: '/a.txt', status: 'added' }] },
  error: {
    ...t,
    type: 'error',
    message: 'm',
    status: 401,
    refused: false,
    problem: { kind: 'unauthorized', summary: 's', check: 'api-key', lasting: true, detail: 'd' },
    detail: 'd',
    settings: true,
    budget: false,
  },
  user_message: { ...t, type: 'user_message', text: 'more', queuedId: 'q1' },
  queued: { ...t, type: 'queued', queued: [{ id: 'q1', text: 'more', createdAt: '2026-01-01T00:00:00Z' }] },
  note: { ...t, type: 'note', id: 'n1', kind: 'restore', text: 'restored', checkpointId: 'k1' },
  hook: { ...t, type: 'hook', event: 'PostToolUse', outcome: 'blocked', message: 'm', hook, toolCallId: 'c1' },
  rewound: { ...t, type: 'rewound' },
  retry: { ...t, type: 'retry', attempt: 2, maxAttempts: 3, delayMs: 100, message: '429' },
  tool_output: { ...t, type: 'tool_output', id: 'c1', chunk: 'line\n' },
  goal: {
    ...t,
    type: 'goal',
    goal: {
      objective: 'fix the parser',
      state: 'unmet',
      reason: 'not met',
      criteria: [{ id: 'c1', text: 'tests pass', verdict: 'needs_revision', reason: 'npm test fails' }],
      verify: [{ command: 'npm test', expectedExitCode: 0 }],
      evidence: { at: '2026-01-01T00:00:00Z', steps: [{ command: 'npm test', expectedExitCode: 0, exitCode: 1, passed: false, outputTail: 'FAIL', durationMs: 3 }], diff: '', filesTouched: [] },
      contradictedClaims: [{ at: '2026-01-01T00:00:00Z', round: 0, claim: 'All tests pass.', failingSteps: [{ command: 'npm test', exitCode: 1, expectedExitCode: 0 }] }],
      rounds: 3,
      maxRounds: 3,
      evaluations: [{ round: 0, at: '2026-01-01T00:00:00Z', verdict: 'needs_revision', durationMs: 40, graderTokens: { input: 900, output: 30 } }],
      startedAt: '2026-01-01T00:00:00Z',
      endedAt: '2026-01-01T00:01:00Z',
    },
  },
  done: { ...t, type: 'done', text: 'ok', reason: 'completed', usage },
};

describe('the agent events of the window contract', () => {
  it('takes every kind of event core sends, as it is', () => {
    for (const event of Object.values(EVERY_KIND)) {
      const parsed = agentEventSchema.safeParse(event);
      expect(parsed.success, `${event.type}: ${parsed.error?.message}`).toBe(true);
      expect(parsed.data).toEqual(event);
    }
  });

  it('refuses an unknown kind, an extra field (also nested) and a missing one', () => {
    expect(agentEventSchema.safeParse({ ...t, type: 'telepathy', text: 'x' }).success).toBe(false);
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.text, extra: 1 }).success).toBe(false);
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.rewound, text: 'x' }).success).toBe(false);
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.tool_result, rejected: { by: 'person', why: 'x' } }).success).toBe(false);
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.usage, total: { ...usage, calls: 3 } }).success).toBe(false);
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.tool_result, rejected: { by: 'someone' } }).success).toBe(false);
    const { threadId: _, ...withoutThread } = EVERY_KIND.text;
    expect(agentEventSchema.safeParse(withoutThread).success).toBe(false);
  });

  it('takes a reason and a gist as data, and refuses one core does not send', () => {
    const parts = { kind: 'parts', parts: [{ kind: 'mode', mode: 'auto', detail: 'sandboxed' }, { kind: 'rule', subject: { command: 'ls' }, decision: 'allow', rule: { id: 'nav' } }] };
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.approval, why: parts }).success).toBe(true);
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.approval, why: { kind: 'mood' } }).success).toBe(false);
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.approval, why: { kind: 'parts', parts: [{ kind: 'rule', subject: { command: 'ls' } }] } }).success).toBe(false);
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.tool_result, gist: { kind: 'grep', matches: 1, files: 1 } }).success).toBe(false);
    expect(agentEventSchema.safeParse({ ...EVERY_KIND.tool_result, gist: { kind: 'grep', matches: 1, files: 1, truncated: false } }).success).toBe(true);
  });

  it('lists every kind once, from the union itself', () => {
    expect(agentEventSchema.options.map((option) => option.shape.type.value).sort()).toEqual(Object.keys(EVERY_KIND).sort());
  });

  it('is what a thread.event frame carries', () => {
    expect(events['thread.event'].safeParse({ threadId: 't1', seq: 1, event: EVERY_KIND.done }).success).toBe(true);
    expect(events['thread.event'].safeParse({ threadId: 't1', seq: 1, event: { ...EVERY_KIND.done, reason: 'tired' } }).success).toBe(false);
  });
});
