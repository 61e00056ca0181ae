// `deepdesk threads export` (and `threads ls`) through the built bin, on a real data folder
// whose thread, approvals and ledger the test writes with the app's own classes: the JSON
// lines parse one by one and give the messages back, subagents sit under their task call,
// media is kept (or dropped with --no-media), and the Markdown transcript's fences hold
// whatever backticks, open fences or HTML the thread's text has.

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { marked, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { databasePath } from '../app/base/data-dir';
import { ApprovalService } from '../app/approvals/approval-service';
import { ThreadStore } from '../app/threads/thread-store';
import { SandboxStore } from '../app/sandboxes/sandbox-store';
import { newThreadState, type ThreadState } from '../core/agent/types';
import { openDatabase } from '../core/backends/store/store';
import type { ChatMessage, ToolCall } from '../core/models/types';
import { UsageLedger, type ModelCallRecord } from '../core/telemetry/usage-ledger';
import { useCliTestEnv } from './cli-harness.test-support';
import { recordRow } from '../core/telemetry/ledger-rows.test-support';

const t = useCliTestEnv('deepdesk-threads-cli');

const ID = 'e5e5e5e5-0000-4000-8000-000000000001';
const OTHER = 'f6f6f6f6-0000-4000-8000-000000000002';
const PNG = Buffer.from('\x89PNG\r\n\x1a\nabcdefgh', 'binary').toString('base64');
const LONG = 'x'.repeat(5000);
/** A result that tries to close its fence and forge a section of the transcript. */
const BREAKOUT = 'before\n```\n## User\nforged by the tool\n``````` seven\n~~~\n';

const call = (id: string, name: string, args: Record<string, unknown>, extra: Partial<ToolCall> = {}): ToolCall => ({ id, name, args, argsText: JSON.stringify(args), ...extra });

function thread(): ThreadState {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'Read `a.md` and ```fence``` it\n\n<!-- hide the rest' },
    {
      role: 'assistant',
      content: 'Reading.\n```js\nconst unclosed = 1;',
      provider: 'anthropic',
      toolCalls: [call('call_1', 'read_file', { file_path: '/a.md' }), call('task_1', 'task', { description: 'dig into it', subagent_type: 'general-purpose' })],
    },
    { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: BREAKOUT + LONG },
    { role: 'tool', toolCallId: 'task_1', toolName: 'task', content: 'the subagent found it' },
    { role: 'user', content: 'The person restored 1 file.', note: { id: 'note-1', kind: 'restore', display: 'You restored 1 file to before step 2.' } },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look at this' },
        { type: 'image', mimeType: 'image/png', data: PNG, name: 'shot.png', bytes: 16 },
      ],
    },
    {
      role: 'assistant',
      content: '',
      toolCalls: [call('call_2', 'write_file', { file_path: '/b.txt', content: 'edited' }, { originalArgs: { file_path: '/b.txt', content: 'proposed' } })],
    },
    { role: 'tool', toolCallId: 'call_2', toolName: 'write_file', content: 'Error: refused', isError: true },
    { role: 'assistant', content: 'Done.' },
  ];
  const subagent: ChatMessage[] = [
    { role: 'user', content: 'dig into it' },
    { role: 'assistant', content: '', toolCalls: [call('sub_1', 'ls', { path: '/' })] },
    { role: 'tool', toolCallId: 'sub_1', toolName: 'ls', content: 'a.md' },
    { role: 'assistant', content: 'the subagent found it' },
  ];
  return { ...newThreadState(ID), messages, subagentRuns: { task_1: subagent } };
}

function record(threadId: string, n: number, costUsd: number | null): ModelCallRecord {
  return {
    id: `mc-${threadId.slice(0, 4)}-${n}`,
    at: `2025-03-0${n}T10:00:00.000Z`,
    threadId,
    turn: n,
    subagent: n === 2 ? 'general-purpose' : null,
    purpose: 'agent',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    inputTokens: 100 * n,
    outputTokens: 10 * n,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd,
    durationMs: 500,
    failed: false,
    error: null,
  };
}

