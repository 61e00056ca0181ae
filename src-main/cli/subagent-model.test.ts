// Cheaper subagents (SPEC §26), through `deepdesk run` as a person runs it: a subagent runs on
// Settings' *Subagent model* unless its declaration names one; the scripted server records the
// model each request asked for, the ledger names it on the subagent's rows, and the `task`
// result (the card in the conversation) says what it ran on.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../core/backends/store/store';
import type { RecordedRequest, ScriptStep } from '../core/models/testing/scripted-server';
import { UsageLedger } from '../core/telemetry/usage-ledger';
import { textOf } from '../core/agent/agent-harness.test-support';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-subagent-model');

const NO_TELEMETRY = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', LANGSMITH_TRACING: '', LANGCHAIN_TRACING_V2: '' };

const PINNED = { name: 'pinned', description: 'Names its own model.', systemPrompt: 'You are the pinned reviewer.', model: 'openai-compatible:pinned-model' };

function settings(extra: object): void {
  writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ subagents: [PINNED], ...extra }));
}

/** Who sent a request: the thread's own agent, the general-purpose subagent or the pinned one. */
function sender(req: RecordedRequest): 'parent' | 'general-purpose' | 'pinned' {
  const system = textOf(req.messages[0]!.content);
  if (!system.includes('You are a subagent')) return 'parent';
  return system.includes('You are the pinned reviewer.') ? 'pinned' : 'general-purpose';
}

/** The parent starts both subagents in one turn; each answers at once; then the parent ends. */
function delegation(): ScriptStep[] {
  const step: ScriptStep = (req) => {
    const who = sender(req);
    if (who !== 'parent') return { text: `${who} done` };
    if (req.messages.some((m) => m.role === 'tool')) return { text: 'all done' };
    return {
      toolCalls: [
        { name: 'task', args: { description: 'look around', subagent_type: 'general-purpose' } },
        { name: 'task', args: { description: 'review it', subagent_type: 'pinned' } },
      ],
    };
  };
  return [step, step, step, step];
}

function run(args: string[]) {
  return t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', ...args], NO_TELEMETRY);
}

function ledgerRows(threadId: string) {
  const db = openDatabase(join(t.dataDir, 'deepdesk.db'));
  try {
    return new UsageLedger(db).calls(threadId);
  } finally {
    db.close();
  }
}

/** The model each sender's requests asked for. */
function modelsBySender(): Record<string, string[]> {
  const by: Record<string, string[]> = {};
  for (const req of t.server.requests) (by[sender(req)] ??= []).push(req.model);
  return by;
}

function taskResults(stdout: string): Array<{ subagentModel?: string; output: string }> {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; name?: string; parentToolCallId?: string; subagentModel?: string; output: string })
    .filter((e) => e.type === 'tool_result' && e.name === 'task' && e.parentToolCallId === undefined);
}

describe('a subagent runs on Settings’ subagent model', () => {
  it('unless its declaration names one; the ledger and the task result name the model it ran on', async () => {
    settings({ models: { subagent: 'openai-compatible:cheap-model' } });
    t.server.push(...delegation());
    const r = await run(['--thread', 'cheap', '--json', 'delegate']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(modelsBySender()).toEqual({ parent: ['scripted-model', 'scripted-model'], 'general-purpose': ['cheap-model'], pinned: ['pinned-model'] });

    const rows = ledgerRows('cheap').map((row) => [row.subagent, row.provider, row.model]);
    expect(rows).toHaveLength(4);
    expect(rows).toEqual(
      expect.arrayContaining([
        [null, 'openai-compatible', 'scripted-model'],
        ['general-purpose', 'openai-compatible', 'cheap-model'],
        ['pinned', 'openai-compatible', 'pinned-model'],
      ]),
    );
    expect(
      taskResults(r.stdout)
        .map((e) => [e.output, e.subagentModel])
        .sort(),
    ).toEqual([
      ['general-purpose done', 'openai-compatible:cheap-model'],
      ['pinned done', 'openai-compatible:pinned-model'],
    ]);
  });

  it('with none set, a subagent naming no model runs on the thread’s', async () => {
    settings({});
    t.server.push(...delegation());
    const r = await run(['--thread', 'same', '--json', 'delegate']);
    expect(r.code).toBe(0);
    expect(modelsBySender()).toEqual({ parent: ['scripted-model', 'scripted-model'], 'general-purpose': ['scripted-model'], pinned: ['pinned-model'] });
    expect(ledgerRows('same').find((row) => row.subagent === 'general-purpose')?.model).toBe('scripted-model');
    expect(taskResults(r.stdout).map((e) => e.subagentModel).sort()).toEqual(['openai-compatible:pinned-model', 'openai-compatible:scripted-model']);
  });

  it('an unusable subagent model is said in the task result, and nothing is asked of it', async () => {
    settings({ models: { subagent: 'no-such-provider:x' } });
    t.server.push(...delegation());
    const r = await run(['--thread', 'bad', '--json', 'delegate']);
    expect(r.code).toBe(0);
    const general = taskResults(r.stdout).find((e) => e.output.includes('general-purpose'));
    expect(general?.output).toContain("subagent general-purpose has an unusable model 'no-such-provider:x'");
    expect(modelsBySender()['general-purpose']).toBeUndefined();
  });
});
