// `deepdesk acp` as an editor drives it (SPEC §14): the built bin in a child process, the
// SDK's client side on its stdin/stdout, the scripted model server behind it.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientConnection,
  type RequestPermissionRequest,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { makePng } from '../core/media/testing/fixtures';
import { invisiblePatternSource } from '../core/text/invisible';
import { bin, repo, useCliTestEnv } from './cli-harness.test-support';
import { hostPid } from './host-harness.test-support';

const t = useCliTestEnv('deepdesk-acp');

interface Editor {
  child: ChildProcess;
  conn: ClientConnection;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  /** What the editor answers each permission request with, in order (then: reject); 'wait' never answers until cancelled. */
  answers: string[];
  /** The editor's open buffers by absolute path (fs/read_text_file reads them first). */
  buffers: Map<string, string>;
  stderr: () => string;
  close(): Promise<void>;
}

const editors: Editor[] = [];
afterEach(async () => {
  for (const e of editors.splice(0)) await e.close();
});

function startEditor(options: { fs?: boolean; args?: string[] } = {}): Editor {
  const args = [bin, 'acp', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, ...(options.args ?? [])];
  const child = spawn(process.execPath, args, {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const editor = { child, updates: [], permissions: [], answers: [], buffers: new Map(), stderr: () => stderr } as unknown as Editor;
  const app = client({ name: 'test-editor' })
    .onNotification(methods.client.session.update, ({ params }) => void editor.updates.push(params))
    .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
      editor.permissions.push(params);
      const optionId = editor.answers.shift() ?? 'reject_once';
      // 'wait': the person has not answered yet; the request ends only when the agent withdraws it.
      if (optionId === 'wait') {
        await new Promise((done) => signal.addEventListener('abort', done, { once: true }));
        return { outcome: { outcome: 'cancelled' } };
      }
      return { outcome: { outcome: 'selected', optionId } };
    });
  if (options.fs) {
    app
      .onRequest(methods.client.fs.readTextFile, ({ params }) => ({ content: editor.buffers.get(params.path) ?? readFileSync(params.path, 'utf8') }))
      .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
        editor.buffers.set(params.path, params.content);
        return {};
      });
  }
  editor.conn = app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  editor.close = async () => {
    editor.conn.close();
    child.stdin!.end();
    if (child.exitCode === null) await new Promise((done) => child.once('close', done));
  };
  editors.push(editor);
  return editor;
}

async function initialize(editor: Editor, fs = false, terminal = false) {
  return editor.conn.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal },
  });
}

async function newSession(editor: Editor, fs = false, terminal = false): Promise<string> {
  await initialize(editor, fs, terminal);
  return (await editor.conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] })).sessionId;
}

const prompt = (editor: Editor, sessionId: string, text: string) =>
  editor.conn.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });

const ofKind = <K extends SessionUpdate['sessionUpdate']>(editor: Editor, kind: K) =>
  editor.updates.map((n) => n.update).filter((u): u is Extract<SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);

const textOfChunks = (updates: SessionUpdate[]) => updates.map((u) => ('content' in u && !Array.isArray(u.content) && u.content?.type === 'text' ? u.content.text : '')).join('');

function toolTexts(editor: Editor): string {
  return JSON.stringify(ofKind(editor, 'tool_call_update').map((u) => u.content));
}