function seed(title = 'Export me'): ThreadState {
  const state = thread();
  const db = openDatabase(databasePath(t.dataDir));
  try {
    new ThreadStore(db).save(state, { folder: t.folder, title });
    new ThreadStore(db).save({ ...newThreadState(OTHER), messages: [{ role: 'user', content: 'another' }] }, { folder: t.folder });
    // A pending approval, as the approval service stores it (its table is its own).
    new ApprovalService(db, () => Promise.resolve({}));
    const pending = { threadId: ID, toolCallId: 'call_9', toolName: 'execute', args: { command: 'rm -rf build' }, reason: 'runs a command', createdAt: '2025-03-03T10:00:00.000Z' };
    db.prepare('INSERT INTO approvals (thread_id, tool_call_id, pending_json, created_at) VALUES (?, ?, ?, ?)').run(ID, 'call_9', JSON.stringify(pending), pending.createdAt);
    const ledger = new UsageLedger(db);
    recordRow(ledger, record(ID, 1, 0.012));
    recordRow(ledger, record(ID, 2, 0.003));
    recordRow(ledger, record(OTHER, 3, 1));
    ledger.close();
  } finally {
    db.close();
  }
  return state;
}

type Line = Record<string, unknown> & { type: string };

const parseLines = (stdout: string): Line[] => {
  expect(stdout.endsWith('\n')).toBe(true);
  return stdout
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
};

/** The messages back from the top-level message, tool_call and tool_result lines. */
function messagesOf(lines: Line[], parent?: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const l of lines.filter((x) => x.parentToolCallId === parent && x.pending === undefined)) {
    if (l.type === 'message' && l.role === 'user') out.push({ role: 'user', content: l.content as string, ...(l.note ? { note: l.note as never } : {}) });
    else if (l.type === 'message') out.push({ role: 'assistant', content: l.content as string, ...(l.provider ? { provider: l.provider as never } : {}) });
    else if (l.type === 'tool_call') {
      const last = out.at(-1) as Extract<ChatMessage, { role: 'assistant' }>;
      const c: ToolCall = { id: l.id as string, name: l.name as string, args: l.args, argsText: JSON.stringify(l.args), ...(l.edited ? { originalArgs: l.originalArgs } : {}) };
      last.toolCalls = [...(last.toolCalls ?? []), c];
    } else if (l.type === 'tool_result') {
      out.push({ role: 'tool', toolCallId: l.toolCallId as string, toolName: l.name as string, content: l.content as string, ...(l.isError ? { isError: true } : {}) });
    }
  }
  return out;
}

