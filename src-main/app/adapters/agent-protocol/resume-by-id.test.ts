// A protocol resume names what it answers (SPEC §19): keyed by the interrupt ids this host
// issued (`{command: {resume: {[interruptId]: {decisions}}}}`, as LangGraph's reference server
// and Agent Chat UI send it), or bare only while what waits is exactly the interrupt the client
// was shown. Attacked by effect with the real SDK client: a command's marker file appears only
// when the approval it asked was the one answered.

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../../../core/models/testing/scripted-server';
import type { PendingQuestion } from '../../host/run-views';
import { collectParts, human, protocolHarnessPerTest, until } from './testing/protocol-harness';

const h = protocolHarnessPerTest();

type Interrupt = { id: string; value: { actionRequests: Array<{ name: string; args: { command?: string } }> } };

const ask = { configurable: { mode: 'ask' } };

/** Starts a run on a new thread whose model calls `execute` with `command`, and returns the interrupt its stream showed. */
async function runUntilInterrupt(threadId: string, command: string, then: ScriptStep[] = [{ text: 'done' }]): Promise<Interrupt> {
  h.scripted.push({ toolCalls: [{ name: 'execute', args: { command } }] }, ...then);
  const parts = await collectParts(h.client.runs.stream(threadId, 'deepdesk', { input: human('run it'), ifNotExists: 'create', config: ask, streamMode: ['values'] }));
  const last = parts.at(-1)!.data as { __interrupt__?: Interrupt[] };
  expect(last.__interrupt__).toHaveLength(1);
  return last.__interrupt__![0]!;
}

const pending = (threadId: string): PendingQuestion[] => h.context.runs.going(threadId)?.questions ?? [];