/** Pids of live processes whose command line contains `marker`. */
function procText(pid: string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

function describeProcess(pid: string): string {
  return `${pid} ${procText(pid, 'cmdline').replace(/\0/g, ' ').slice(0, 200)} (${/State:\s+(.*)/.exec(procText(pid, 'status'))?.[1] ?? 'gone'})`;
}

function processesWith(marker: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}

describe('deepdesk acp', () => {
  it('initializes with loadSession and image prompts, and streams an answer as agent_message_chunk', async () => {
    const editor = startEditor();
    const init = await initialize(editor);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.agentCapabilities?.promptCapabilities?.image).toBe(true);
    const { sessionId, modes } = await editor.conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] });
    expect(modes?.currentModeId).toBe('ask');
    expect(modes?.availableModes.map((m) => m.id)).toEqual(['ask', 'edit', 'auto', 'plan']);
    t.server.push({ text: 'Hello from Deepdesk', pace: { chunkChars: 4, chunksPerSecond: 200 } });
    expect((await prompt(editor, sessionId, 'hi')).stopReason).toBe('end_turn');
    const chunks = ofKind(editor, 'agent_message_chunk');
    expect(chunks.length).toBeGreaterThan(1);
    expect(textOfChunks(chunks)).toBe('Hello from Deepdesk');
  });

  it('records each model call in the usage ledger; a thread budget from Settings pauses the turn with one line, and raising it (deepdesk budget set) goes on', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ prices: { 'openai-compatible:scripted-model': { input: 10, output: 10 } }, threadBudgetUsd: 0.21 }));
    const editor = startEditor();
    const sessionId = await newSession(editor);
    t.server.push({ toolCalls: [{ name: 'ls', args: { path: '/' } }], usage: { promptTokens: 20_000, completionTokens: 10 } }, { text: 'asked once raised', usage: { promptTokens: 1, completionTokens: 1 } });
    const answered = prompt(editor, sessionId, 'list it');
    await expect.poll(() => textOfChunks(ofKind(editor, 'agent_message_chunk')), { timeout: 20_000 }).toMatch(/paused: the thread's budget of \$0\.21 is spent \(\$0\.20 \+ this call's \$0\.\d\d\)/);
    expect(t.server.requests).toHaveLength(1);
    expect((await t.deepdesk(['budget', 'set', `thread:${sessionId}`, 'maxCostUsd', '1', '--data-dir', t.dataDir])).code).toBe(0);
    expect((await answered).stopReason).toBe('end_turn');
    expect(t.server.requests).toHaveLength(2);
    await editor.close();
    const usage = await t.deepdesk(['usage', '--data-dir', t.dataDir, '--by', 'thread', '--json']);
    const report = JSON.parse(usage.stdout) as { rows: Array<{ key: string; calls: number; inputTokens: number; costUsd: number }> };
    expect(report.rows).toEqual([expect.objectContaining({ key: sessionId, calls: 2, inputTokens: 20_001 })]);
    expect(report.rows[0]!.costUsd).toBeCloseTo(0.20012, 10);
  });

  it('shows an edit as a tool call with its kind, real location and diff, after allow once', async () => {
    writeFileSync(join(t.folder, 'a.txt'), 'one\ntwo\n');
    const editor = startEditor();
    const sessionId = await newSession(editor);
    t.server.push(
      { toolCalls: [{ id: 'r1', name: 'read_file', args: { file_path: '/a.txt' } }] },
      { toolCalls: [{ id: 'e1', name: 'edit_file', args: { file_path: '/a.txt', old_string: 'two', new_string: 'TWO' } }] },
      { text: 'edited' },
    );
    editor.answers.push('allow_once');
    expect((await prompt(editor, sessionId, 'edit a.txt')).stopReason).toBe('end_turn');
    expect(readFileSync(join(t.folder, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
    const calls = ofKind(editor, 'tool_call');
    expect(calls.find((c) => c.toolCallId === 'r1')).toMatchObject({ kind: 'read', locations: [{ path: join(t.folder, 'a.txt') }] });
    expect(calls.find((c) => c.toolCallId === 'e1')).toMatchObject({ kind: 'edit' });
    // The permission request shows the call and its diff, with the three options.
    expect(editor.permissions).toHaveLength(1);
    expect(editor.permissions[0]!.toolCall).toMatchObject({ toolCallId: 'e1', kind: 'edit' });
    expect(editor.permissions[0]!.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    const done = ofKind(editor, 'tool_call_update').find((u) => u.toolCallId === 'e1')!;
    expect(done.status).toBe('completed');
    expect(done.locations).toEqual([{ path: join(t.folder, 'a.txt'), line: expect.any(Number) }]);
    const diff = done.content!.find((c) => c.type === 'diff')!;
    expect(diff).toMatchObject({ type: 'diff', path: join(t.folder, 'a.txt') });
    expect((diff as { oldText: string }).oldText).toContain('two');
    expect((diff as { newText: string }).newText).toContain('TWO');
  });

  it('locates a call on a mount in the mount’s folder (longest prefix), not in the project folder', async () => {
    const docs = join(realpathSync(t.dataDir), 'srv-docs');
    const api = join(realpathSync(t.dataDir), 'srv-api');
    mkdirSync(docs);
    mkdirSync(api);
    writeFileSync(join(docs, 'a.md'), 'one\ntwo\n');
    writeFileSync(join(api, 'ref.md'), 'ref\n');
    const editor = startEditor({ args: ['--mount', `/docs/=${docs}`, '--mount', `/docs/api/=ro:${api}`] });
    const sessionId = await newSession(editor);
    t.server.push(
      { toolCalls: [{ id: 'r1', name: 'read_file', args: { file_path: '/docs/api/ref.md' } }, { id: 'r2', name: 'read_file', args: { file_path: '/docs/a.md' } }] },
      { toolCalls: [{ id: 'e1', name: 'edit_file', args: { file_path: '/docs/a.md', old_string: 'two', new_string: 'TWO' } }] },
      { text: 'edited' },
    );
    editor.answers.push('allow_once');
    expect((await prompt(editor, sessionId, 'edit docs/a.md')).stopReason).toBe('end_turn');
    expect(readFileSync(join(docs, 'a.md'), 'utf8')).toBe('one\nTWO\n');
    expect(existsSync(join(t.folder, 'docs'))).toBe(false);
    const calls = ofKind(editor, 'tool_call');
    expect(calls.find((c) => c.toolCallId === 'r1')).toMatchObject({ locations: [{ path: join(api, 'ref.md') }] });
    expect(calls.find((c) => c.toolCallId === 'r2')).toMatchObject({ locations: [{ path: join(docs, 'a.md') }] });
    expect(calls.find((c) => c.toolCallId === 'e1')).toMatchObject({ locations: [{ path: join(docs, 'a.md') }] });
    // Asked first (ask mode): the request shows the same real path, in its location and its diff.
    expect(editor.permissions).toHaveLength(1);
    expect(editor.permissions[0]!.toolCall.locations).toEqual([{ path: join(docs, 'a.md') }]);
    expect(editor.permissions[0]!.toolCall.content).toContainEqual({ type: 'diff', path: join(docs, 'a.md'), oldText: 'two', newText: 'TWO' });
    const done = ofKind(editor, 'tool_call_update').find((u) => u.toolCallId === 'e1')!;
    expect(done.status).toBe('completed');
    expect(done.locations).toEqual([{ path: join(docs, 'a.md'), line: expect.any(Number) }]);
    expect(done.content!.find((c) => c.type === 'diff')).toMatchObject({ type: 'diff', path: join(docs, 'a.md'), oldText: expect.stringContaining('two'), newText: expect.stringContaining('TWO') });
  });

  it('reject leaves the file alone; allow always saves the rule, and the same call then runs without asking', async () => {
    writeFileSync(join(t.folder, 'b.txt'), 'b\n');
    const editor = startEditor();
    const sessionId = await newSession(editor);
    const write = (id: string) => ({ toolCalls: [{ id, name: 'write_file', args: { file_path: '/c.txt', content: `${id}\n` } }] });
    t.server.push(write('w1'), { text: 'ok' });
    editor.answers.push('reject_once');
    await prompt(editor, sessionId, 'write c');
    expect(existsSync(join(t.folder, 'c.txt'))).toBe(false);
    expect(ofKind(editor, 'tool_call_update').find((u) => u.toolCallId === 'w1')?.status).toBe('failed');

    t.server.push(write('w2'), { text: 'ok' });
    editor.answers.push('allow_always');
    await prompt(editor, sessionId, 'write c again');
    expect(readFileSync(join(t.folder, 'c.txt'), 'utf8')).toBe('w2\n');
    const settings = JSON.parse(readFileSync(join(t.dataDir, 'settings.json'), 'utf8')) as { rules: Array<{ decision: string; paths?: string[] }> };
    expect(settings.rules).toEqual([expect.objectContaining({ decision: 'allow', paths: ['/c.txt'] })]);

    t.server.push(write('w3'), { text: 'ok' });
    await prompt(editor, sessionId, 'and again');
    expect(editor.permissions).toHaveLength(2);
    expect(readFileSync(join(t.folder, 'c.txt'), 'utf8')).toBe('w3\n');
  });

  it('session/cancel answers the prompt `cancelled` and ends the running command’s process tree', async () => {
    const editor = startEditor();
    // The editor offers terminals (this one has no terminal/* handlers): with a sandbox here,
    // commands still run sandboxed in Deepdesk's own pty, never in the editor's terminal.
    const sessionId = await newSession(editor, false, true);
    const marker = `61.${process.pid}${Date.now() % 100000}`;
    t.server.push({ toolCalls: [{ id: 'x1', name: 'execute', args: { command: `sh -c 'sleep ${marker}' ; echo never` } }] }, { text: 'after' });
    editor.answers.push('allow_once');
    let settled = false;
    const running = prompt(editor, sessionId, 'run it').finally(() => (settled = true));
    // If the prompt ends before the command is seen, say what it did instead of timing out blind.
    await expect
      .poll(() => {
        if (processesWith(marker).length > 0) return true;
        if (settled) throw new Error(`the prompt ended before the command ran: ${toolTexts(editor)}\n${editor.stderr()}`);
        return false;
      }, { timeout: 30_000 })
      .toBe(true);
    await editor.conn.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await running).stopReason).toBe('cancelled');
    await expect.poll(() => processesWith(marker), { timeout: 60_000 }).toEqual([]);
  });

  it('session/cancel while a permission request is open withdraws it and answers `cancelled`; nothing ran', async () => {
    const editor = startEditor();
    const sessionId = await newSession(editor);
    t.server.push({ toolCalls: [{ id: 'w1', name: 'write_file', args: { file_path: '/never.txt', content: 'x' } }] }, { text: 'after' });
    editor.answers.push('wait');
    const running = prompt(editor, sessionId, 'write it');
    await expect.poll(() => editor.permissions.length, { timeout: 60_000 }).toBe(1);
    await editor.conn.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await running).stopReason).toBe('cancelled');
    expect(existsSync(join(t.folder, 'never.txt'))).toBe(false);
    // The session takes the next prompt.
    t.server.push({ text: 'ready' });
    expect((await prompt(editor, sessionId, 'again')).stopReason).toBe('end_turn');
  });

  it('lists the folder’s sessions and loads one in a new process, replaying its history first; close and resume', async () => {
    writeFileSync(join(t.folder, 'r.txt'), 'r\n');
    const first = startEditor();
    const sessionId = await newSession(first);
    t.server.push({ toolCalls: [{ id: 'g1', name: 'read_file', args: { file_path: '/r.txt' } }] }, { text: 'It holds r.' });
    await prompt(first, sessionId, 'what is in r.txt?');
    await first.close();

    const second = startEditor();
    await initialize(second);
    // A session never prompted is not listed.
    await second.conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] });
    const listed = await second.conn.agent.request(methods.agent.session.list, { cwd: t.folder });
    expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, cwd: t.folder, title: 'what is in r.txt?' })]);
    const loaded = await second.conn.agent.request(methods.agent.session.load, { sessionId, cwd: t.folder, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('ask');
    // Updates sent before the answer arrived before it.
    expect(textOfChunks(ofKind(second, 'user_message_chunk'))).toBe('what is in r.txt?');
    expect(textOfChunks(ofKind(second, 'agent_message_chunk'))).toBe('It holds r.');
    expect(ofKind(second, 'tool_call')).toEqual([expect.objectContaining({ toolCallId: 'g1', kind: 'read' })]);
    expect(ofKind(second, 'tool_call_update')).toEqual([expect.objectContaining({ toolCallId: 'g1', status: 'completed' })]);

    // The loaded session goes on: the model sees the earlier conversation.
    t.server.push({ text: 'still here' });
    expect((await prompt(second, sessionId, 'and now?')).stopReason).toBe('end_turn');
    expect(JSON.stringify(t.server.requests.at(-1)!.messages)).toContain('It holds r.');

    // Closed, it takes no prompt; resumed (without a replay), it goes on again.
    await second.conn.agent.request(methods.agent.session.close, { sessionId });
    await expect(prompt(second, sessionId, 'closed?')).rejects.toMatchObject({ code: -32002 });
    const replayed = () => second.updates.filter((n) => n.update.sessionUpdate !== 'available_commands_update').length;
    const before = replayed();
    await second.conn.agent.request(methods.agent.session.resume, { sessionId, cwd: t.folder, mcpServers: [] });
    expect(replayed()).toBe(before);
    t.server.push({ text: 'resumed' });
    expect((await prompt(second, sessionId, 'back?')).stopReason).toBe('end_turn');
    expect(JSON.stringify(t.server.requests.at(-1)!.messages)).toContain('still here');
  });

  it('reads and edits the editor’s unsaved buffer through fs/read_text_file and fs/write_text_file', async () => {
    const file = join(t.folder, 'u.txt');
    writeFileSync(file, 'on disk\n');
    const editor = startEditor({ fs: true });
    editor.buffers.set(file, 'unsaved line\n');
    const sessionId = await newSession(editor, true);
    await editor.conn.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'edit' });
    t.server.push(
      { toolCalls: [{ id: 'u1', name: 'read_file', args: { file_path: '/u.txt' } }] },
      { toolCalls: [{ id: 'u2', name: 'edit_file', args: { file_path: '/u.txt', old_string: 'unsaved', new_string: 'edited' } }] },
      { text: 'done' },
    );
    await prompt(editor, sessionId, 'fix u.txt');
    expect(JSON.stringify(t.server.requests[1]!.messages)).toContain('     1\\tunsaved line');
    expect(editor.buffers.get(file)).toBe('edited line\n');
    expect(readFileSync(file, 'utf8')).toBe('on disk\n');
    expect(editor.permissions).toHaveLength(0);
    expect(toolTexts(editor)).toContain("Successfully replaced 1 instance(s) of the string in '/u.txt'");
  });

  it('set_mode plan refuses writes with the plan-mode error; /mode edit in a prompt switches back', async () => {
    const editor = startEditor();
    const sessionId = await newSession(editor);
    await editor.conn.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'plan' });
    t.server.push({ toolCalls: [{ id: 'p1', name: 'write_file', args: { file_path: '/p.txt', content: 'p' } }] }, { text: 'ok' });
    await prompt(editor, sessionId, 'write p');
    expect(existsSync(join(t.folder, 'p.txt'))).toBe(false);
    expect(toolTexts(editor)).toContain('Error: plan mode is read-only; ask the user to switch modes to make changes');
    await expect(editor.conn.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'yolo' })).rejects.toMatchObject({ code: -32602 });

    // The slash commands are offered, and `/mode edit` switches as set_mode does, without a model call.
    await expect.poll(() => ofKind(editor, 'available_commands_update').at(-1)?.availableCommands.map((c) => c.name)).toEqual(expect.arrayContaining(['compact', 'mode', 'model']));
    const calls = t.server.requests.length;
    expect((await prompt(editor, sessionId, '/mode edit')).stopReason).toBe('end_turn');
    expect(ofKind(editor, 'current_mode_update').at(-1)?.currentModeId).toBe('edit');
    expect(t.server.requests.length).toBe(calls);
    t.server.push({ toolCalls: [{ id: 'p2', name: 'write_file', args: { file_path: '/p.txt', content: 'p' } }] }, { text: 'ok' });
    await prompt(editor, sessionId, 'write p now');
    expect(readFileSync(join(t.folder, 'p.txt'), 'utf8')).toBe('p');
  });

  it('/goal drafts the goal, shows the draft, pursues it, and the host’s check grants it (SPEC §21)', async () => {
    const editor = startEditor();
    const sessionId = await newSession(editor);
    await editor.conn.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'auto' });
    const turns = [{ toolCalls: [{ name: 'execute', args: { command: 'echo ok > done.txt' } }] }, { text: 'Done.' }];
    for (let i = 0; i < 8; i++) {
      t.server.push((request) => {
        const tools = request.tools?.map((tool) => tool.function.name) ?? [];
        if (tools.includes('propose_goal')) return { toolCalls: [{ name: 'propose_goal', args: { criteria: ['done.txt exists'], verify: [{ command: 'test -f done.txt', expectedExitCode: 0 }] } }] };
        if (tools.includes('record_verdict')) {
          const sent = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
          return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ PASSED/.test(sent) ? 'satisfied' : 'needs_revision', reason: 'evidence' }] } }] };
        }
        return turns.shift() ?? { text: 'Nothing more.' };
      });
    }
    await expect.poll(() => ofKind(editor, 'available_commands_update').at(-1)?.availableCommands.map((c) => c.name)).toEqual(expect.arrayContaining(['goal']));
    expect((await prompt(editor, sessionId, '/goal write done.txt')).stopReason).toBe('end_turn');
    expect(textOfChunks(ofKind(editor, 'agent_message_chunk'))).toContain('$ test -f done.txt');
    const exported = JSON.parse((await t.deepdesk(['threads', 'export', sessionId, '--data-dir', t.dataDir])).stdout.split('\n')[0]!) as { goal: { state: string } };
    expect(exported.goal.state).toBe('achieved');
  });

  it('starts the editor’s MCP servers for the session, and shows write_todos as a plan', async () => {
    const everything = join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const editor = startEditor();
    await initialize(editor);
    const { sessionId } = await editor.conn.agent.request(methods.agent.session.new, {
      cwd: t.folder,
      mcpServers: [{ name: 'ed', command: process.execPath, args: [everything, 'stdio'], env: [] }],
    });
    t.server.push(
      { toolCalls: [{ id: 't1', name: 'write_todos', args: { todos: [{ content: 'look around', status: 'in_progress' }, { content: 'report', status: 'pending' }] } }] },
      { text: 'planned' },
    );
    await prompt(editor, sessionId, 'plan it');
    expect((t.server.requests[0]!.tools ?? []).map((tool) => tool.function.name)).toContain('mcp__ed__echo');
    expect(ofKind(editor, 'plan').at(-1)!.entries).toEqual([
      { content: 'look around', status: 'in_progress', priority: 'medium' },
      { content: 'report', status: 'pending', priority: 'medium' },
    ]);
  }, 90_000);

  it('sends an image prompt to the model as an image', async () => {
    const png = makePng(4, 4).toString('base64');
    const editor = startEditor();
    const sessionId = await newSession(editor);
    t.server.push({ text: 'a small square' });
    const r = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mimeType: 'image/png', data: png },
      ],
    });
    expect(r.stopReason).toBe('end_turn');
    expect(JSON.stringify(t.server.requests[0]!.messages)).toContain(png);
  });

  it('refuses a relative cwd and an unknown method with JSON-RPC errors', async () => {
    const editor = startEditor();
    await initialize(editor);
    await expect(editor.conn.agent.request(methods.agent.session.new, { cwd: 'relative/dir', mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
    await expect(editor.conn.agent.request('deepdesk/no_such_method', {})).rejects.toMatchObject({ code: -32601 });
  });

  it('answers a malformed line with a parse error and goes on; stdout holds only protocol messages', async () => {
    const child = spawn(process.execPath, [bin, 'acp', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url], {
      cwd: repo,
      env: { ...process.env, OPENAI_API_KEY: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const send = (line: string) => child.stdin.write(line + '\n');
    const lines = () => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id?: unknown; result?: unknown; error?: { code: number } });
    send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION } }));
    await expect.poll(() => lines().some((m) => m.id === 1), { timeout: 60_000 }).toBe(true);
    send('{this is not json');
    send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'nope/nothing', params: {} }));
    send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'session/list', params: {} }));
    // Answers may come in any order (JSON-RPC): all three are waited for.
    await expect.poll(() => lines().some((m) => m.error?.code === -32700) && [2, 3].every((id) => lines().some((m) => m.id === id)), { timeout: 60_000 }).toBe(true);
    const messages = lines();
    expect(messages.find((m) => m.error?.code === -32700)).toBeDefined();
    expect(messages.find((m) => m.id === 2)?.error?.code).toBe(-32601);
    expect(messages.find((m) => m.id === 3)?.result).toEqual({ sessions: [] });
    child.stdin.end();
    expect(await new Promise((done) => child.once('close', done))).toBe(0);
  });
});