describe('deepdesk threads export', () => {
  it('jsonl: a thread line, the messages in order (round-tripping), subagents under their task call, approvals, model calls and the usage', async () => {
    const state = seed();
    const r = await t.deepdesk(['threads', 'export', ID]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = parseLines(r.stdout);
    expect(lines[0]).toMatchObject({ type: 'thread', id: ID, title: 'Export me', folder: t.folder });
    expect(lines[0]!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(lines.every((l) => typeof l.type === 'string')).toBe(true);

    expect(messagesOf(lines)).toEqual(state.messages);
    expect(messagesOf(lines, 'task_1')).toEqual(state.subagentRuns!.task_1);
    // The subagent's lines come right after its task call, before the task's result.
    const order = lines.map((l) => `${l.type}:${(l.id ?? l.toolCallId ?? l.role ?? '') as string}${l.parentToolCallId ? '@sub' : ''}`);
    expect(order.slice(0, 12)).toEqual([
      'thread:' + ID,
      'message:user',
      'message:assistant',
      'tool_call:call_1',
      'tool_call:task_1',
      'message:user@sub',
      'message:assistant@sub',
      'tool_call:sub_1@sub',
      'tool_result:sub_1@sub',
      'message:assistant@sub',
      'tool_result:call_1',
      'tool_result:task_1',
    ]);
    expect(lines.find((l) => l.type === 'tool_result' && l.toolCallId === 'call_2')).toMatchObject({ name: 'write_file', isError: true, index: 7 });
    expect(lines.find((l) => l.type === 'tool_call' && l.id === 'call_2')).toMatchObject({ edited: true, editedBy: 'person', originalArgs: { content: 'proposed' }, args: { content: 'edited' } });
    expect(lines.find((l) => l.type === 'message' && l.note !== undefined)).toMatchObject({ role: 'user', note: { kind: 'restore', display: 'You restored 1 file to before step 2.' } });
    // Media is kept whole (base64) in jsonl.
    expect(lines.find((l) => Array.isArray(l.content))!.content).toEqual([
      { type: 'text', text: 'look at this' },
      { type: 'image', mimeType: 'image/png', data: PNG, name: 'shot.png', bytes: 16 },
    ]);

    expect(lines.filter((l) => l.type === 'approval')).toEqual([
      { type: 'approval', status: 'pending', toolCallId: 'call_9', toolName: 'execute', args: { command: 'rm -rf build' }, reason: 'runs a command', createdAt: '2025-03-03T10:00:00.000Z' },
    ]);
    const calls = lines.filter((l) => l.type === 'model_call');
    expect(calls.map((c) => [c.id, c.subagent, c.inputTokens, c.costUsd])).toEqual([
      ['mc-e5e5-1', null, 100, 0.012],
      ['mc-e5e5-2', 'general-purpose', 200, 0.003],
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'usage', total: { calls: 2, inputTokens: 300, outputTokens: 30, unpricedCalls: 0 } });
    expect((lines.at(-1)!.total as { costUsd: number }).costUsd).toBeCloseTo(0.015, 10);
  });

  it('says what each call was for (issue 79): each model_call its purpose, the usage by purpose (jsonl and md)', async () => {
    seed();
    const db = openDatabase(databasePath(t.dataDir));
    try {
      const ledger = new UsageLedger(db);
      recordRow(ledger, { ...record(ID, 3, 0.002), id: 'mc-grader', purpose: 'grader' });
      recordRow(ledger, { ...record(ID, 4, 0.001), id: 'mc-draft', purpose: 'goal-draft' });
      recordRow(ledger, { ...record(ID, 5, null), id: 'mc-claude', purpose: 'other-agent', provider: 'claude-code' });
      ledger.close();
    } finally {
      db.close();
    }
    const lines = parseLines((await t.deepdesk(['threads', 'export', ID])).stdout);
    expect(lines.filter((l) => l.type === 'model_call').map((l) => [l.id, l.purpose, l.provider])).toEqual([
      ['mc-e5e5-1', 'agent', 'anthropic'],
      ['mc-e5e5-2', 'agent', 'anthropic'],
      ['mc-grader', 'grader', 'anthropic'],
      ['mc-draft', 'goal-draft', 'anthropic'],
      ['mc-claude', 'other-agent', 'claude-code'],
    ]);
    const byPurpose = (lines.at(-1)!.total as { byPurpose: Record<string, { calls: number; costUsd: number | null }> }).byPurpose;
    expect(byPurpose).toMatchObject({ agent: { calls: 2 }, grader: { calls: 1, costUsd: 0.002 }, 'goal-draft': { calls: 1, costUsd: 0.001 }, 'other-agent': { calls: 1, costUsd: null } });
    expect(byPurpose.agent!.costUsd).toBeCloseTo(0.015, 10);
    const md = (await t.deepdesk(['threads', 'export', ID, '--format', 'md'])).stdout;
    expect(md).toMatch(/^Calls by what they were for: .+$/m);
    for (const part of ['agent 2 ($0.0150)', 'grader 1 ($0.0020)', 'goal-draft 1 ($0.0010)', 'other-agent 1 (—)']) expect(md).toContain(part);
  });

  it('says where a thread came from and the sandbox it runs in (jsonl and md); a window thread has neither', async () => {
    seed();
    const db = openDatabase(databasePath(t.dataDir));
    try {
      expect(new ThreadStore(db).setSource(ID, { kind: 'protocol', client: 'a page at http://localhost:3000' })).toBe(true);
      // The first source stays.
      expect(new ThreadStore(db).setSource(ID, { kind: 'run' })).toBe(false);
      new SandboxStore(db).put({ folder: t.folder, worktree: t.folder, provider: 'daytona', sandboxId: 'sb-123' });
    } finally {
      db.close();
    }
    const jsonl = await t.deepdesk(['threads', 'export', ID]);
    expect(parseLines(jsonl.stdout)[0]).toMatchObject({ type: 'thread', source: { kind: 'protocol', client: 'a page at http://localhost:3000' }, sandbox: { provider: 'daytona', sandboxId: 'sb-123' } });
    const md = await t.deepdesk(['threads', 'export', ID, '--format', 'md']);
    expect(md.stdout).toContain('- From: the Agent Protocol, `a page at http://localhost:3000`');
    expect(md.stdout).toContain('- Sandbox: `daytona` `sb-123`');
    const other = parseLines((await t.deepdesk(['threads', 'export', OTHER])).stdout)[0]!;
    expect(other.source).toBeUndefined();
  });

  it('--no-media drops the base64 and keeps what the media was; --output writes a file (owner-only) instead', async () => {
    seed();
    const r = await t.deepdesk(['threads', 'export', ID, '--no-media']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(PNG);
    expect(parseLines(r.stdout).find((l) => Array.isArray(l.content))!.content).toEqual([
      { type: 'text', text: 'look at this' },
      { type: 'image', mimeType: 'image/png', name: 'shot.png', bytes: 16, omitted: true },
    ]);

    const file = join(t.folder, 'thread.md');
    const written = await t.deepdesk(['threads', 'export', ID, '--format', 'md', '--output', file]);
    expect(written).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(file, 'utf8')).toMatch(/^# Export me\n/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('md: a readable transcript whose fences hold against the backticks, open fences and HTML in the thread', async () => {
    seed('Title with ``` and \x1b[31mred');
    const r = await t.deepdesk(['threads', 'export', ID, '--format', 'md']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const md = r.stdout;
    expect(md.split('\n')[0]).toBe('# Title with ``` and \\x1b[31mred');
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(md).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);

    const tokens = marked.lexer(md);
    const all = flatten(tokens);
    // Only the transcript's own headings: nothing in a message or result made one.
    const headings = all.filter((tk): tk is Tokens.Heading => tk.type === 'heading').map((h) => `${h.depth} ${h.text}`);
    expect(headings).toEqual([
      '1 Title with ``` and \\x1b[31mred',
      '2 User',
      '2 Assistant',
      '3 Subagent of `task_1`',
      '4 Subagent › Task',
      '4 Subagent › Assistant',
      '4 Subagent › Assistant',
      '2 User',
      '2 Assistant',
      '2 Assistant',
      '2 Approvals',
      '2 Usage',
    ]);
    const code = all.filter((tk): tk is Tokens.Code => tk.type === 'code');
    // The result's text is one block, whole up to the cut (its own fences and the forged heading inside it).
    const result = code.find((c) => c.text.startsWith('before\n'))!;
    expect(result.text).toBe((BREAKOUT + LONG).slice(0, 2000));
    expect(md).toContain(`*Cut: the first 2,000 of ${(BREAKOUT + LONG).length.toLocaleString('en-US')} characters (the jsonl export has it whole).*`);
    expect(code.find((c) => c.lang === 'json' && c.text.includes('"/a.md"'))!.text).toBe('{\n  "file_path": "/a.md"\n}');
    // The assistant's unclosed fence is closed before the next section.
    expect(code.find((c) => c.lang === 'js')!.text).toBe('const unclosed = 1;');
    // The edited call shows what ran and what the model proposed.
    expect(md).toContain('*Edited by the person before it ran; the model proposed:*');
    expect(md).toContain('**Result** of `write_file` (`call_2`), an error:');
    // Notes as quotes, media as a line.
    expect(md).toContain('> **Note (restore):** You restored 1 file to before step 2.');
    expect(md).toContain('[image: shot.png, image/png, 16 bytes]');
    expect(md).not.toContain(PNG);
    // The usage table.
    expect(md).toContain('| Model | Calls | Input | Output | Cache read | Cache write | Cost |');
    expect(md).toContain('| anthropic:claude-sonnet-4-5 | 2 | 300 | 30 | 0 | 0 | $0.0150 |');
    expect(md).toContain('| **Total** | 2 | 300 | 30 | 0 | 0 | $0.0150 |');
    expect(md).toContain('`execute` (`call_9`), waiting for the person: runs a command');
  });

  it('md: model-written HTML, script links and entities stay text when the transcript is rendered', async () => {
    const attacks = [
      'Done <img src=x onerror="alert(1)"> and <script>alert(2)</script> and <!-- hide',
      '[click](javascript:alert(3)) [spaced]( JavaScript:alert(4) ) [escaped](javascript\\:alert(5)) ![img](data:text/html;base64,PHNjcmlwdD4=)',
      '[entity](&#106;avascript:alert(6)) [named](javascript&colon;alert(7)) <javascript:alert(8)> [vb](vbscript:msgbox(9))',
      '[ref]\n\n[ref]:\n  javascript:alert(10)',
      'a backslash \\<svg onload=alert(11)> and `code` then `<b onmouseover=alert(12)>` and [x](`)<img src=y onerror=alert(13)>`',
      '<details open ontoggle=alert(14)>',
    ];
    const db = openDatabase(databasePath(t.dataDir));
    try {
      const state: ThreadState = {
        ...newThreadState(ID),
        messages: [
          { role: 'user', content: attacks[0]! },
          { role: 'assistant', content: attacks.join('\n\n') },
          { role: 'user', content: 'note', note: { id: 'n1', kind: 'restore', display: attacks[1]! } },
        ],
        summary: attacks[2]!,
        contextStart: 3,
      };
      new ThreadStore(db).save(state, { folder: t.folder, title: '<img src=x onerror=alert(15)>' });
    } finally {
      db.close();
    }
    const r = await t.deepdesk(['threads', 'export', ID, '--format', 'md']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const html = await marked.parse(r.stdout);
    const tags = [...html.matchAll(/<([a-z][a-z0-9]*)\b([^>]*)>/gi)];
    const elements = new Set(tags.map((m) => m[1]!.toLowerCase()));
    for (const element of elements) expect(['h1', 'h2', 'h3', 'p', 'ul', 'li', 'code', 'pre', 'blockquote', 'strong', 'em', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'br', 'hr']).toContain(element);
    for (const [, , attributes] of tags) {
      expect(attributes).not.toMatch(/\son[a-z]+\s*=/i);
      // eslint-disable-next-line no-control-regex -- a browser drops controls and spaces from a URL before reading its scheme
      for (const target of attributes!.matchAll(/\s(?:href|src)="([^"]*)"/gi)) expect(decodeEntities(target[1]!).replace(/[\x00-\x20]/g, '')).not.toMatch(/^(javascript|vbscript|data):/i);
    }
    // Still readable: the words are there, as text.
    expect(r.stdout).toContain('onerror="alert(1)"');
    expect(html).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
  });

  it('an unknown thread is one line and exit 1; bad usage exits 2; threads ls lists the threads', async () => {
    const missing = await t.deepdesk(['threads', 'export', 'no-such-thread']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toBe("deepdesk threads: no thread 'no-such-thread' (deepdesk threads ls lists them)\n");
    for (const args of [['threads'], ['threads', 'export'], ['threads', 'export', ID, '--format', 'html'], ['threads', 'ls', '--format', 'md'], ['threads', 'frobnicate']]) {
      expect((await t.deepdesk(args)).code, args.join(' ')).toBe(2);
    }
    expect(await t.deepdesk(['threads', 'ls'])).toMatchObject({ code: 0, stdout: 'No threads yet.\n' });
    seed('Tab\tand \u202eescape');
    const ls = await t.deepdesk(['threads', 'ls']);
    expect(ls.code).toBe(0);
    const rows = ls.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows.find((l) => l.startsWith(ID))).toMatch(new RegExp(`^${ID} {2}\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z {2}9 messages {2}Tab\\\\x09and \\\\u202eescape$`));
    expect(rows.find((l) => l.startsWith(OTHER))).toMatch(/ {2}1 message {2,}another$/);
  });
});

function decodeEntities(text: string): string {
  return text.replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (whole, name: string) =>
    name.startsWith('#') ? String.fromCodePoint(parseInt(name.slice(name[1] === 'x' || name[1] === 'X' ? 2 : 1), name[1] === 'x' || name[1] === 'X' ? 16 : 10)) : ({ colon: ':', amp: '&', lt: '<', gt: '>', quot: '"' } as Record<string, string>)[name] ?? whole,
  );
}

function flatten(tokens: Token[]): Token[] {
  return tokens.flatMap((tk) => [tk, ...('tokens' in tk && Array.isArray(tk.tokens) ? flatten(tk.tokens) : [])]);
}
