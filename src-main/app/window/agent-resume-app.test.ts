// Another agent's thread after a restart (SPEC §22), by effect with the scripted ACP agent in the
// real sandbox, through the window's contract on the same data folder: an agent that offers
// neither session/load nor session/resume, or refuses the stored session, starts afresh and the
// thread says so once (an event the window shows, a notice in its history), its history intact;
// one that loads its session continues and says nothing.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../core/sandbox';
import type { EventFrame } from '../contract';
import { useAppTestEnv, type OpenedApp } from './app-harness.test-support';

const t = useAppTestEnv('deepdesk-agent-resume');
const SCRIPT = join(__dirname, '..', '..', 'core', 'acp-client', 'testing', 'scripted-acp-agent.mjs');

type ThreadEvent = { threadId: string; event: { type: string; kind?: string; text?: string } };
const threadEvents = (opened: OpenedApp, threadId: string): ThreadEvent['event'][] =>
  opened.events.flatMap((e: EventFrame) => (e.event === 'thread.event' && (e.payload as ThreadEvent).threadId === threadId ? [(e.payload as ThreadEvent).event] : []));

/** Sends `text` on the thread and waits for its turn's end. */
async function send(opened: OpenedApp, threadId: string, text: string): Promise<void> {
  const before = threadEvents(opened, threadId).filter((e) => e.type === 'done').length;
  await opened.call('threads.send', { threadId, text });
  await expect.poll(() => threadEvents(opened, threadId).filter((e) => e.type === 'done').length, { timeout: 60_000 }).toBe(before + 1);
}

describe("another agent's thread after a restart", async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available).each([
    ['0', 'it offers neither session/load nor session/resume'],
    ['refuse', 'it refused to continue it'],
    ['1', undefined],
  ] as const)('SCRIPTED_ACP_LOAD=%s: says once why it starts afresh (nothing where it continues), the history kept', { timeout: 180_000 }, async (load, why) => {
    const first = await t.open();
    await first.call('externalAgents.add', { name: 'scripted', label: 'Scripted Agent', command: process.execPath, args: [SCRIPT, `resume-${process.pid}-${load}`], env: { SCRIPTED_ACP_LOAD: load } });
    const thread = await first.call('threads.create', { agent: 'scripted' });
    await send(first, thread.id, 'say before the restart');
    await first.close();

    const again = await t.open();
    await again.call('threads.prepare', { threadId: thread.id });
    await send(again, thread.id, 'say after the restart');
    await send(again, thread.id, 'say and once more');

    const notice = why && `Scripted Agent cannot resume its earlier session (${why}): it starts afresh; this thread keeps its history.`;
    const notes = threadEvents(again, thread.id).filter((e) => e.type === 'note');
    expect(notes).toEqual(notice ? [expect.objectContaining({ kind: 'resume', text: notice })] : []);
    const items = (await again.call('threads.get', { threadId: thread.id })).items as Array<{ kind: string; text?: string }>;
    expect(items.filter((i) => i.kind === 'notice').map((i) => i.text)).toEqual(notice ? [notice] : []);
    const said = items.filter((i) => i.kind === 'user' || i.kind === 'assistant').map((i) => i.text);
    expect(said.slice(0, 2)).toEqual(['say before the restart', 'before the restart']);
    expect(said.at(-1)).toBe('and once more');
  });
});