describe('deepdesk acp --trust', () => {
  it("trusts the folder given for this process only: a session on another folder the editor opens does not load that folder's hooks", async () => {
    const other = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-acp-other-')));
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-acp-markers-')));
    try {
      const hook = (folder: string, marker: string): void => {
        mkdirSync(join(folder, '.deepdesk'), { recursive: true });
        writeFileSync(join(folder, '.deepdesk', 'hooks.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch "${marker}"` }] }] } }));
      };
      hook(t.folder, join(outside, 'given'));
      hook(other, join(outside, 'other'));
      const editor = startEditor({ args: ['--trust'] });
      await initialize(editor);
      const elsewhere = (await editor.conn.agent.request(methods.agent.session.new, { cwd: other, mcpServers: [] })).sessionId;
      t.server.push({ text: 'one' }, { text: 'two' });
      expect((await prompt(editor, elsewhere, 'hi')).stopReason).toBe('end_turn');
      expect(existsSync(join(outside, 'other'))).toBe(false);
      const given = (await editor.conn.agent.request(methods.agent.session.new, { cwd: t.folder, mcpServers: [] })).sessionId;
      expect((await prompt(editor, given, 'hi')).stopReason).toBe('end_turn');
      expect(existsSync(join(outside, 'given'))).toBe(true);
      // Nothing was recorded: --trust is for this process.
      expect(existsSync(join(t.dataDir, 'trust.json')) ? readFileSync(join(t.dataDir, 'trust.json'), 'utf8') : '{}').not.toContain('hook:');
    } finally {
      rmSync(other, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('deepdesk acp: what the editor shows and loads is what runs', () => {
  const ZWSP = '\u200b';
  const hidden = new RegExp(invisiblePatternSource(), 'u');
  /** Every text of a permission request the editor may show: its title and its text content. */
  const shownTexts = (request: RequestPermissionRequest): string[] => [
    request.toolCall.title ?? '',
    ...(request.toolCall.content ?? []).flatMap((c) => (c.type === 'content' && c.content.type === 'text' ? [c.content.text] : [])),
  ];

  it.each([
    ['300 zero-width spaces', ZWSP.repeat(300)],
    ['bidi overrides', '\u202e'.repeat(40)],
    ['300 spaces', ' '.repeat(300)],
    ['200 newlines', '\n'.repeat(200)],
  ])('a command padded with %s shows its whole tail, escaped, in the permission request and the tool call', async (_name, padding) => {
    const marker = join(t.dataDir, `acp-marker-${randomUUID()}`);
    const command = `git status${padding}; touch ${marker}`;
    const editor = startEditor();
    const sessionId = await newSession(editor);
    t.server.push({ toolCalls: [{ id: 'x1', name: 'execute', args: { command, sandbox: false, reason: 'git needs the real repository' } }] }, { text: 'done' });
    editor.answers.push('reject_once');
    await prompt(editor, sessionId, 'check the status');
    expect(editor.permissions).toHaveLength(1);
    const request = editor.permissions[0]!;
    const title = request.toolCall.title ?? '';
    // The title is the whole command on one line: its tail is there, nothing in it is invisible or a line break.
    expect(title).toContain(`; touch ${marker}`);
    expect(title).not.toMatch(hidden);
    expect(title).not.toMatch(/[\n\r]| {17}/);
    if (padding.startsWith(ZWSP)) expect(title).toContain('\\u200b');
    if (padding.startsWith('\u202e')) expect(title).toContain('\\u202e');
    // The text shows the whole command on its lines: no invisible characters, no screenful of blanks before its tail.
    const text = shownTexts(request).slice(1).join('\n');
    expect(text).toContain(`; touch ${marker}`);
    expect(text.replace(/[\n\t]/g, ' ')).not.toMatch(hidden);
    expect(text).not.toMatch(/ {17}|(\n[ \t]*){5}/);
    const call = ofKind(editor, 'tool_call').find((c) => c.toolCallId === 'x1')!;
    expect(call.title).toBe(title);
    expect(existsSync(marker)).toBe(false);
  });

  it('session/load and session/resume of another folder’s thread fail with a clear error; session/list does not show it', async () => {
    const first = startEditor();
    const sessionId = await newSession(first);
    t.server.push({ text: 'secret plans' });
    await prompt(first, sessionId, 'remember the plans');
    await first.close();

    const other = realpathSync(mkdtempSync(join(t.dataDir, 'folder-b-')));
    const second = startEditor();
    await initialize(second);
    expect((await second.conn.agent.request(methods.agent.session.list, { cwd: other })).sessions).toEqual([]);
    for (const method of [methods.agent.session.load, methods.agent.session.resume]) {
      await expect(second.conn.agent.request(method, { sessionId, cwd: other, mcpServers: [] })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/is not a session of this folder/),
      });
    }
    expect(textOfChunks(ofKind(second, 'user_message_chunk'))).toBe('');
    expect(textOfChunks(ofKind(second, 'agent_message_chunk'))).toBe('');
    // From its own folder it loads.
    await second.conn.agent.request(methods.agent.session.load, { sessionId, cwd: t.folder, mcpServers: [] });
    expect(textOfChunks(ofKind(second, 'agent_message_chunk'))).toBe('secret plans');
  });

  it('a repository’s MCP prompt and an editor’s embedded file are never read for @server:URI', async () => {
    const TEST_SERVER = join(repo, 'src-main/core/extensions/mcp/__fixtures__/test-server.mjs');
    const vaultLog = join(t.dataDir, 'vault.log');
    writeFileSync(vaultLog, '');
    const entry = (log: string) => ({ command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_LOG: log }, sandbox: false });
    writeFileSync(join(t.dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { repo: entry(join(t.dataDir, 'repo.log')), vault: entry(vaultLog) } }));
    const editor = startEditor();
    const sessionId = await newSession(editor);
    await expect.poll(() => ofKind(editor, 'available_commands_update').at(-1)?.availableCommands.map((c) => c.name), { timeout: 60_000 }).toContain('mcp__repo__inject');
    t.server.push({ text: 'one' }, { text: 'two' }, { text: 'three' });
    await prompt(editor, sessionId, '/mcp__repo__inject');
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'what does this say?' },
        { type: 'resource', resource: { uri: `file://${t.folder}/README.md`, text: 'See @vault:secret://x for details.' } },
      ],
    });
    for (const request of t.server.requests) {
      const sent = JSON.stringify(request.messages.at(-1)!.content);
      expect(sent).toContain('@vault:secret://x');
      expect(sent).not.toContain('TOP-SECRET-VALUE');
    }
    expect(readFileSync(vaultLog, 'utf8')).not.toContain('read secret://x');
    // What the person types is expanded.
    await prompt(editor, sessionId, 'and @vault:secret://x');
    expect(JSON.stringify(t.server.requests[2]!.messages.at(-1)!.content)).toContain('TOP-SECRET-VALUE');
  }, 90_000);
});

