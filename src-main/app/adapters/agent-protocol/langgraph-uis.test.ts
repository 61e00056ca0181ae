// LangChain's deep-agents-ui and agent-chat-ui against the host (SPEC §19), unmodified: their
// sources are not on the npm registry, so each is replayed here with the SDK version it pins
// (deep-agents-ui: @langchain/langgraph-sdk 1.0.3; agent-chat-ui: 1.15.0), sending what its
// useStream sends (stream modes, resumable streams, on_disconnect, the resume Command) and
// reading interrupts, state and cancellation as its components read them.

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as Client1_15 } from '@langchain/langgraph-sdk';
import { Client as Client1_0 } from 'langgraph-sdk-1-0-3';
import { describe, expect, it } from 'vitest';
import { collectParts, protocolHarnessPerTest, until, type StreamPart } from './testing/protocol-harness';
import { PAGE_REJOIN_MS } from './protocol-runs';

const PAGE = 'http://localhost:3000';
const h = protocolHarnessPerTest({ corsOrigins: [PAGE] });

type Interrupt = { id?: string; value?: Record<string, unknown> };
type ActionRequest = { name: string; args: Record<string, unknown>; description?: string };
type Values = { messages?: Array<{ type: string; content: unknown }>; files?: Record<string, unknown>; __interrupt__?: Interrupt[] };

/** The state useStream holds after a stream: each `values` part replaces it, one with `__interrupt__` is merged in. */
function streamValues(parts: readonly StreamPart[]): Values {
  let values: Values = {};
  for (const part of parts) if (part.event === 'values') values = '__interrupt__' in (part.data as object) ? { ...values, ...(part.data as Values) } : (part.data as Values);
  return values;
}

/** useStream's `interrupt`: the stream's `__interrupt__`, else the thread head's last task's last interrupt. */
function useStreamInterrupt(values: Values, head?: { tasks: Array<{ interrupts: Interrupt[] }> }): Interrupt | undefined {
  if (values.__interrupt__ !== undefined) return values.__interrupt__.length === 1 ? values.__interrupt__[0] : undefined;
  return head?.tasks.at(-1)?.interrupts.at(-1);
}

