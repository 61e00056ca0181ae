// Another agent's thread started ahead (SPEC §22, issue 82), by effect through the window's
// contract with the scripted ACP agent in the real sandbox: `threads.prepare` starts its process
// and records nothing; the turn then uses that process (one start); deleting the thread, or
// closing the folder, leaves none of its processes (read from /proc).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../core/sandbox';
import type { EventFrame } from '../contract';
import { useAppTestEnv, type OpenedApp } from './app-harness.test-support';

const t = useAppTestEnv('deepdesk-agent-warm');
const SCRIPT = join(__dirname, '..', '..', 'core', 'acp-client', 'testing', 'scripted-acp-agent.mjs');

/** The pids whose command line carries `marker` (the agent's sandbox and the agent in it). */
function pidsWith(marker: string): number[] {
  return readdirSync('/proc').flatMap((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker) ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
}

/** Adds the scripted agent as a command that notes each start in the folder's `starts` file, its processes marked by `marker`. */
async function addAgent(opened: OpenedApp, marker: string): Promise<void> {
  await opened.call('externalAgents.add', { name: 'scripted', command: '/bin/sh', args: ['-c', 'echo started >> starts; exec "$0" "$1" "$2"', process.execPath, SCRIPT, marker], env: {} });
}

const starts = (): number => (existsSync(join(t.folder, 'starts')) ? readFileSync(join(t.folder, 'starts'), 'utf8').split('\n').filter(Boolean).length : 0);
const done = (events: EventFrame[], threadId: string): boolean =>
  events.some((e) => e.event === 'thread.event' && (e.payload as { threadId: string; event: { type: string } }).threadId === threadId && (e.payload as { event: { type: string } }).event.type === 'done');

describe("another agent's thread started ahead", async () => {
  const available = (await detectSandbox()).available;

  it.skipIf(!available)('prepare starts it and records nothing; the turn uses that process; deleting the thread leaves none of it', { timeout: 180_000 }, async () => {
    const opened = await t.open();
    const marker = `warm-${process.pid}-delete`;
    await addAgent(opened, marker);
    const thread = await opened.call('threads.create', { agent: 'scripted' });
    await opened.call('threads.prepare', { threadId: thread.id });
    await opened.call('threads.prepare', { threadId: thread.id });
    await expect.poll(() => pidsWith(marker).length, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(starts()).toBe(1);
    expect((await opened.call('threads.get', { threadId: thread.id })).items).toEqual([]);

    await opened.call('threads.send', { threadId: thread.id, text: 'say ready at once' });
    await expect.poll(() => done(opened.events, thread.id), { timeout: 60_000 }).toBe(true);
    expect((await opened.call('threads.get', { threadId: thread.id })).items.at(-1)).toMatchObject({ kind: 'assistant', text: 'ready at once' });
    expect(starts()).toBe(1);

    await opened.call('threads.delete', { threadId: thread.id });
    await expect.poll(() => pidsWith(marker), { timeout: 30_000 }).toEqual([]);
  });

  it.skipIf(!available)('one started ahead and never used ends with the folder; a thread of Deepdesk’s own prepares nothing', { timeout: 180_000 }, async () => {
    const opened = await t.open();
    const marker = `warm-${process.pid}-close`;
    await addAgent(opened, marker);
    const own = await opened.call('threads.create', {});
    await opened.call('threads.prepare', { threadId: own.id });
    await opened.call('threads.prepare', { threadId: 'no-such-thread' });
    const thread = await opened.call('threads.create', { agent: 'scripted' });
    await opened.call('threads.prepare', { threadId: thread.id });
    await expect.poll(() => pidsWith(marker).length, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(starts()).toBe(1);

    await opened.close();
    await expect.poll(() => pidsWith(marker), { timeout: 30_000 }).toEqual([]);
  });
});