describe('deepdesk acp in the agent host (SPEC §16)', () => {
  const agents = async () => JSON.parse((await t.deepdesk(['agents', '--json', '--data-dir', t.dataDir])).stdout) as Array<{ threadId: string; state: string }>;

  it('an editor that goes leaves its prompt’s run going: the command finishes and the model is called again after it left', async () => {
    const editor = startEditor();
    const sessionId = await newSession(editor);
    const late = join(t.folder, 'late.txt');
    t.server.push({ toolCalls: [{ id: 'x1', name: 'execute', args: { command: `sleep 1.5; echo late > late.txt` } }] }, { text: 'finished after the editor left' });
    editor.answers.push('allow_once');
    void prompt(editor, sessionId, 'run it').catch(() => undefined);
    await expect.poll(() => editor.permissions.length, { timeout: 60_000 }).toBe(1);
    await editor.close();
    expect(editor.child.exitCode).toBe(0);
    expect(existsSync(late)).toBe(false);
    await expect.poll(() => existsSync(late), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => t.server.requests.length, { timeout: 60_000 }).toBe(2);
    await expect.poll(async () => (await agents()).find((a) => a.threadId === sessionId)?.state, { timeout: 60_000 }).toBe('done');
  });

  it('deepdesk agents lists an editor’s run that goes on without it, and deepdesk stop ends it and its command', { timeout: 180_000 }, async () => {
    const editor = startEditor();
    const sessionId = await newSession(editor);
    const marker = `62.${process.pid}${Date.now() % 100000}`;
    t.server.push({ toolCalls: [{ id: 'x1', name: 'execute', args: { command: `sleep ${marker}` } }] }, { text: 'stopped' });
    editor.answers.push('allow_once');
    void prompt(editor, sessionId, 'run it').catch(() => undefined);
    // A bound against a hang, not a measure of the machine (a fork bomb test may share its cores).
    await expect.poll(() => processesWith(marker).length, { timeout: 90_000 }).toBeGreaterThan(0);
    await editor.close();
    expect((await agents()).find((a) => a.threadId === sessionId)?.state).toBe('working');
    const stopped = await t.deepdesk(['stop', sessionId, '--data-dir', t.dataDir]);
    expect(stopped.code).toBe(0);
    await expect.poll(() => processesWith(marker), { timeout: 60_000 }).toEqual([]);
  });

  it('a host that dies: one line on stderr, the prompt is answered with an error, and the session goes on in a new host (resumed, its history not sent again)', async () => {
    const editor = startEditor();
    const sessionId = await newSession(editor);
    const marker = `63.${process.pid}${Date.now() % 100000}`;
    t.server.push({ toolCalls: [{ id: 'x1', name: 'execute', args: { command: `sleep ${marker}` } }] });
    editor.answers.push('allow_once');
    const running = prompt(editor, sessionId, 'run it');
    await expect.poll(() => processesWith(marker).length, { timeout: 60_000 }).toBeGreaterThan(0);
    const pid = hostPid(t.dataDir)!;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await expect(running).rejects.toThrow(/the agent host stopped/);
    await expect.poll(() => editor.stderr(), { timeout: 60_000 }).toContain('the agent host is back');
    expect(editor.stderr()).toMatch(/the agent host stopped \(.*\); starting it again/);
    await expect.poll(() => processesWith(marker), { timeout: 60_000 }).toEqual([]).catch((err: unknown) => {
      // Which processes were left, and under what: the first thing to know when this fails.
      for (const pid of processesWith(marker)) console.error('left:', describeProcess(pid), '| parent:', describeProcess(/PPid:\s+(\d+)/.exec(procText(pid, 'status'))?.[1] ?? ''));
      throw err;
    });
    expect(hostPid(t.dataDir)).not.toBe(pid);

    const before = editor.updates.length;
    t.server.push({ text: 'still here' });
    expect((await prompt(editor, sessionId, 'again')).stopReason).toBe('end_turn');
    const after = editor.updates.slice(before).map((n) => n.update);
    expect(textOfChunks(after)).toContain('still here');
    expect(after.filter((u) => u.sessionUpdate === 'user_message_chunk')).toEqual([]);
    // The model saw the interrupted call repaired, and the new message.
    expect(JSON.stringify(t.server.requests.at(-1)!.messages)).toMatch(/interrupted/);
  });
});