/** The status of the SDK error `call` throws (and its text), or a failure when it succeeds. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; text: string }> {
  try {
    await call;
  } catch (err) {
    const e = err as { status?: number; message?: string };
    return { status: e.status ?? -1, text: e.message ?? String(err) };
  }
  throw new Error('the resume was accepted; it should have been refused');
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a resume keyed by interrupt id', () => {
  it('approves the approval its interrupt names: the command runs', async () => {
    const threadId = randomUUID();
    const interrupt = await runUntilInterrupt(threadId, 'echo keyed > keyed-marker.txt');
    expect(interrupt.id).toMatch(/^[0-9a-f]{32}$/);
    expect(interrupt.value.actionRequests[0]).toMatchObject({ name: 'execute', args: { command: 'echo keyed > keyed-marker.txt' } });
    // The thread's state lists the same interrupt, under the same id.
    const thread = await h.client.threads.get(threadId);
    expect(Object.values(thread.interrupts ?? {}).flat()).toEqual([interrupt]);

    const resumed = (await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { [interrupt.id]: { decisions: [{ type: 'approve' }] } } } })) as { messages: Array<{ content: unknown }> };
    expect(resumed.messages.at(-1)!.content).toBe('done');
    expect(existsSync(join(h.folder, 'keyed-marker.txt'))).toBe(true);
    expect((await h.client.threads.get(threadId)).status).toBe('idle');
  });

  it("an unknown id, or another thread's interrupt, is refused and nothing runs", async () => {
    const mine = randomUUID();
    const other = randomUUID();
    // The model's steps are taken in turn: each thread's first call asks, and nothing answers them here.
    const myInterrupt = await runUntilInterrupt(mine, 'echo mine > mine-marker.txt', []);
    const otherInterrupt = await runUntilInterrupt(other, 'echo other > other-marker.txt', []);
    const approve = { decisions: [{ type: 'approve' }] };

    const unknown = await refusal(h.client.runs.wait(mine, 'deepdesk', { command: { resume: { ['0'.repeat(32)]: approve } } }));
    expect(unknown.status).toBe(409);
    expect(unknown.text).toMatch(/not an interrupt of thread/);
    const foreign = await refusal(h.client.runs.wait(mine, 'deepdesk', { command: { resume: { [otherInterrupt.id]: approve } } }));
    expect(foreign.status).toBe(409);
    // One good id beside a bad one answers nothing either.
    const mixed = await refusal(h.client.runs.wait(mine, 'deepdesk', { command: { resume: { [myInterrupt.id]: approve, [otherInterrupt.id]: approve } } }));
    expect(mixed.status).toBe(409);
    // A host approval key is not an interrupt id.
    const byKey = await refusal(h.client.runs.wait(mine, 'deepdesk', { command: { resume: { [pending(mine)[0]!.key]: approve } } }));
    expect(byKey.status).toBe(409);

    await settle(1000);
    expect(existsSync(join(h.folder, 'mine-marker.txt'))).toBe(false);
    expect(existsSync(join(h.folder, 'other-marker.txt'))).toBe(false);
    expect(pending(mine)).toHaveLength(1);
    expect(pending(other)).toHaveLength(1);
    expect((await h.client.threads.get(mine)).status).toBe('interrupted');
  });
});

describe('a bare resume (no interrupt id)', () => {
  it('meant for an approval answered in the window meanwhile never lands on the next one (another, unsandboxed command)', async () => {
    const threadId = randomUUID();
    const shown = await runUntilInterrupt(threadId, 'echo a > a-marker.txt', [{ toolCalls: [{ name: 'execute', args: { command: 'echo b > b-marker.txt' } }] }, { text: 'both asked' }]);
    expect(shown.value.actionRequests[0]!.args.command).toBe('echo a > a-marker.txt');

    // The window (the host's approvals, as its handler answers them) approves A; the run goes on and asks B.
    const [a] = pending(threadId);
    h.context.runs.answer(threadId, a!.key, { type: 'approve' });
    const [b] = await until(() => pending(threadId), (q) => q.length === 1 && q[0]!.key !== a!.key, 'approval B');
    expect(b!.request.args).toMatchObject({ command: 'echo b > b-marker.txt' });
    await until(() => existsSync(join(h.folder, 'a-marker.txt')), Boolean, "A's marker");

    // The client's approve, meant for A, as it sends it without an id: refused, B stays unanswered.
    const bare = await refusal(h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'approve' }] } } }));
    expect(bare.status).toBe(409);
    expect(bare.text).toMatch(/Resume by interrupt id/);
    // The same approve keyed by A's interrupt: A is no longer pending, refused too.
    const keyed = await refusal(h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { [shown.id]: { decisions: [{ type: 'approve' }] } } } }));
    expect(keyed.status).toBe(409);
    expect(keyed.text).toMatch(/no longer pending/);

    await settle(1000);
    expect(existsSync(join(h.folder, 'b-marker.txt'))).toBe(false);
    expect(pending(threadId).map((q) => q.key)).toEqual([b!.key]);

    // Once shown B (the thread's state), the client answers it by its id: rejected, B never runs.
    const state = await h.client.threads.getState(threadId);
    const [current] = state.tasks.flatMap((t) => t.interrupts) as Interrupt[];
    expect(current!.id).not.toBe(shown.id);
    expect(current!.value.actionRequests[0]!.args.command).toBe('echo b > b-marker.txt');
    const rejected = (await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { [current!.id]: { decisions: [{ type: 'reject', message: 'not that' }] } } } })) as { messages: Array<{ content: unknown }> };
    expect(rejected.messages.at(-1)!.content).toBe('both asked');
    expect(existsSync(join(h.folder, 'b-marker.txt'))).toBe(false);
  });

  it('sent for command A never approves a later command B no client was sent (a resume run nobody read, then the same approve again)', async () => {
    const threadId = randomUUID();
    await runUntilInterrupt(threadId, 'echo a > a-marker.txt', [{ toolCalls: [{ name: 'execute', args: { command: 'echo b > b-marker.txt' } }] }, { text: 'both asked' }]);
    const approve = { command: { resume: { decisions: [{ type: 'approve' as const }] } } };
    // The approve for A, its run created and never read (a client that does not follow it, or one whose answer was lost).
    await h.client.runs.create(threadId, 'deepdesk', approve);
    const [b] = await until(() => pending(threadId), (q) => q.length === 1 && (q[0]!.request.args as { command?: string }).command === 'echo b > b-marker.txt', 'approval B');
    await until(() => existsSync(join(h.folder, 'a-marker.txt')), Boolean, "A's marker");

    // The same approve again (a retry): B was put in a stream nobody read, so it was never sent to a client.
    const again = await refusal(h.client.runs.create(threadId, 'deepdesk', approve));
    expect(again.status).toBe(409);
    await settle(1000);
    expect(existsSync(join(h.folder, 'b-marker.txt'))).toBe(false);
    expect(pending(threadId).map((q) => q.key)).toEqual([b!.key]);

    // Once a client reads it (the thread's state), a bare answer goes to it.
    await h.client.threads.getState(threadId);
    const rejected = (await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'reject', message: 'not that' }] } } })) as { messages: Array<{ content: unknown }> };
    expect(rejected.messages.at(-1)!.content).toBe('both asked');
    expect(existsSync(join(h.folder, 'b-marker.txt'))).toBe(false);
  });

  it('while another approval came beside the shown one, is refused; the shown one answered by id leaves the other waiting, then a bare answer to what was shown is taken', async () => {
    const threadId = randomUUID();
    // One model turn, two commands: both ask at once; the run pauses (and its stream ends) on the first.
    h.scripted.push(
      {
        toolCalls: [
          { name: 'execute', args: { command: 'echo one > one-marker.txt' } },
          { name: 'execute', args: { command: 'echo two > two-marker.txt' } },
        ],
      },
      { text: 'two asked' },
    );
    const parts = await collectParts(h.client.runs.stream(threadId, 'deepdesk', { input: human('run both'), ifNotExists: 'create', config: ask, streamMode: ['values'] }));
    const shown = (parts.at(-1)!.data as { __interrupt__: Interrupt[] }).__interrupt__[0]!;
    expect(shown.value.actionRequests.map((r) => r.args.command)).toEqual(['echo one > one-marker.txt']);
    await until(() => pending(threadId).length, (n) => n === 2, 'both approvals');

    const bare = await refusal(h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'approve' }] } } }));
    expect(bare.status).toBe(409);
    expect(pending(threadId)).toHaveLength(2);

    const after = (await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { [shown.id]: { decisions: [{ type: 'approve' }] } } } })) as { __interrupt__?: Interrupt[] };
    await until(() => existsSync(join(h.folder, 'one-marker.txt')), Boolean, "the first command's marker");
    expect(after.__interrupt__?.[0]!.value.actionRequests.map((r) => r.args.command)).toEqual(['echo two > two-marker.txt']);
    expect(pending(threadId).map((q) => q.request.args)).toEqual([{ command: 'echo two > two-marker.txt' }]);

    // What waits is now exactly what the client was last shown: a bare answer goes to it.
    const rejected = (await h.client.runs.wait(threadId, 'deepdesk', { command: { resume: { decisions: [{ type: 'reject', message: 'not that' }] } } })) as { messages: Array<{ content: unknown }> };
    expect(rejected.messages.at(-1)!.content).toBe('two asked');
    expect(existsSync(join(h.folder, 'two-marker.txt'))).toBe(false);
  });
});
