// `deepdesk run --reviewer` (SPEC §23) as a person runs it: the built bin and the agent host,
// one scripted server playing the agent and the reviewer in turn (the reviewer's requests are
// the ones offering review_decision). By effect: what lands, what the agent reads, who was
// asked, the ledger's reviewer rows, the export's record of who decided, and a breaker that
// holds across the host's restart until `--reviewer` is given again.

import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../core/models/testing/scripted-server';
import { useCliTestEnv } from './cli-harness.test-support';
import { hostPid, waitFor } from './host-harness.test-support';

const t = useCliTestEnv('deepdesk-run-reviewer');

const REVIEWER = 'openai-compatible:reviewer-model';
const verdict = (decision: 'allow' | 'deny'): ScriptStep => ({
  toolCalls: [{ name: 'review_decision', args: { decision, risk: 'low', authorization: 'high', category: 'other', rationale: decision === 'allow' ? 'asked for' : 'not asked for' } }],
});
const call = (name: string, args: Record<string, unknown>): ScriptStep => ({ toolCalls: [{ name, args }] });
const reviews = (requests: RecordedRequest[]): RecordedRequest[] => requests.filter((r) => r.tools?.some((tool) => tool.function.name === 'review_decision'));

type Line = { type: string; status?: string; name?: string; output?: string; decidedBy?: string; purpose?: string; decided?: { by: string; review?: { decision: string } } };
const lines = (stdout: string): Line[] => stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return t.deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'deny', '--json', ...args], env);
}

describe('deepdesk run --reviewer', () => {
  it('the reviewer answers in place of the person: its allow runs, its deny never does and the agent reads why; ledger and export say so', async () => {
    const thread = randomUUID();
    t.server.push(call('write_file', { file_path: '/a.txt', content: 'a' }), verdict('allow'), call('execute', { command: 'touch marker' }), verdict('deny'), { text: 'done' });
    const r = await run(['--thread', thread, '--reviewer', REVIEWER, 'write a.txt']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(join(t.folder, 'a.txt'))).toBe(true);
    expect(existsSync(join(t.folder, 'marker'))).toBe(false);
    const events = lines(r.stdout);
    expect(events.filter((e) => e.type === 'approval').map((e) => [e.name, e.status, e.decidedBy])).toEqual([
      ['write_file', 'reviewing', undefined],
      ['write_file', 'approved', 'reviewer'],
      ['execute', 'reviewing', undefined],
      ['execute', 'rejected', 'reviewer'],
    ]);
    expect(events.find((e) => e.type === 'tool_result' && e.name === 'execute')?.output).toBe('Error: denied by the reviewer: not asked for');
    expect(reviews(t.server.requests).map((q) => q.model)).toEqual(['reviewer-model', 'reviewer-model']);

    const exported = lines((await t.deepdesk(['threads', 'export', thread])).stdout);
    expect(exported.filter((l) => l.type === 'model_call' && l.purpose === 'reviewer')).toHaveLength(reviews(t.server.requests).length);
    expect(exported.filter((l) => l.type === 'tool_result').map((l) => [l.decided?.by, l.decided?.review?.decision])).toEqual([
      ['reviewer', 'allow'],
      ['reviewer', 'deny'],
    ]);
  });

  it('three denials in a row hand the thread to the person, across a restart of the host, until --reviewer is given again', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ reviewer: { model: REVIEWER } }));
    const thread = randomUUID();
    const idle = { DEEPDESK_HOST_IDLE_SECONDS: '1' };
    const write = (name: string) => call('write_file', { file_path: `/${name}`, content: name });
    t.server.push(write('1'), verdict('deny'), write('2'), verdict('deny'), write('3'), verdict('deny'), write('4'), { text: 'stopped' });
    const first = await run(['--thread', thread, 'write four files'], idle);
    expect(first.code).toBe(0);
    expect(reviews(t.server.requests)).toHaveLength(3);
    // The fourth asked the person (`--approve deny` refused it).
    expect(lines(first.stdout).filter((e) => e.type === 'approval' && e.status === 'pending').map((e) => e.name)).toEqual(['write_file']);

    await waitFor(() => hostPid(t.dataDir) === undefined, 30_000, 'the idle host to exit');
    t.server.push(write('5'), { text: 'asked' });
    const second = await run(['--thread', thread, 'write five'], idle);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(reviews(t.server.requests)).toHaveLength(3);
    expect(existsSync(join(t.folder, '5'))).toBe(false);

    t.server.push(write('6'), verdict('allow'), { text: 'reviewed' });
    const third = await run(['--thread', thread, '--reviewer', REVIEWER, 'write six'], idle);
    expect(third.code).toBe(0);
    expect(reviews(t.server.requests)).toHaveLength(4);
    expect(existsSync(join(t.folder, '6'))).toBe(true);
  });
});
