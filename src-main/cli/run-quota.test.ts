// `deepdesk run` against a provider out of quota (SPEC §26): asked once, never retried; the
// run's end says `quota` — `--json`'s done event, and in the foreground exit 1 with one line
// naming the provider and what it said.

import { describe, expect, it } from 'vitest';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-quota');

const QUOTA = { error: { status: 429, body: { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: 'insufficient_quota' } } } };

function run(args: string[]) {
  return t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...args], { OTEL_EXPORTER_OTLP_ENDPOINT: '', LANGSMITH_TRACING: '' });
}

describe('deepdesk run, out of quota', () => {
  it('a 429 insufficient_quota: one request, exit 1 with the line naming the provider and what it said', async () => {
    t.server.push(QUOTA, { text: 'never asked' });
    const r = await run(['hello']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `deepdesk run: quota: openai-compatible (${t.server.url}) is out of quota or credit — it said "HTTP 429: You exceeded your current quota, please check your plan and billing details."; no new model call goes to it until you send a message\n`,
    );
    expect(t.server.requests).toHaveLength(1);
  });

  it('--json: the done event has reason "quota", after an error event of problem kind quota', async () => {
    t.server.push({ error: { status: 402, body: { error: { message: 'Insufficient credits', code: 402 } } } }, { text: 'never asked' });
    const r = await run(['--json', 'hello']);
    expect(r.code).toBe(1);
    const events = r.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; reason?: string; message?: string; problem?: { kind: string } });
    expect(events.find((e) => e.type === 'error')).toMatchObject({ message: expect.stringContaining('it said "HTTP 402: Insufficient credits"'), problem: { kind: 'quota' } });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'quota' });
    expect(t.server.requests).toHaveLength(1);
  });
});
