// Another agent's thread started ahead (SPEC §22, issue 82), by effect with the scripted ACP
// agent in the real sandbox. Through the window's contract: `threads.prepare` starts its process
// and records nothing; the turn then uses that process (one start); deleting the thread, or
// closing the folder, leaves none of its processes (read from /proc). Through its runner, on the
// page's clock: one started ahead that no turn uses ends after its idle time, one a turn used is kept.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_RULES } from '../../core/agent/permissions/rules';
import { newThreadState } from '../../core/agent/types';
import { LocalShellBackend } from '../../core/backends/filesystem/local-shell';
import { detectSandbox } from '../../core/sandbox';
import { ExternalAgentRunner } from '../agents/agent-runner';
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

/** The scripted agent as a command that notes each start in the folder's `starts` file, its processes marked by `marker`. */
const scripted = (marker: string) => ({ name: 'scripted', command: '/bin/sh', args: ['-c', 'echo started >> starts; exec "$0" "$1" "$2"', process.execPath, SCRIPT, marker], env: {} });
const addAgent = async (opened: OpenedApp, marker: string): Promise<void> => void (await opened.call('externalAgents.add', scripted(marker)));

const starts = (): number => (existsSync(join(t.folder, 'starts')) ? readFileSync(join(t.folder, 'starts'), 'utf8').split('\n').filter(Boolean).length : 0);
/** The agent has started and answered `initialize` (its report is kept). */
const reported = (): boolean => existsSync(join(t.dataDir, 'agents', 'reported', 'scripted.json'));
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
    await expect.poll(reported, { timeout: 60_000 }).toBe(true);
    expect(pidsWith(marker).length).toBeGreaterThan(0);
    expect(starts()).toBe(1);
    expect((await opened.call('threads.get', { threadId: thread.id })).items).toEqual([]);

    await opened.call('threads.send', { threadId: thread.id, text: 'say ready at once' });
    await expect.poll(() => done(opened.events, thread.id), { timeout: 60_000 }).toBe(true);
    expect((await opened.call('threads.get', { threadId: thread.id })).items.at(-1)).toMatchObject({ kind: 'assistant', text: 'ready at once' });
    expect(starts()).toBe(1);

    await opened.call('threads.delete', { threadId: thread.id });
    await expect.poll(() => pidsWith(marker), { timeout: 60_000 }).toEqual([]);
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
    await expect.poll(reported, { timeout: 60_000 }).toBe(true);
    expect(pidsWith(marker).length).toBeGreaterThan(0);
    expect(starts()).toBe(1);

    await opened.close();
    await expect.poll(() => pidsWith(marker), { timeout: 60_000 }).toEqual([]);
  });

  /** A runner of the scripted agent for the folder, and one turn of it (nothing asks: the broker refuses). */
  function runnerFor(marker: string): { runner: ExternalAgentRunner; turn(text: string): Promise<string> } {
    const runner = new ExternalAgentRunner({ spec: { added: { ...scripted(marker), label: 'Scripted Agent' } }, threadId: 'thread-idle', folder: t.folder, dataDir: t.dataDir, rules: () => DEFAULT_RULES });
    const backend = new LocalShellBackend({ rootDir: t.folder });
    const turn = async (text: string) =>
      (await runner.turn(text, { state: newThreadState('thread-idle'), backend, signal: new AbortController().signal, broker: { decide: async () => ({ type: 'reject' }) }, emit: () => undefined, persist: () => undefined })).text;
    return { runner, turn };
  }

  it.skipIf(!available)('one started ahead that no turn uses ends after 10 minutes idle (the next turn starts it again); one a turn used is kept', { timeout: 180_000 }, async () => {
    const marker = `warm-${process.pid}-idle`;
    const { runner, turn } = runnerFor(marker);
    // The page's clock for timeouts, going on with real time too (the agent's start and stop wait on it).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    try {
      runner.prepare(undefined);
      await expect.poll(reported, { timeout: 60_000 }).toBe(true);
      await vi.advanceTimersByTimeAsync(9 * 60_000);
      expect(pidsWith(marker).length).toBeGreaterThan(0);
      await vi.advanceTimersByTimeAsync(60_000);
      await expect.poll(() => pidsWith(marker), { timeout: 60_000 }).toEqual([]);
      expect(await turn('say started again')).toBe('started again');
      expect(starts()).toBe(2);

      // Started ahead again, then used by a turn: the idle time no longer ends it.
      const kept = runnerFor(`${marker}-kept`);
      kept.runner.prepare(undefined);
      expect(await kept.turn('say used')).toBe('used');
      await vi.advanceTimersByTimeAsync(11 * 60_000);
      expect(await kept.turn('say still here')).toBe('still here');
      expect(starts()).toBe(3);
      expect(pidsWith(`${marker}-kept`).length).toBeGreaterThan(0);
      await kept.runner.close();
    } finally {
      vi.useRealTimers();
      await runner.close();
    }
    await expect.poll(() => [...pidsWith(marker), ...pidsWith(`${marker}-kept`)], { timeout: 60_000 }).toEqual([]);
  });
});