describe('deep-agents-ui (SDK 1.0.3)', () => {
  // ClientProvider's Client; useChat's useStream: reconnectOnMount (so streams are resumable, on_disconnect continue), fetchStateHistory, values and messages read.
  const ui = () => new Client1_0({ apiUrl: h.url, defaultHeaders: { 'Content-Type': 'application/json', 'X-Api-Key': h.key, Origin: PAGE } });
  const submit = (client: Client1_0, threadId: string, payload: { input?: unknown; command?: { resume: unknown } }) =>
    collectParts(client.runs.stream(threadId, 'deepdesk', { ...payload, config: { recursion_limit: 100 }, streamMode: ['values', 'messages-tuple'], streamResumable: true, onDisconnect: 'continue' } as never));
  const send = (client: Client1_0, threadId: string, text: string) => submit(client, threadId, { input: { messages: [{ id: randomUUID(), type: 'human', content: text }] } });

  /** ChatInterface: the interrupt's `action_requests` by name and `review_configs` by `actionName` (ToolApprovalInterrupt reads `allowedDecisions`). */
  function approvalCard(interrupt: Interrupt | undefined, tool: string): { actionRequest?: ActionRequest; allowedDecisions?: string[] } {
    const actionRequests = new Map(((interrupt?.value?.['action_requests'] ?? []) as ActionRequest[]).map((ar) => [ar.name, ar]));
    const reviewConfigs = new Map(((interrupt?.value?.['review_configs'] ?? []) as Array<{ actionName: string; allowedDecisions?: string[] }>).map((rc) => [rc.actionName, rc]));
    return { actionRequest: actionRequests.get(tool), allowedDecisions: reviewConfigs.get(tool)?.allowedDecisions };
  }

  /** FilesPopover: each file's text (a FileData's `content`, joined when a list of lines). */
  function filesPane(files: Record<string, unknown> | undefined): Record<string, string> {
    return Object.fromEntries(
      Object.entries(files ?? {}).map(([path, raw]) => {
        const content = raw !== null && typeof raw === 'object' && 'content' in raw ? (raw as { content: unknown }).content : raw;
        return [path, Array.isArray(content) ? content.join('\n') : String(content ?? '')];
      }),
    );
  }

  it('shows the approval card from the stream and after a reload; approve, edit and reject answer it; the files pane lists what the thread wrote', async () => {
    const client = ui();
    const { thread_id: threadId } = await client.threads.create();
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/notes.md', content: 'first\n' } }] }, { text: 'written' });
    const asked = await send(client, threadId, 'write the notes');
    const card = approvalCard(useStreamInterrupt(streamValues(asked)), 'write_file');
    expect(card.actionRequest?.args).toEqual({ file_path: '/notes.md', content: 'first\n' });
    expect(card.allowedDecisions).toEqual(['approve', 'edit', 'reject']);

    // A reload: the thread's history, its head's task interrupt.
    const [head] = await client.threads.getHistory<Values>(threadId, { limit: 10 });
    expect(approvalCard(useStreamInterrupt(head!.values, head as never), 'write_file').actionRequest?.name).toBe('write_file');

    // Approve: { decisions: [{ type: "approve" }] }.
    const approved = await submit(client, threadId, { input: null, command: { resume: { decisions: [{ type: 'approve' }] } } });
    expect(readFileSync(join(h.folder, 'notes.md'), 'utf8')).toBe('first\n');
    expect(filesPane(streamValues(approved).files)).toEqual({ '/notes.md': 'first\n' });
    expect(filesPane((await client.threads.getState<Values>(threadId)).values.files)).toEqual({ '/notes.md': 'first\n' });

    // Edit: edited_action with the arguments the person changed.
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/todo.md', content: 'draft\n' } }] }, { text: 'edited and written' });
    const second = await send(client, threadId, 'write the todo');
    const { actionRequest } = approvalCard(useStreamInterrupt(streamValues(second)), 'write_file');
    const edited = await submit(client, threadId, { input: null, command: { resume: { decisions: [{ type: 'edit', edited_action: { name: actionRequest!.name, args: { ...actionRequest!.args, content: 'final\n' } } }] } } });
    expect(readFileSync(join(h.folder, 'todo.md'), 'utf8')).toBe('final\n');
    expect(filesPane(streamValues(edited).files)).toEqual({ '/notes.md': 'first\n', '/todo.md': 'final\n' });

    // Reject, the reason left empty (the card sends `message: ""`).
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/never.md', content: 'no\n' } }] }, { text: 'not written' });
    await send(client, threadId, 'write another');
    const rejected = await submit(client, threadId, { input: null, command: { resume: { decisions: [{ type: 'reject', message: '' }] } } });
    expect(streamValues(rejected).messages!.at(-1)!.content).toBe('not written');
    expect(existsSync(join(h.folder, 'never.md'))).toBe(false);
    expect(Object.keys(filesPane((await client.threads.getState<Values>(threadId)).values.files))).toEqual(['/notes.md', '/todo.md']);
  });

  it('Stop cancels the run it started (useStream cancels the run id it kept, then closes the stream): the model is not called again', async () => {
    const client = ui();
    const { thread_id: threadId } = await client.threads.create();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.scripted.push(async () => (await held, { toolCalls: [{ name: 'ls', args: { path: '/' } }] }));
    const controller = new AbortController();
    let runId = '';
    const reading = (async () => {
      for await (const part of client.runs.stream(threadId, 'deepdesk', { input: { messages: [{ type: 'human', content: 'look around' }] }, streamMode: ['values', 'messages-tuple'], streamResumable: true, onDisconnect: 'continue', signal: controller.signal })) {
        if (part.event === 'metadata') runId = (part.data as { run_id: string }).run_id;
      }
    })().catch(() => undefined);
    await until(() => h.scripted.requests.length, (n) => n === 1, 'the first model call');
    await until(() => runId, Boolean, 'the run id');
    await client.runs.cancel(threadId, runId);
    controller.abort();
    await reading;
    await until(() => client.runs.get(threadId, runId), (r) => r.status === 'interrupted', 'the run to be interrupted');
    release();
    await new Promise((r) => setTimeout(r, 500));
    expect(h.scripted.requests).toHaveLength(1);
  });
});

