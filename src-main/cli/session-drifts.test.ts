// What one composition (folder-session.ts) guarantees every client: the same Settings, read
// when they apply. Each case is one the three copies of the session got wrong, tried through
// the real client: the window's app over its contract, the built `deepdesk run`, and
// `deepdesk acp` driven by the ACP SDK's client.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, type ClientConnection } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import type { RecordedRequest, ScriptStep } from '../core/models/testing/scripted-server';
import { until, useAppTestEnv } from '../app/window/app-harness.test-support';
import { bin, repo, useCliTestEnv } from './cli-harness.test-support';

const isSubagent = (req: RecordedRequest) => textOf(req.messages[0]!.content).includes('You are a subagent');

describe('the window', () => {
  const t = useAppTestEnv('deepdesk-drift-window');

  it("runs a Settings subagent on the model it names, with Settings' key and address", async () => {
    const step: ScriptStep = (req) => {
      const answered = req.messages.some((m) => m.role === 'tool');
      if (isSubagent(req)) return { text: 'reviewed' };
      return answered ? { text: 'done' } : { toolCalls: [{ name: 'task', args: { description: 'review it', subagent_type: 'reviewer' } }] };
    };
    t.server.push(step, step, step);
    const { call, events } = await t.open({
      settings: {
        model: 'openai-compatible:main-model',
        baseUrl: t.server.url,
        subagents: [{ name: 'reviewer', description: 'Reviews a change', systemPrompt: 'You review.', model: 'openai-compatible:review-model' }],
      },
    });
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: 'get it reviewed' });
    await until(() => events.some((e) => e.event === 'thread.event' && (e.payload as { event: { type: string; parentToolCallId?: string } }).event.type === 'done' && !(e.payload as { event: { parentToolCallId?: string } }).event.parentToolCallId), 'the run ends');
    const models = t.server.requests.map((r) => [isSubagent(r) ? 'sub' : 'main', r.model]);
    expect(models).toEqual([
      ['main', 'main-model'],
      ['sub', 'review-model'],
      ['main', 'main-model'],
    ]);
  });
});

describe('deepdesk run', () => {
  const t = useCliTestEnv('deepdesk-drift-run');
  const settings = (value: Record<string, unknown>) => writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify(value));
  const run = (args: string[]) => t.deepdesk(['run', '--folder', t.folder, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...args]);

  it('applies a rule saved while it works to its next call', async () => {
    t.server.push(
      { toolCalls: [{ name: 'write_file', args: { file_path: '/a.txt', content: 'a\n' } }] },
      () => {
        // The person saves a deny rule (in the window, or by hand) while the run goes on.
        settings({ rules: [{ decision: 'deny', tools: ['write_file'], paths: ['/b.txt'] }] });
        return { toolCalls: [{ name: 'write_file', args: { file_path: '/b.txt', content: 'b\n' } }] };
      },
      { text: 'done' },
    );
    const r = await run(['--approve', 'auto', 'write a then b']);
    expect(r.code).toBe(0);
    expect(readFileSync(join(t.folder, 'a.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(join(t.folder, 'b.txt'))).toBe(false);
    expect(textOf(toolMessages(t.server.requests.at(-1)!)[1]!.content)).toMatch(/^Error: this write_file call is not allowed/);
  });

  it("offers the subagents of Settings to task", async () => {
    settings({ subagents: [{ name: 'reviewer', description: 'Reviews a change', systemPrompt: 'You review carefully.' }] });
    const step: ScriptStep = (req) => {
      if (isSubagent(req)) return { text: `reviewed (${textOf(req.messages[0]!.content).includes('You review carefully.') ? 'as the reviewer' : 'as someone else'})` };
      return req.messages.some((m) => m.role === 'tool') ? { text: 'done' } : { toolCalls: [{ name: 'task', args: { description: 'review it', subagent_type: 'reviewer' } }] };
    };
    t.server.push(step, step, step);
    const r = await run(['get it reviewed']);
    expect(r.code).toBe(0);
    expect(textOf(toolMessages(t.server.requests.at(-1)!)[0]!.content)).toBe('reviewed (as the reviewer)');
  });

  it('uses the model, address and key saved in Settings when no flag names one', async () => {
    settings({ model: 'openai-compatible:saved-model', baseUrl: t.server.url });
    t.server.push({ text: 'hello from Settings' });
    const r = await t.deepdesk(['run', '--folder', t.folder, 'hi'], { DEEPDESK_MODEL: '' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('hello from Settings');
    expect(t.server.requests.map((q) => q.model)).toEqual(['saved-model']);
  });
});

describe('deepdesk acp', () => {
  const t = useCliTestEnv('deepdesk-drift-acp');
  const connections: Array<{ conn: ClientConnection; end(): Promise<void> }> = [];
  afterEach(async () => {
    for (const c of connections.splice(0)) await c.end();
  });

  it('queues its runs at Settings › Runs at once', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ maxConcurrentRuns: 1 }));
    let release!: () => void;
    const gate = new Promise<void>((done) => (release = done));
    t.server.push(
      async () => {
        await gate;
        return { text: 'first' };
      },
      { text: 'second' },
    );
    const child = spawn(process.execPath, [bin, 'acp', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url], {
      cwd: repo,
      env: { ...process.env, OPENAI_API_KEY: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const conn = client({ name: 'test-editor' }).connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
    connections.push({
      conn,
      end: async () => {
        release();
        conn.close();
        child.stdin!.end();
        if (child.exitCode === null) await new Promise((done) => child.once('close', done));
      },
    });
    await conn.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const a = (await conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] })).sessionId;
    const b = (await conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] })).sessionId;
    const first = conn.agent.request(methods.agent.session.prompt, { sessionId: a, prompt: [{ type: 'text', text: 'one' }] });
    await until(() => t.server.requests.length === 1, 'the first run asks the model');
    const second = conn.agent.request(methods.agent.session.prompt, { sessionId: b, prompt: [{ type: 'text', text: 'two' }] });
    const stateOf = async (threadId: string) => {
      const listed = await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir]);
      return (JSON.parse(listed.stdout) as Array<{ threadId: string; state: string }>).find((x) => x.threadId === threadId)?.state;
    };
    await until(async () => (await stateOf(b)) === 'queued', 'the second run is queued behind the first');
    expect(t.server.requests).toHaveLength(1);
    release();
    expect((await first).stopReason).toBe('end_turn');
    expect((await second).stopReason).toBe('end_turn');
    expect(t.server.requests).toHaveLength(2);
  });
});