describe('agent-chat-ui (SDK 1.15.0)', () => {
  // Stream.tsx's useStream: apiUrl and apiKey, onCustomEvent (so `custom` is streamed), values and messages read.
  const ui = () => new Client1_15({ apiUrl: h.url, apiKey: h.key, defaultHeaders: { Origin: PAGE } });
  const STREAM_MODE = ['values', 'messages-tuple', 'custom'] as const;
  /** thread/index.tsx's handleSubmit: resumable, so on_disconnect continue. */
  const send = (client: Client1_15, threadId: string, text: string, signal?: AbortSignal) =>
    client.runs.stream(threadId, 'deepdesk', {
      input: { messages: [{ id: randomUUID(), type: 'human', content: [{ type: 'text', text }] }] },
      streamMode: [...STREAM_MODE],
      streamSubgraphs: true,
      streamResumable: true,
      onDisconnect: 'continue',
      ...(signal ? { signal } : {}),
    });
  /** use-interrupted-actions' resumeRun: `submit({}, {command: {resume: {decisions}}})`, not resumable, so on_disconnect cancel. */
  const resume = (client: Client1_15, threadId: string, decisions: unknown[]) =>
    collectParts(client.runs.stream(threadId, 'deepdesk', { input: {}, command: { resume: { decisions } }, streamMode: ['values', 'messages-tuple', 'custom'], streamResumable: false, onDisconnect: 'cancel' }));

  /** lib/agent-inbox-interrupt.ts's isAgentInboxInterruptSchema, then utils.ts's createDefaultHumanResponse: the review config of the first action. */
  function inbox(interrupt: Interrupt | undefined): { action?: ActionRequest; allowed?: string[] } {
    const value = interrupt?.value as { action_requests?: ActionRequest[]; review_configs?: Array<{ action_name?: unknown; allowed_decisions?: unknown }> } | undefined;
    if (!Array.isArray(value?.action_requests) || value.action_requests.length === 0) return {};
    if (!Array.isArray(value.review_configs) || value.review_configs.length === 0) return {};
    if (!value.review_configs.every((c) => typeof c.action_name === 'string' && Array.isArray(c.allowed_decisions))) return {};
    const action = value.action_requests[0]!;
    const config = value.review_configs.find((c) => c.action_name === action.name) ?? value.review_configs[0];
    return { action, allowed: config!.allowed_decisions as string[] };
  }

  it('renders the interrupt as an inbox item (stream, thread, state); approve, edit and reject answer it', async () => {
    const client = ui();
    const { thread_id: threadId } = await client.threads.create({ metadata: { graph_id: 'deepdesk' } });
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/plan.md', content: 'one\n' } }] }, { text: 'planned' });
    const asked = await collectParts(send(client, threadId, 'plan it'));
    expect(inbox(useStreamInterrupt(streamValues(asked)))).toEqual({ action: { name: 'write_file', args: { file_path: '/plan.md', content: 'one\n' }, description: expect.any(String) }, allowed: ['approve', 'edit', 'reject'] });
    const [listed] = await client.threads.search({ metadata: { graph_id: 'deepdesk' }, limit: 100 });
    expect(inbox(Object.values(listed!.interrupts ?? {}).flat()[0] as Interrupt).action?.name).toBe('write_file');
    const state = await client.threads.getState(threadId);
    expect(inbox(state.tasks.at(-1)!.interrupts.at(-1) as Interrupt).allowed).toEqual(['approve', 'edit', 'reject']);

    const approved = await resume(client, threadId, [{ type: 'approve' }]);
    expect(streamValues(approved).messages!.at(-1)!.content).toBe('planned');
    expect(readFileSync(join(h.folder, 'plan.md'), 'utf8')).toBe('one\n');

    // Edit: the inbox's fields are text, so edited arguments come back as strings.
    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/plan.md', content: 'two\n' } }] }, { text: 'replanned' });
    const second = await collectParts(send(client, threadId, 'change it'));
    const { action } = inbox(useStreamInterrupt(streamValues(second)));
    await resume(client, threadId, [{ type: 'edit', edited_action: { name: action!.name, args: { ...action!.args, content: 'edited\n' } } }]);
    expect(readFileSync(join(h.folder, 'plan.md'), 'utf8')).toBe('edited\n');

    h.scripted.push({ toolCalls: [{ name: 'write_file', args: { file_path: '/other.md', content: 'x\n' } }] }, { text: 'left alone' });
    await collectParts(send(client, threadId, 'one more'));
    const rejected = await resume(client, threadId, [{ type: 'reject', message: 'not now' }]);
    expect(streamValues(rejected).messages!.at(-1)!.content).toBe('left alone');
    expect(existsSync(join(h.folder, 'other.md'))).toBe(false);
  });

  it("Cancel (useStream's stop: the stream closed, no cancel call) stops the run; a stream rejoined at once keeps it going", async () => {
    const client = ui();
    const { thread_id: threadId } = await client.threads.create();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.scripted.push(async () => (await held, { toolCalls: [{ name: 'ls', args: { path: '/' } }] }));
    const controller = new AbortController();
    let runId = '';
    const reading = (async () => {
      for await (const part of send(client, threadId, 'look around', controller.signal)) if (part.event === 'metadata') runId = (part.data as { run_id: string }).run_id;
    })().catch(() => undefined);
    await until(() => h.scripted.requests.length, (n) => n === 1, 'the first model call');
    await until(() => runId, Boolean, 'the run id');
    controller.abort();
    await reading;
    await until(() => client.runs.get(threadId, runId), (r) => r.status === 'interrupted', 'the run to be interrupted');
    expect((await client.threads.get(threadId)).status).toBe('idle');
    release();
    await new Promise((r) => setTimeout(r, 500));
    expect(h.scripted.requests).toHaveLength(1);

    // The SDK rejoining a dropped stream (or a page reloaded with reconnectOnMount) within PAGE_REJOIN_MS: the run goes on.
    h.scripted.push({ hang: true, text: 'thinking' });
    h.scripted.push({ text: 'never' });
    const again = new AbortController();
    let secondRun = '';
    const second = (async () => {
      for await (const part of send(client, threadId, 'think', again.signal)) if (part.event === 'metadata') secondRun = (part.data as { run_id: string }).run_id;
    })().catch(() => undefined);
    await until(() => h.scripted.requests.length, (n) => n === 2, 'the second run asking the model');
    await until(() => secondRun, Boolean, 'the second run id');
    again.abort();
    await second;
    const rejoined = new AbortController();
    const following = collectParts(client.runs.joinStream(threadId, secondRun, { signal: rejoined.signal })).catch(() => []);
    await new Promise((r) => setTimeout(r, PAGE_REJOIN_MS + 1_000));
    expect((await client.runs.get(threadId, secondRun)).status).toBe('running');
    rejoined.abort();
    await following;
    await client.runs.cancel(threadId, secondRun, true);
  });
});
